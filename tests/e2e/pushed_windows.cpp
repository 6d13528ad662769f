#include "pushed_windows.hpp"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <algorithm>
#include <fstream>

#include "pprof_summary.hpp"
#include "recorder.hpp"

namespace arec::e2e {
namespace {

// `"FILE":"BUILDID"` (pprof summary) or `{"file":"FILE","buildId":"BUILDID"}` (OTLP summary).
std::string build_id_in(const std::string& summary, const std::string& file) {
  for (std::string key : {"\"" + file + "\":\"", "{\"file\":\"" + file + "\",\"buildId\":\""}) {
    auto at = summary.find(key);
    if (at != std::string::npos) return summary.substr(at + key.size(), 40);
  }
  return "";
}

// A pprof window (Pyroscope's push, Parca's WriteRaw): its series labels, and its pprof as npm's
// pprof-format reads it.
window_check check_pprof_window(const std::string& format, const test::received_push& push,
                                const std::string& scratch, const std::string& leaf) {
  window_check window;
  if (format == "parca") {
    EXPECT_EQ(push.path, "POST /api/profiles/writeraw HTTP/1.1");
    EXPECT_EQ(push.headers.at("content-type"), "application/json");
  } else {
    EXPECT_EQ(push.path, "POST /push.v1.PusherService/Push HTTP/1.1");
  }
  EXPECT_EQ(label_value(push, "__name__"), "process_cpu");
  EXPECT_EQ(label_value(push, "service_name"), host_name());
  EXPECT_EQ(label_value(push, "env"), "e2e");
  EXPECT_EQ(push.profiles.size(), 1u);
  if (push.profiles.empty()) return window;
  std::ofstream(scratch, std::ios::binary) << push.profiles.front();
  test::command_result decoded = npm_pprof_summary(scratch, leaf);
  EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  if (decoded.exit_code != 0) return window;
  window.samples = json_number(decoded.out, "samples");
  if (format == "parca") {  // Parca makes a PromQL selector of the types: no '-' in them
    EXPECT_NE(decoded.out.find(R"("types":["cpu_clock_samples/count","cpu_clock/nanoseconds"])"),
              std::string::npos)
        << decoded.out;
    // A series per process: its samples are those of the process its labels name.
    EXPECT_NE(label_value(push, "pid"), "<none>");
    EXPECT_NE(decoded.out.find("\"byComm\":{\"" + label_value(push, "comm") +
                               "\":" + std::to_string(window.samples) + "}"),
              std::string::npos)
        << label_value(push, "comm") << ": " << decoded.out;
  }
  window.hot = json_number(decoded.out, "leafMatches");
  window.summary = decoded.out;
  window.hot_build_id = build_id_in(decoded.out, test_program("hot_loop"));
  window.start_ns = json_number(decoded.out, "timeNanos");
  window.end_ns = window.start_ns + json_number(decoded.out, "durationNanos");
  EXPECT_GT(window.end_ns, window.start_ns) << decoded.out;
  return window;
}

// An OTLP window: how it was sent, and what npm's protobufjs reads in it.
window_check check_otlp_window(const test::received_push& push, const std::string& scratch,
                               const std::string& leaf) {
  window_check window;
  EXPECT_EQ(push.path, "POST /v1development/profiles HTTP/1.1");
  EXPECT_EQ(push.headers.at("content-type"), "application/x-protobuf");
  EXPECT_EQ(push.headers.at("content-encoding"), "gzip");
  EXPECT_EQ(push.headers.count("x-team") ? push.headers.at("x-team") : "", "profiling");
  EXPECT_EQ(push.headers.count("x-note") ? push.headers.at("x-note") : "", "a b");
  EXPECT_EQ(push.profiles.size(), 1u);
  if (push.profiles.empty()) return window;
  std::ofstream(scratch, std::ios::binary) << push.profiles.front();
  test::command_result decoded = npm_otlp_summary(scratch, leaf);
  EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  EXPECT_NE(decoded.out.find("\"problems\":[]"), std::string::npos) << decoded.out;
  window.samples = otlp_total(decoded.out, "samples/count");
  if (window.samples < 0) {  // a window without samples (an idle second): no profile in it
    EXPECT_NE(decoded.out.find("\"profiles\":[]"), std::string::npos) << decoded.out;
    window.samples = 0;
    return window;
  }
  EXPECT_TRUE(json_holds(decoded.out, "service.name", "checkout")) << decoded.out;
  EXPECT_TRUE(json_holds(decoded.out, "host.name", host_name())) << decoded.out;
  EXPECT_TRUE(json_holds(decoded.out, "deployment.environment", "e2e,1")) << decoded.out;
  EXPECT_TRUE(json_holds(decoded.out, "env", "e2e")) << "--push-label: a resource attribute";
  EXPECT_TRUE(json_holds(decoded.out, "periodType", "cpu/nanoseconds")) << decoded.out;
  if (auto at = decoded.out.find("\"leafTotals\":"); at != std::string::npos)
    window.hot = std::max(0LL, json_number(decoded.out.substr(at), "samples/count"));
  window.hot_build_id = build_id_in(decoded.out, test_program("hot_loop"));
  window.start_ns = json_number(decoded.out, "timeUnixNano");
  window.end_ns = window.start_ns + json_number(decoded.out, "durationNano");
  EXPECT_GT(window.end_ns, window.start_ns) << decoded.out;
  return window;
}

}  // namespace

std::string host_name() {
  struct utsname names {};
  return ::uname(&names) == 0 ? names.nodename : "";
}

std::string label_value(const test::received_push& push, const std::string& name) {
  for (const fleet::label& pair : push.labels)
    if (pair.name == name) return pair.value;
  return "<none>";
}

std::vector<std::string> otel_environment(const std::string& endpoint) {
  return {"env", "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
          "OTEL_EXPORTER_OTLP_HEADERS=x-team=profiling,x-note=a%20b", "OTEL_SERVICE_NAME=checkout",
          "OTEL_RESOURCE_ATTRIBUTES=deployment.environment=e2e%2C1"};
}

std::vector<std::string> push_command(const std::string& format, const std::string& url,
                                      std::vector<std::string> more) {
  std::vector<std::string> command;
  if (format == "otlp") command = otel_environment(url);
  command.insert(command.end(), {arec_binary(), "-e", "cpu-clock", "--push-format=" + format,
                                 "--push-interval", "1s", "--push-label", "env=e2e"});
  if (format != "otlp") command.insert(command.end(), {"--push", url});
  command.insert(command.end(), more.begin(), more.end());
  return command;
}

window_check check_window(const std::string& format, const test::received_push& push,
                          const std::string& scratch, const std::string& leaf) {
  return format == "otlp" ? check_otlp_window(push, scratch, leaf)
                          : check_pprof_window(format, push, scratch, leaf);
}

}  // namespace arec::e2e
