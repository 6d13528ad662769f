// The other fleet stores: `arec --push-format=otlp` (an OpenTelemetry profiles request per window,
// POST /v1development/profiles), `--push-format=parca` (Parca's WriteRaw through its gateway) and
// `arec export --format=otlp`. The server is tests/stand_in (decoding with the pinned protos), not
// a live Collector, Pyroscope or Parca; each payload is decoded a second time by npm's protobufjs
// or pprof-format. Every window arrives in its format, adds up to the samples perf script counts
// in its file, names the hot function and its build-id, carries its attributes where the
// semantic conventions put them, and a server that is down gets every window once it is back.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <vector>

#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "rotated_outputs.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

std::string host_name() {
  struct utsname names {};
  return ::uname(&names) == 0 ? names.nodename : "";
}

std::string gnu_build_id(const std::string& program) {
  test::command_result notes = test::run_command({"readelf", "-n", program});
  auto at = notes.out.find("Build ID: ");
  return at == std::string::npos ? "<none>" : notes.out.substr(at + 10, 40);
}

// The value of "TYPE" in the summary's "totals" object, or -1.
long long total_of(const std::string& summary, const std::string& type) {
  auto at = summary.find("\"totals\":");
  if (at == std::string::npos) return -1;
  return json_number(summary.substr(at, summary.find('}', at) - at), type);
}

// `"KEY":"VALUE"` somewhere in the summary's JSON (an attribute, a mapping's build-id...).
bool holds(const std::string& summary, const std::string& key, const std::string& value) {
  return summary.find("\"" + key + "\":\"" + value + "\"") != std::string::npos;
}

std::string label_value(const test::received_push& push, const std::string& name) {
  for (const fleet::label& pair : push.labels)
    if (pair.name == name) return pair.value;
  return "<none>";
}

// The OpenTelemetry variables a fleet sets for every exporter of a host.
std::vector<std::string> otel_environment(const std::string& endpoint) {
  return {"env", "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
          "OTEL_EXPORTER_OTLP_HEADERS=x-team=profiling,x-note=a%20b", "OTEL_SERVICE_NAME=checkout",
          "OTEL_RESOURCE_ATTRIBUTES=deployment.environment=e2e%2C1"};
}

// arec recording every CPU at the push rate (cpu-clock: no PMU here) in `format`, to `url`
// (OTLP: to the endpoint the OpenTelemetry variables name, as a host's agent finds it).
std::vector<std::string> push_command(const std::string& format, const std::string& url,
                                      std::vector<std::string> more) {
  std::vector<std::string> command;
  if (format == "otlp") command = otel_environment(url);
  for (std::string word : {arec_binary(), std::string("-e"), std::string("cpu-clock"),
                           "--push-format=" + format, std::string("--push-interval"),
                           std::string("1s"), std::string("--push-label"), std::string("env=e2e")})
    command.push_back(word);
  if (format != "otlp") command.insert(command.end(), {"--push", url});
  command.insert(command.end(), more.begin(), more.end());
  return command;
}

struct window_check {
  long long samples = 0;
  long long start_ns = 0;
  long long end_ns = 0;
  long long hot = 0;         // samples whose leaf is hot_function
  std::string hot_build_id;  // the build-id the window gives hot_loop's mapping, if mapped
};

// `"FILE":"BUILDID"` (pprof summary) or `{"file":"FILE","buildId":"BUILDID"}` (OTLP summary).
std::string build_id_in(const std::string& summary, const std::string& file) {
  for (std::string key : {"\"" + file + "\":\"", "{\"file\":\"" + file + "\",\"buildId\":\""}) {
    auto at = summary.find(key);
    if (at != std::string::npos) return summary.substr(at + key.size(), 40);
  }
  return "";
}

