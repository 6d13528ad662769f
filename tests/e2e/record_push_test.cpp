// `arec --push`: the recording is cut into windows that reach a Connect server speaking
// Pyroscope's push.v1.PusherService/Push (tests/stand_in: a stand-in, not a live Pyroscope).
// Every window arrives, with its labels, decodes with npm's pprof-format, holds the samples
// perf script counts in the window's file, and starts where the one before ended; a server
// that is down gets the windows once it is back; without -o nothing stays on disk.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <chrono>
#include <csignal>
#include <filesystem>
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

std::string label_value(const test::received_push& push, const std::string& name) {
  for (const fleet::label& pair : push.labels)
    if (pair.name == name) return pair.value;
  return "<none>";
}

// arec recording every CPU at the push rate (cpu-clock: no PMU here), pushing to `url`.
std::vector<std::string> push_command(const std::string& url, std::vector<std::string> more) {
  std::vector<std::string> command{arec_binary(),     "-e", "cpu-clock",    "--push", url,
                                   "--push-interval", "1s", "--push-label", "env=e2e"};
  command.insert(command.end(), more.begin(), more.end());
  return command;
}

struct window_check {
  long long samples = 0;
  long long start_ns = 0;
  long long end_ns = 0;
};

// Decodes the one profile of `push` with npm's pprof-format and checks its series' labels.
window_check check_window(const test::received_push& push, const std::string& scratch) {
  window_check window;
  EXPECT_EQ(push.path, "POST /push.v1.PusherService/Push HTTP/1.1");
  EXPECT_EQ(label_value(push, "__name__"), "process_cpu");
  EXPECT_EQ(label_value(push, "service_name"), host_name());
  EXPECT_EQ(label_value(push, "env"), "e2e");
  EXPECT_EQ(push.profiles.size(), 1u);
  if (push.profiles.empty()) return window;
  std::ofstream(scratch, std::ios::binary) << push.profiles.front();
  test::command_result decoded = npm_pprof_summary(scratch);
  EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
  if (decoded.exit_code != 0) return window;
  window.samples = json_number(decoded.out, "samples");
  window.start_ns = json_number(decoded.out, "timeNanos");
  window.end_ns = window.start_ns + json_number(decoded.out, "durationNanos");
  EXPECT_GT(window.end_ns, window.start_ns) << decoded.out;
  return window;
}

class RecordPush : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
  test::stand_in_server server_;
  test::temp_dir dir_;
};

