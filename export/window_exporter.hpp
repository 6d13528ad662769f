// window_exporter: the live side of export. Each finished output of a rotating recording (one
// window of `arec --push`) becomes one gzipped pprof, or one gzipped OTLP profiles request. One
// profile_builder serves every window, so symbol tables are read once per object for the whole
// recording, not once per window.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "export/otlp_writer.hpp"
#include "export/profile_builder.hpp"
#include "export/profile_split.hpp"

namespace arec::exporting {

// How a window's profiles are encoded: pprof, or OTLP requests saying `resource`.
struct window_encoding {
  bool otlp = false;
  // pprof for Parca, which keeps series labels only: use_metric_safe_type_names, and a profile
  // per process (group_by_process) whose series labels name it.
  bool metric_safe_type_names = false;
  bool series_per_process = false;
  otlp_resource resource;
};

using series_labels = std::vector<std::pair<std::string, std::string>>;

struct window_profile {
  std::vector<std::byte> gzipped;  // the encoded profile, gzipped
  std::uint64_t uncompressed_size = 0;
  series_labels labels;  // the part's own series labels (series_per_process), else none
};

// One window, in as many profiles as `profile_limits` (and series_per_process) ask for.
struct window_export {
  std::vector<window_profile> parts;
  std::uint64_t samples = 0;      // perf samples read
  std::uint64_t cut_stacks = 0;   // stacks cut to the limit's depth
  std::uint64_t chains_not_completed = 0;  // frame-pointer chains left as recorded (arec -g)
  bool split_for_limits = false;  // parts were made to fit the limits
  // Perf maps refused or left out in this window (export/perf_map: bounded), and the flag a
  // JIT runtime whose frames stayed unnamed missed (once a recording), one line each.
  std::vector<std::string> warnings;
};

class window_exporter {
 public:
  // `inline_frames` false: a location shows its function alone, not what was inlined into it.
  explicit window_exporter(bool inline_frames = true) : inline_frames_(inline_frames) {}

  // Reads `path` (a file or a --threads directory; an unfinished one is salvaged) and returns
  // its samples as the profiles of the window [start_ns, end_ns), within `limits`. Throws as
  // export_recording does; a failed window leaves the next ones unaffected.
  window_export export_window(const std::string& path, std::int64_t start_ns, std::int64_t end_ns,
                              const profile_limits& limits = {},
                              const window_encoding& encoding = {});

 private:
  void add_new_perf_maps(const perf_data::feature_set& features);

  bool inline_frames_;
  std::optional<profile_builder> builder_;  // from the first window on
  // The last window's perf-map feature, then its jitdump feature: a window that brings the same
  // bytes (no code compiled since) is not decoded and parsed again.
  std::vector<std::byte> last_perf_maps_;
  std::vector<pid_t> last_pids_;  // the processes it lists
  std::vector<jit_runtime> flags_said_;  // runtimes whose missing flag a window said
};

}  // namespace arec::exporting