// An OTLP window: how it was sent, and what npm's protobufjs reads in it.
window_check check_otlp_window(const test::received_push& push, const std::string& scratch) {
  window_check window;
  EXPECT_EQ(push.path, "POST /v1development/profiles HTTP/1.1");
  EXPECT_EQ(push.headers.at("content-type"), "application/x-protobuf");
  EXPECT_EQ(push.headers.at("content-encoding"), "gzip");
  EXPECT_EQ(push.headers.count("x-team") ? push.headers.at("x-team") : "", "profiling");
  EXPECT_EQ(push.headers.count("x-note") ? push.headers.at("x-note") : "", "a b");
  EXPECT_EQ(push.profiles.size(), 1u);
  if (push.profiles.empty()) return window;
  std::ofstream(scratch, std::ios::binary) << push.profiles.front();
  test::command_result decoded = npm_otlp_summary(scratch, "hot_function");
  EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  EXPECT_NE(decoded.out.find("\"problems\":[]"), std::string::npos) << decoded.out;
  window.samples = total_of(decoded.out, "samples/count");
  if (window.samples < 0) {  // a window without samples (an idle second): no profile in it
    EXPECT_NE(decoded.out.find("\"profiles\":[]"), std::string::npos) << decoded.out;
    window.samples = 0;
    return window;
  }
  EXPECT_TRUE(holds(decoded.out, "service.name", "checkout")) << decoded.out;
  EXPECT_TRUE(holds(decoded.out, "host.name", host_name())) << decoded.out;
  EXPECT_TRUE(holds(decoded.out, "deployment.environment", "e2e,1")) << decoded.out;
  EXPECT_TRUE(holds(decoded.out, "env", "e2e")) << "--push-label: a resource attribute";
  EXPECT_TRUE(holds(decoded.out, "periodType", "cpu/nanoseconds")) << decoded.out;
  if (auto leaf = decoded.out.find("\"leafTotals\":"); leaf != std::string::npos)
    window.hot = std::max(0LL, json_number(decoded.out.substr(leaf), "samples/count"));
  window.hot_build_id = build_id_in(decoded.out, test_program("hot_loop"));
  window.start_ns = json_number(decoded.out, "timeUnixNano");
  window.end_ns = window.start_ns + json_number(decoded.out, "durationNano");
  EXPECT_GT(window.end_ns, window.start_ns) << decoded.out;
  return window;
}

// A Parca window: WriteRaw's labels, and its pprof as npm's pprof-format reads it.
window_check check_parca_window(const test::received_push& push, const std::string& scratch) {
  window_check window;
  EXPECT_EQ(push.path, "POST /api/profiles/writeraw HTTP/1.1");
  EXPECT_EQ(push.headers.at("content-type"), "application/json");
  EXPECT_EQ(label_value(push, "__name__"), "process_cpu");
  EXPECT_EQ(label_value(push, "service_name"), host_name());
  EXPECT_EQ(label_value(push, "env"), "e2e");
  EXPECT_EQ(push.profiles.size(), 1u);
  if (push.profiles.empty()) return window;
  std::ofstream(scratch, std::ios::binary) << push.profiles.front();
  test::command_result decoded = npm_pprof_summary(scratch, "hot_function");
  EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  // Parca makes a PromQL selector of the types: no '-' in them.
  EXPECT_NE(decoded.out.find(R"("types":["cpu_clock_samples/count","cpu_clock/nanoseconds"])"),
            std::string::npos)
      << decoded.out;
  window.samples = json_number(decoded.out, "samples");
  window.hot = json_number(decoded.out, "leafMatches");
  window.hot_build_id = build_id_in(decoded.out, test_program("hot_loop"));
  window.start_ns = json_number(decoded.out, "timeNanos");
  window.end_ns = window.start_ns + json_number(decoded.out, "durationNanos");
  return window;
}

window_check check_window(const std::string& format, const test::received_push& push,
                          const std::string& scratch) {
  return format == "otlp" ? check_otlp_window(push, scratch) : check_parca_window(push, scratch);
}

class RecordPushFormat : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
  test::stand_in_server server_;
  test::temp_dir dir_;
};

TEST_P(RecordPushFormat, EveryWindowArrivesInItsFormatWithTheSamplesOfItsFile) {
  const std::string base = dir_.file("push.data");
  test::command_result run = test::run_command(push_command(
      GetParam(), server_.url(), {"-a", "-o", base, "--", test_program("hot_loop"), "2500"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), "push.data");
  ASSERT_GE(files.size(), 2u) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_EQ(received.size(), files.size()) << run.describe();
  long long previous_end = 0, hot = 0;
  const std::string build_id = gnu_build_id(test_program("hot_loop"));
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    window_check window = check_window(GetParam(), received[i], dir_.file("window"));
    perf_script script = run_perf_script(files[i]);
    ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
    EXPECT_EQ(window.samples, static_cast<long long>(script.samples.size()));
    if (i > 0) EXPECT_EQ(window.start_ns, previous_end) << "windows follow each other";
    previous_end = window.end_ns;
    hot += window.hot;
    if (window.hot > 0) EXPECT_EQ(window.hot_build_id, build_id) << "hot_loop's mapping";
  }
  // 2.5 s of CPU in hot_function at 99 Hz: about 250 samples (fewer on a busy machine).
  EXPECT_GT(hot, 50) << "the hot function arrives";
  std::string endpoint =
      GetParam() == "otlp" ? server_.url() + "/v1development/profiles" : server_.url();
  EXPECT_NE(run.err.find("arec: push: " + std::to_string(files.size()) + " of " +
                         std::to_string(files.size()) + " window(s) delivered to " + endpoint),
            std::string::npos)
      << run.err;
}

