#include "export/exporter.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "base/system_error.hpp"
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

export_report export_recording(const export_options& options) {
  std::vector<std::string> inputs = options.inputs;
  if (inputs.empty()) inputs.push_back("perf.data");
  export_report report;
  report.output = output_path(options);
  std::vector<convert::convert_input> opened;
  for (const std::string& input : inputs) {
    opened.push_back(convert::open_convert_input(input, options.salvage));
    if (report.output != "-" && opened.back().header_path == report.output)
      throw base::usage_error("-o " + report.output + ": the output would overwrite the input");
  }
  builder_settings settings = settings_from(opened.front().features);
  settings.inline_frames = options.inline_frames;
  profile_builder builder(opened.front().events, std::move(settings));
  // A rotated recording's later files name more: their build-ids, and their perf maps, which
  // only grew since (the last one holds every function the earlier ones did).
  for (const convert::convert_input& input : opened) {
    builder.add_recorded_build_ids(recorded_build_ids(input.features));
    // The first file's maps came with its settings: decoded and parsed once.
    if (&input != &opened.front())
      builder.add_recorded_perf_maps(recorded_perf_maps(input.features));
    builder.add_recorded_containers(recorded_containers(input.features));
  }
  builder_sink sink(builder);
  for (const convert::convert_input& input : opened) {
    builder.use_events(input.events);
    convert::convert_report read = convert::merge_in_time_order(input, options.salvage, sink);
    report.records += read.records;
    report.notes.insert(report.notes.end(), read.notes.begin(), read.notes.end());
    for (const convert::rejected_records& rejected : read.rejected)
      report.warnings.push_back("dropped " + std::to_string(rejected.count) +
                                " records perf 6.1 cannot read either: " + rejected.problem +
                                " (the first at " + rejected.first + ")");
  }
  for (std::string& warning : builder.take_perf_map_warnings())
    report.warnings.push_back(std::move(warning));
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
  profile result = builder.finish(start, end);
  report.unnamed = count_unnamed(result);
  report.stacks = result.samples.size();
  report.locations = result.locations.size();
  report.functions = result.functions.size();
  report.mappings = result.mappings.size();
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
