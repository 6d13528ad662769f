#include "export/window_exporter.hpp"

#include <utility>

#include "convert/convert_input.hpp"
#include "convert/converter.hpp"
#include "export/otlp_writer.hpp"
#include "export/pprof_writer.hpp"
#include "export/recording_info.hpp"

namespace arec::exporting {
namespace {

// Encodes `p`, halving its samples until each part fits `max_bytes` (a single sample that does
// not fit stays whole: the sender says why it cannot go).
void encode_within(profile p, std::size_t max_bytes, const window_encoding& encoding,
                   std::vector<window_profile>& parts) {
  std::vector<std::byte> message =
      encoding.otlp ? otlp_request(p, encoding.resource) : pprof_message(p);
  if (max_bytes != 0 && message.size() > max_bytes && p.samples.size() > 1) {
    std::size_t half_samples = (p.samples.size() + 1) / 2;
    for (profile& half : split_samples(std::move(p), half_samples))
      encode_within(std::move(half), max_bytes, encoding, parts);
    return;
  }
  parts.push_back({.gzipped = gzip(message), .uncompressed_size = message.size()});
}

}  // namespace

void window_exporter::add_new_perf_maps(const io::perf::feature_set& features) {
  const std::vector<std::byte>* payload = features.find(io::perf::feature_arec_perf_maps);
  if (!payload || *payload == last_perf_maps_) return;
  builder_->add_recorded_perf_maps(recorded_perf_maps(features));
  last_perf_maps_ = *payload;
}

window_export window_exporter::export_window(const std::string& path, std::int64_t start_ns,
                                             std::int64_t end_ns, const profile_limits& limits,
                                             const window_encoding& encoding) {
  // Salvage: a window cut short by a full disk or a failed write still has its samples.
  convert::convert_input input = convert::open_convert_input(path, true);
  if (!builder_) {
    builder_.emplace(input.events, settings_from(input.features));
    if (const auto* maps = input.features.find(io::perf::feature_arec_perf_maps))
      last_perf_maps_ = *maps;
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
  profile whole = builder_->finish(start_ns, end_ns);
  if (encoding.metric_safe_type_names) use_metric_safe_type_names(whole);
  out.cut_stacks = truncate_stacks(whole, limits.max_stack_depth);
  for (profile& part : split_samples(std::move(whole), limits.max_samples))
    encode_within(std::move(part), limits.max_bytes, encoding, out.parts);
  return out;
}

}  // namespace arec::exporting
