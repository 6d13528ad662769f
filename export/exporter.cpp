#include "export/exporter.hpp"

#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "base/system_error.hpp"
#include "base/unaligned.hpp"
#include "base/usage_error.hpp"
#include "convert/convert_input.hpp"
#include "convert/converter.hpp"
#include "export/folded_writer.hpp"
#include "export/otlp_writer.hpp"
#include "export/pprof_writer.hpp"
#include "export/profile_builder.hpp"
#include "export/recording_info.hpp"
#include "io/file_status.hpp"
#include "io/output_path.hpp"
#include "io/published_file.hpp"
#include "io/record_sink.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::exporting {
namespace {

std::int64_t modification_time_ns(const std::string& path) {
  struct stat status = io::status_of(path);
  return static_cast<std::int64_t>(status.st_mtim.tv_sec) * 1'000'000'000 + status.st_mtim.tv_nsec;
}

// The wall-clock window of the samples (recording_info.hpp): the header file's last write is
// when the recording ended.
std::pair<std::int64_t, std::int64_t> wall_window(const profile_builder& builder,
                                                  const convert::convert_input& first,
                                                  const convert::convert_input& last) {
  return sample_wall_window(builder.first_time(), builder.last_time(),
                            wall_clock_offset(first.features),
                            modification_time_ns(last.header_path));
}

void write_output(const std::string& path, std::span<const std::byte> bytes) {
  if (path == "-") return io::write_all(STDOUT_FILENO, bytes, "standard output");
  // Replaces an earlier export only once the new file is complete, under a temporary name of
  // its own: two exports to one path never write, or remove, each other's.
  io::published_file file(path, io::publish_policy::replace);
  io::write_all_at(file.fd(), bytes.data(), bytes.size(), 0, path);
  file.commit();
}

// About `buckets` buckets' worth of the samples' span, from the first file's SAMPLE_TIME first
// time to the last file's last (100 ms when a file does not say), at least 1 ms.
std::uint64_t bucket_length(const convert::convert_input& first, const convert::convert_input& last,
                            std::uint32_t buckets) {
  const std::vector<std::byte>* begins = first.features.find(perf_data::feature_sample_time);
  const std::vector<std::byte>* ends = last.features.find(perf_data::feature_sample_time);
  if (!begins || !ends || begins->size() < 16 || ends->size() < 16) return 100'000'000;
  auto start = base::load<std::uint64_t>(*begins, 0);
  auto end = base::load<std::uint64_t>(*ends, 8);
  if (end <= start) return 100'000'000;
  return std::max<std::uint64_t>((end - start) / buckets + 1, 1'000'000);
}

// Passes every record on and sums what the kernel said it lost: PERF_RECORD_LOST (id, lost)
// and PERF_RECORD_LOST_SAMPLES (lost), as perf report's "lost samples" counts them.
class loss_counter final : public io::record_sink {
 public:
  explicit loss_counter(io::record_sink& next) : next_(next) {}
  void write(std::span<const std::byte> record) override {
    constexpr std::size_t header = sizeof(perf_data::record_header);
    auto type = base::load<std::uint32_t>(record, 0);
    if (type == PERF_RECORD_LOST && record.size() >= header + 16)
      lost_ += base::load<std::uint64_t>(record, header + 8);
    else if (type == PERF_RECORD_LOST_SAMPLES && record.size() >= header + 8)
      lost_ += base::load<std::uint64_t>(record, header);
    next_.write(record);
  }
  std::uint64_t lost() const noexcept { return lost_; }

 private:
  io::record_sink& next_;
  std::uint64_t lost_ = 0;
};

}  // namespace

std::string output_path(const export_options& options) {
  if (!options.output.empty()) return options.output;
  std::string input = options.inputs.empty() ? "perf.data" : options.inputs.front();
  while (input.size() > 1 && input.ends_with('/')) input.pop_back();
  switch (options.format) {
    case export_format::pprof:
      return input + ".pb.gz";
    case export_format::folded:
      return input + ".folded";
    case export_format::otlp:
      return input + ".otlp.pb";
  }
  return input;
}

