#include "export/window_exporter.hpp"

#include <algorithm>
#include <span>
#include <utility>

#include "convert/convert_input.hpp"
#include "convert/converter.hpp"
#include "export/otlp_writer.hpp"
#include "export/pprof_writer.hpp"
#include "export/recording_info.hpp"

namespace arec::exporting {
namespace {

// Encodes `p`, halving its samples until each part fits `max_bytes` (a single sample that does
// not fit stays whole: the sender says why it cannot go). Parts get `labels`.
void encode_within(profile p, std::size_t max_bytes, const window_encoding& encoding,
                   const series_labels& labels, window_export& out) {
  std::vector<std::byte> message =
      encoding.otlp ? otlp_request(p, encoding.resource) : pprof_message(p);
  if (max_bytes != 0 && message.size() > max_bytes && p.samples.size() > 1) {
    out.split_for_limits = true;
    std::size_t half_samples = (p.samples.size() + 1) / 2;
    for (profile& half : split_samples(std::move(p), half_samples))
      encode_within(std::move(half), max_bytes, encoding, labels, out);
    return;
  }
  out.parts.push_back(
      {.gzipped = gzip(message), .uncompressed_size = message.size(), .labels = labels});
}

// `p` in as many parts as `limits` ask for, each with `labels`.
void encode_parts(profile p, const profile_limits& limits, const window_encoding& encoding,
                  const series_labels& labels, window_export& out) {
  std::vector<profile> parts = split_samples(std::move(p), limits.max_samples);
  if (parts.size() > 1) out.split_for_limits = true;
  for (profile& part : parts)
    encode_within(std::move(part), limits.max_bytes, encoding, labels, out);
}

// The features JIT names come from (the perf maps', then the jitdumps'), one after the other:
// a window whose bytes are those of the last one names nothing new.
std::vector<std::byte> jit_name_features(const perf_data::feature_set& features) {
  std::vector<std::byte> both;
  for (perf_data::feature bit :
       {perf_data::feature_arec_perf_maps, perf_data::feature_arec_jitdumps}) {
    const std::vector<std::byte>* payload = features.find(bit);
    std::uint64_t size = payload ? payload->size() : 0;
    const auto* size_bytes = reinterpret_cast<const std::byte*>(&size);
    both.insert(both.end(), size_bytes, size_bytes + sizeof size);
    if (payload) both.insert(both.end(), payload->begin(), payload->end());
  }
  return both;
}

}  // namespace

// Each window's feature lists the live processes' maps: the others are forgotten.
void window_exporter::add_new_perf_maps(const perf_data::feature_set& features) {
  std::vector<std::byte> now = jit_name_features(features);
  if (now == last_perf_maps_) {
    builder_->forget_perf_maps_but(last_pids_);
    return;
  }
  recorded_jit jit = recorded_jit_names(features);
  last_pids_.clear();
  for (const perf_data::captured_perf_map& map : jit.perf_maps) last_pids_.push_back(map.pid);
  builder_->forget_perf_maps_but(last_pids_);
  builder_->add_recorded_perf_maps(jit.perf_maps);
  builder_->add_recorded_jit_code(std::move(jit.by_time));
  last_perf_maps_ = std::move(now);
}

window_export window_exporter::export_window(const std::string& path, std::int64_t start_ns,
                                             std::int64_t end_ns, const profile_limits& limits,
                                             const window_encoding& encoding) {
  // Salvage: a window cut short by a full disk or a failed write still has its samples.
  convert::convert_input input = convert::open_convert_input(path, true);
  if (!builder_) {
    builder_settings settings = settings_from(input.features);
    settings.inline_frames = inline_frames_;
    for (const perf_data::captured_perf_map& map : settings.recorded_perf_maps)
      last_pids_.push_back(map.pid);
    builder_.emplace(input.events, std::move(settings));
    last_perf_maps_ = jit_name_features(input.features);
  } else {
    builder_->use_events(input.events);
    builder_->add_recorded_build_ids(recorded_build_ids(input.features));
    add_new_perf_maps(input.features);
    builder_->add_recorded_containers(recorded_containers(input.features));
  }
  builder_sink sink(*builder_);
  try {
    convert::merge_in_time_order(input, true, sink);
  } catch (...) {
    builder_->finish(start_ns, end_ns);  // what was read of it goes nowhere
    throw;
  }
  window_export out;
  out.samples = builder_->samples();
  out.chains_not_completed = builder_->chains_not_completed();
  out.warnings = builder_->take_perf_map_warnings();
  for (std::string& missing : builder_->missing_jit_flags(flags_said_))
    out.warnings.push_back(std::move(missing));
  profile whole = builder_->finish(start_ns, end_ns);
  if (encoding.metric_safe_type_names) use_metric_safe_type_names(whole);
  out.cut_stacks = truncate_stacks(whole, limits.max_stack_depth);
  if (!encoding.series_per_process) {
    encode_parts(std::move(whole), limits, encoding, {}, out);
    return out;
  }
  // One process at a time: a copy of the tables per process would add up on a busy host.
  for (process_samples& process : group_by_process(whole))
    encode_parts(with_samples(whole, std::move(process.samples)), limits, encoding, process.labels,
                 out);
  return out;
}

}  // namespace arec::exporting
