// pushed_windows: what the --push tests share: the arec command line of a push in each format,
// and each format's window read back from the stand-in server (how it was sent, its labels or
// resource attributes, and its samples as npm's pprof-format or protobufjs decodes them).
#pragma once

#include <string>
#include <vector>

#include "stand_in/stand_in_server.hpp"

namespace arec::e2e {

std::string host_name();

// The value of label `name` in a received series, or "<none>".
std::string label_value(const test::received_push& push, const std::string& name);

// The OpenTelemetry variables a fleet sets for every exporter of a host, OTLP going to
// `endpoint`, as `env` words to put before a command.
std::vector<std::string> otel_environment(const std::string& endpoint);

// arec recording at the push rate (cpu-clock: no PMU here) in `format` (pyroscope, otlp,
// parca) to `url`, with --push-label env=e2e, 1 s windows and `more`. OTLP goes to the endpoint
// the OpenTelemetry variables name, as a host's agent finds it.
std::vector<std::string> push_command(const std::string& format, const std::string& url,
                                      std::vector<std::string> more);

struct window_check {
  long long samples = 0;
  long long start_ns = 0;
  long long end_ns = 0;
  long long hot = 0;         // samples whose leaf function's name holds the `leaf` asked for
  std::string hot_build_id;  // the build-id the window gives hot_loop's mapping, if mapped
  std::string summary;       // pprof: the decoder's JSON (leafCallers: the `hot` by caller)
};

// Checks how window `push` was sent in `format` and what it holds, decoding it (written to
// `scratch`) with npm's decoders; `leaf` counts the samples of a leaf function.
window_check check_window(const std::string& format, const test::received_push& push,
                          const std::string& scratch, const std::string& leaf = "hot_function");

}  // namespace arec::e2e
