// tracing_data: the TRACING_DATA blob (version 0.6) that lets perf decode the raw fields of
// tracepoint samples, built from the tracefs format files of the recorded tracepoints.
// Layout: docs/perf-data-format.md, "TRACING_DATA".
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arec::host {

// The blob for `tracepoints` (system, event) read from `tracefs_root` (tracefs::find_root()):
// header_page, header_event, the formats of the recorded "ftrace" events, the formats of the
// other recorded events grouped by system (first-appearance order; duplicates written once),
// kallsyms size 0, printk_formats and saved_cmdlines, all in host byte order. The same bytes
// serve as the file-mode feature and the pipe-mode record payload. Throws std::system_error
// naming the file when a tracefs file cannot be read (e.g. an unknown tracepoint).
std::vector<std::byte> tracing_data_payload(
    std::string_view tracefs_root,
    std::span<const std::pair<std::string, std::string>> tracepoints);

}  // namespace arec::host