recorded_profile read_recording(const std::vector<std::string>& inputs_given, bool salvage,
                                const std::string& output, std::uint32_t time_buckets,
                                bool inline_frames) {
  std::vector<std::string> inputs = inputs_given;
  if (inputs.empty()) inputs.push_back("perf.data");
  recorded_profile recorded;
  export_report& report = recorded.report;
  report.output = output;
  std::vector<convert::convert_input> opened;
  for (const std::string& input : inputs) {
    opened.push_back(convert::open_convert_input(input, salvage));
    if (!output.empty() && output != "-" && opened.back().header_path == output)
      throw base::usage_error("-o " + output + ": the output would overwrite the input");
  }
  builder_settings settings = settings_from(opened.front().features);
  if (time_buckets != 0) {
    settings.time_bucket_ns = bucket_length(opened.front(), opened.back(), time_buckets);
    recorded.bucket_ns = settings.time_bucket_ns;
  }
  settings.inline_frames = inline_frames;
  profile_builder builder(opened.front().events, std::move(settings));
  // A rotated recording's later files name more: their build-ids, and their perf maps, which
  // only grew since (the last one holds every function the earlier ones did).
  for (const convert::convert_input& input : opened) {
    builder.add_recorded_build_ids(recorded_build_ids(input.features));
    // The first file's maps came with its settings: decoded and parsed once.
    if (&input != &opened.front()) {
      recorded_jit jit = recorded_jit_names(input.features);
      builder.add_recorded_perf_maps(jit.perf_maps);
      builder.add_recorded_jit_code(std::move(jit.by_time));
    }
    builder.add_recorded_containers(recorded_containers(input.features));
  }
  builder_sink to_builder(builder);
  loss_counter sink(to_builder);
  for (const convert::convert_input& input : opened) {
    builder.use_events(input.events);
    convert::convert_report read = convert::merge_in_time_order(input, salvage, sink);
    report.records += read.records;
    report.notes.insert(report.notes.end(), read.notes.begin(), read.notes.end());
    for (const convert::rejected_records& rejected : read.rejected)
      report.warnings.push_back("dropped " + std::to_string(rejected.count) +
                                " records perf 6.1 cannot read either: " + rejected.problem +
                                " (the first at " + rejected.first + ")");
  }
  for (std::string& warning : builder.take_perf_map_warnings())
    report.warnings.push_back(std::move(warning));
  std::vector<jit_runtime> said;
  for (std::string& missing : builder.missing_jit_flags(said))
    report.warnings.push_back(std::move(missing));
  if (std::uint64_t left_out = builder.perf_map_lines_left_out(); left_out != 0)
    report.warnings.push_back(std::to_string(left_out) +
                              " lines of perf maps were not read in all: their JIT frames stay "
                              "unnamed");
  report.inputs = opened.size();
  report.samples = builder.samples();
  report.bad_samples = builder.bad_samples();
  report.chains_not_completed = builder.chains_not_completed();
  report.chains_unverified = builder.chains_unverified();
  auto [start, end] = wall_window(builder, opened.front(), opened.back());
  recorded.result = builder.finish(start, end);
  report.unnamed = count_unnamed(recorded.result);
  report.stacks = recorded.result.samples.size();
  report.locations = recorded.result.locations.size();
  report.functions = recorded.result.functions.size();
  report.mappings = recorded.result.mappings.size();
  recorded.lost = sink.lost();
  for (const perf_data::event_entry& event : opened.front().events)
    recorded.events.push_back(event.name);
  recorded.features = std::move(opened.front().features);
  return recorded;
}

export_report export_recording(const export_options& options) {
  recorded_profile recorded = read_recording(options.inputs, options.salvage, output_path(options),
                                             0, options.inline_frames);
  export_report report = std::move(recorded.report);
  const profile& result = recorded.result;
  std::vector<std::byte> bytes;
  if (options.format == export_format::pprof) {
    bytes = gzip(pprof_message(result));
  } else if (options.format == export_format::otlp) {
    bytes = otlp_request(result, options.resource);  // uncompressed: `curl --data-binary` sends it
  } else {
    std::string text = folded_text(result);
    auto* first = reinterpret_cast<const std::byte*>(text.data());
    bytes.assign(first, first + text.size());
  }
  write_output(report.output, bytes);
  report.output_bytes = bytes.size();
  return report;
}

}  // namespace arec::exporting
