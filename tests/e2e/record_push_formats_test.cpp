// `arec --push` in every format: Pyroscope's push API (a Connect call), `--push-format=otlp` (an
// OpenTelemetry profiles request per window, POST /v1development/profiles) and
// `--push-format=parca` (Parca's WriteRaw through its gateway); and `arec export --format=otlp`.
// The server is tests/stand_in (decoding with the pinned protos), not a live Pyroscope,
// Collector or Parca; each payload is decoded a second time by npm's pprof-format or protobufjs.
// Every window arrives in its format, adds up to the samples perf script counts in its file, names
// the hot function and its build-id, carries its attributes where the semantic conventions put
// them, and a server that is down gets every window once it is back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "pushed_windows.hpp"
#include "recorder.hpp"
#include "rotated_outputs.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

std::string gnu_build_id(const std::string& program) {
  test::command_result notes = test::run_command({"readelf", "-n", program});
  auto at = notes.out.find("Build ID: ");
  return at == std::string::npos ? "<none>" : notes.out.substr(at + 10, 40);
}

// The windows as the server got them, in order: Parca's come as a request per process, one
// after the other (one sender thread), merged here; hot_build_id is the first hot part's.
std::vector<window_check> windows_received(const std::string& format,
                                           const std::vector<test::received_push>& received,
                                           const std::string& scratch) {
  std::vector<window_check> windows;
  for (const test::received_push& push : received) {
    window_check part = check_window(format, push, scratch);
    if (format != "parca" || windows.empty() || windows.back().start_ns != part.start_ns) {
      windows.push_back(part);
      continue;
    }
    window_check& window = windows.back();
    window.samples += part.samples;
    window.hot += part.hot;
    if (window.hot_build_id.empty()) window.hot_build_id = part.hot_build_id;
  }
  return windows;
}

// perf script's sample count of each file; Parca gets nothing for a window without samples.
std::vector<long long> samples_recorded(const std::string& format,
                                        const std::vector<std::string>& files) {
  std::vector<long long> counts;
  for (const std::string& file : files) {
    perf_script script = run_perf_script(file);
    EXPECT_EQ(script.run.exit_code, 0) << script.run.describe();
    auto count = static_cast<long long>(sample_records(file));
    if (count > 0 || format != "parca") counts.push_back(count);
  }
  return counts;
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
  test::command_result attrs = test::run_command({"perf", "evlist", "-v", "-i", files.front()});
  EXPECT_NE(attrs.out.find("sample_freq }: 99,"), std::string::npos) << attrs.out;
  std::vector<window_check> windows =
      windows_received(GetParam(), server_.received(), dir_.file("window"));
  std::vector<long long> recorded = samples_recorded(GetParam(), files), pushed;
  const std::string build_id = gnu_build_id(test_program("hot_loop"));
  long long hot = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    pushed.push_back(windows[i].samples);
    hot += windows[i].hot;
    if (windows[i].hot > 0) {
      EXPECT_EQ(windows[i].hot_build_id, build_id) << "hot_loop's mapping";
    }
    if (i > 0 && GetParam() != "parca") {
      EXPECT_EQ(windows[i].start_ns, windows[i - 1].end_ns) << "windows follow each other";
    }
  }
  EXPECT_EQ(pushed, recorded) << "each window holds the samples of its file";
  // 2.5 s of CPU in hot_function at 99 Hz: about 250 samples (fewer on a busy machine).
  EXPECT_GT(hot, 50) << "the hot function arrives";
  std::string endpoint =
      GetParam() == "otlp" ? server_.url() + "/v1development/profiles" : server_.url();
  std::string delivered = std::to_string(server_.received().size());
  std::string summary =
      GetParam() == "parca"
          ? delivered + " of " + delivered + " profile(s) delivered to " + endpoint + " (" +
                std::to_string(files.size()) + " window(s), a profile per process"
          : delivered + " of " + delivered + " window(s) delivered to " + endpoint;
  EXPECT_NE(run.err.find("arec: push: " + summary), std::string::npos) << run.err;
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
  std::vector<window_check> windows =
      windows_received(GetParam(), server_.received(), dir_.file("window"));
  std::vector<long long> recorded = samples_recorded(GetParam(), files), pushed;
  for (const window_check& window : windows) pushed.push_back(window.samples);
  EXPECT_EQ(pushed, recorded) << "every window, each with the samples of its file";
  EXPECT_NE(run.err.find("arec: push: delivering to " + server_.url()), std::string::npos)
      << run.err;
}

// A process that names itself "\xff" (prctl, no privilege) made every window of the host invalid
// proto3, which protobuf's parsers refuse whole (the stand-in's OTLP route, protoc, Go's servers):
// now each window arrives, and protoc reads it.
TEST_P(RecordPushFormat, ACommThatIsNotUtf8LeavesEveryWindowReadable) {
  test::command_result run = test::run_command(
      push_command(GetParam(), server_.url(), {"--", test_program("named_loop"), "\xff", "1200"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_GE(received.size(), 1u) << run.describe();
  const protoc_message message =
      GetParam() == "otlp" ? protoc_message::otlp_request : protoc_message::pprof;
  for (const test::received_push& push : received) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(dir_.file("window"), std::ios::binary) << push.profiles.front();
    test::command_result decoded = protoc_decode(dir_.file("window"), message);
    EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  }
}

// "Record/..." so that the runs CI makes of ^Record (TSan's too) take these.
INSTANTIATE_TEST_SUITE_P(Record, RecordPushFormat, ::testing::Values("pyroscope", "otlp", "parca"),
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
  long long samples = static_cast<long long>(sample_records(data));
  ASSERT_GT(samples, 0);

  // Debian's protoc reads it with the pinned protos...
  test::command_result text = protoc_decode(request, protoc_message::otlp_request);
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("string_table: \"hot_function\""), std::string::npos);
  // ... and npm's protobufjs finds the samples, the hot function, its build-id, the attributes.
  test::command_result decoded = npm_otlp_summary(request, "hot_function");
  ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
  const std::string& summary = decoded.out;
  EXPECT_NE(summary.find("\"problems\":[]"), std::string::npos) << summary;
  EXPECT_EQ(otlp_total(summary, "samples/count"), samples) << summary;
  auto leaf = summary.find("\"leafTotals\":");
  ASSERT_NE(leaf, std::string::npos) << summary;
  EXPECT_GT(json_number(summary.substr(leaf), "samples/count") * 2, samples) << summary;
  EXPECT_NE(
      summary.find(R"({"file":")" + program + R"(","buildId":")" + gnu_build_id(program) + "\"}"),
      std::string::npos)
      << summary;
  EXPECT_TRUE(json_holds(summary, "service.name", "checkout")) << summary;
  EXPECT_TRUE(json_holds(summary, "deployment.environment", "e2e,1")) << summary;
  EXPECT_NE(summary.find(R"("thread.name":{"hot_loop":)"), std::string::npos) << summary;
}

}  // namespace
}  // namespace arec::e2e