TEST_P(RecordPushFormat, AServerThatIsDownGetsEveryWindowWhenItIsBack) {
  const std::string base = dir_.file("down.data");
  server_.stop();
  test::child_process recording = test::child_process::spawn(push_command(
      GetParam(), server_.url(), {"-a", "-o", base, "--push-spool", dir_.file("spool")}));
  ASSERT_TRUE(recording.wait_for_stderr("arec: push: cannot deliver to " + server_.url(), 60s));
  server_.restart();
  ASSERT_TRUE(server_.wait_for_received(2));
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), "down.data");
  std::vector<test::received_push> received = server_.received();
  ASSERT_EQ(received.size(), files.size()) << run.describe();
  long long pushed = 0, recorded = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    pushed += check_window(GetParam(), received[i], dir_.file("window")).samples;
    recorded += static_cast<long long>(run_perf_script(files[i]).samples.size());
  }
  EXPECT_EQ(pushed, recorded);
  EXPECT_NE(run.err.find(" again"), std::string::npos) << run.err;
}

// "Record/..." so that the runs CI makes of ^Record (TSan's too) take these.
INSTANTIATE_TEST_SUITE_P(Record, RecordPushFormat, ::testing::Values("otlp", "parca"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(ExportOtlp, TheRequestHoldsEverySampleWithTheHotFunctionItsBuildIdAndAttributes) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("hot.data"), request = data + ".otlp.pb";
  const std::string program = test_program("hot_loop");
  test::command_result recorded = test::run_command(
      {arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--", program, "600"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::vector<std::string> command = otel_environment("http://unused:4318");
  command.insert(command.end(), {arec_binary(), "export", "--format=otlp", "-i", data});
  test::command_result exported = test::run_command(command);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_NE(exported.err.find("to " + request), std::string::npos) << "INPUT.otlp.pb by default";
  long long samples = static_cast<long long>(run_perf_script(data).samples.size());
  ASSERT_GT(samples, 0);

  // Debian's protoc reads it with the pinned protos...
  const std::string root = std::string(AREC_TEST_SOURCE_DIR) + "/..";
  test::command_result text =
      test::run_command({"sh", "-c",
                         "protoc -I '" + root +
                             "' --decode=opentelemetry.proto.collector.profiles.v1development."
                             "ExportProfilesServiceRequest export/otlp/profiles_service.proto < '" +
                             request + "'"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("string_table: \"hot_function\""), std::string::npos);
  // ... and npm's protobufjs finds the samples, the hot function, its build-id, the attributes.
  test::command_result decoded = npm_otlp_summary(request, "hot_function");
  ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
  const std::string& summary = decoded.out;
  EXPECT_NE(summary.find("\"problems\":[]"), std::string::npos) << summary;
  EXPECT_EQ(total_of(summary, "samples/count"), samples) << summary;
  auto leaf = summary.find("\"leafTotals\":");
  ASSERT_NE(leaf, std::string::npos) << summary;
  EXPECT_GT(json_number(summary.substr(leaf), "samples/count") * 2, samples) << summary;
  EXPECT_NE(
      summary.find(R"({"file":")" + program + R"(","buildId":")" + gnu_build_id(program) + "\"}"),
      std::string::npos)
      << summary;
  EXPECT_TRUE(holds(summary, "service.name", "checkout")) << summary;
  EXPECT_TRUE(holds(summary, "deployment.environment", "e2e,1")) << summary;
  EXPECT_NE(summary.find(R"("thread.name":{"hot_loop":)"), std::string::npos) << summary;
}

}  // namespace
}  // namespace arec::e2e