TEST_F(RecordPush, EveryWindowArrivesWithItsLabelsAndTheSamplesOfItsFile) {
  const std::string base = dir_.file("push.data");
  test::command_result run = test::run_command(
      push_command(server_.url(), {"-a", "-o", base, "--", test_program("hot_loop"), "2500"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  // With -o the windows are the user's recording: PATH.<time> files, as --switch-output=1s.
  std::vector<std::string> files = rotated_outputs(dir_.path(), "push.data");
  ASSERT_GE(files.size(), 2u) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_EQ(received.size(), files.size()) << run.describe();
  test::command_result attrs = test::run_command({"perf", "evlist", "-v", "-i", files.front()});
  EXPECT_NE(attrs.out.find("sample_freq }: 99,"), std::string::npos) << attrs.out;
  long long previous_end = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    window_check window = check_window(received[i], dir_.file("window.pb.gz"));
    perf_script script = run_perf_script(files[i]);
    ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
    EXPECT_EQ(window.samples, static_cast<long long>(script.samples.size()));
    if (i > 0) {
      EXPECT_EQ(window.start_ns, previous_end) << "windows follow each other without gap";
    }
    previous_end = window.end_ns;
  }
  EXPECT_NE(run.err.find("arec: push: " + std::to_string(files.size()) + " of " +
                         std::to_string(files.size()) + " window(s) delivered to " + server_.url()),
            std::string::npos)
      << run.err;
}

TEST_F(RecordPush, WithoutOutputNothingStaysOnDisk) {
  const std::string tmp = dir_.file("tmp"), spool = dir_.file("spool");
  std::filesystem::create_directory(tmp);
  std::vector<std::string> command{"env", "TMPDIR=" + tmp};
  for (const std::string& word : push_command(
           server_.url(), {"-a", "--push-spool", spool, "--", test_program("hot_loop"), "1200"}))
    command.push_back(word);
  test::command_result run = test::run_command(command);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_GE(received.size(), 1u) << run.describe();
  long long samples = 0;
  for (const test::received_push& push : received)
    samples += check_window(push, dir_.file("window.pb.gz")).samples;
  EXPECT_GT(samples, 0);
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "the windows' files are removed once pushed";
  EXPECT_FALSE(std::filesystem::exists(spool)) << "an empty spool directory arec made is removed";
  EXPECT_EQ(run.err.find("look at it with"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("arec: dump "), std::string::npos) << run.err;
}

// JIT code in a container (own pid and mount namespace, own /tmp): its perf map is captured
// while node runs, and every window names jsHotFunction from it (the export used to read
// /tmp/perf-PID.map on the host, where a container's map never is, and only once).
TEST_F(RecordPush, AContainersJitFramesAreNamedInTheWindows) {
  std::ofstream{dir_.file("hot.js")} << R"(
function jsHotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);
  return s;
}
jsHotFunction(1.5e9);
)";
  // --logfile: node writes no isolate-*-v8.log into the working directory.
  std::string inside = "mount --bind " + dir_.path() +
                       " /mnt && mount -t tmpfs arec-test /tmp && exec node --perf-basic-prof " +
                       "--logfile=/dev/null /mnt/hot.js";
  test::command_result run = test::run_command(push_command(
      server_.url(), {"-g", "--", "unshare", "--pid", "--fork", "--mount", "--mount-proc", "sh",
                      "-c", inside}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_GE(received.size(), 1u) << run.describe();
  long long samples = 0, hot = 0;
  for (const test::received_push& push : received) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(dir_.file("window.pb.gz"), std::ios::binary) << push.profiles.front();
    test::command_result decoded = npm_pprof_summary(dir_.file("window.pb.gz"), "jsHotFunction");
    ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
    samples += json_number(decoded.out, "samples");
    hot += json_number(decoded.out, "leafMatches");
  }
  ASSERT_GT(samples, 0);
  EXPECT_GT(static_cast<double>(hot) / static_cast<double>(samples), 0.5)
      << hot << " of " << samples << " samples named jsHotFunction";
}

// Nothing blocks while the server is away: the windows wait, and arrive once it is back.
TEST_F(RecordPush, AServerThatIsDownGetsEveryWindowWhenItIsBack) {
  const std::string base = dir_.file("down.data");
  server_.stop();
  test::child_process recording = test::child_process::spawn(
      push_command(server_.url(), {"-a", "-o", base, "--push-spool", dir_.file("spool")}));
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
    pushed += check_window(received[i], dir_.file("window.pb.gz")).samples;
    recorded += static_cast<long long>(run_perf_script(files[i]).samples.size());
  }
  EXPECT_EQ(pushed, recorded);
  EXPECT_NE(run.err.find("arec: push: delivering to " + server_.url() + " again"),
            std::string::npos)
      << run.err;
}

// A server that takes the request and never answers: after the first stop signal the flush at
// exit says what it waits for; one more signal (Ctrl-C again, or systemd's SIGTERM) ends it at
// once, and what was not delivered stays in the spool, counted.
void second_signal_ends_the_flush(test::stand_in_server& server, const std::string& spool,
                                  int second) {
  server.hold();
  test::child_process recording =
      test::child_process::spawn(push_command(server.url(), {"-a", "--push-spool", spool}));
  ASSERT_TRUE(server.wait_for_requests(1));  // the first window is in flight, unanswered
  recording.send_signal(SIGINT);
  ASSERT_TRUE(recording.wait_for_stderr(
      "Ctrl-C again stops this and keeps them in " + spool + " for the next run", 60s));
  recording.send_signal(second);
  test::command_result run = recording.wait(60s);
  server.release();
  EXPECT_FALSE(run.timed_out) << run.describe();
  EXPECT_NE(run.err.find("not sent are kept in " + spool +
                         " (last failure: the flush at exit was interrupted)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("arec: push: 0 of "), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::is_empty(spool)) << "the windows wait for the next run";
}

TEST_F(RecordPush, ASecondCtrlCEndsTheFlushAndKeepsTheWindows) {
  second_signal_ends_the_flush(server_, dir_.file("spool"), SIGINT);
}

TEST_F(RecordPush, ASigtermEndsTheFlushAndKeepsTheWindows) {
  second_signal_ends_the_flush(server_, dir_.file("spool"), SIGTERM);
}

}  // namespace
}  // namespace arec::e2e
