// `arec --push` to a server speaking Pyroscope's push.v1.PusherService/Push (tests/stand_in: a
// stand-in, not a live Pyroscope), beyond what every format does (record_push_formats_test):
// without -o nothing stays on disk, a container's JIT frames are named, and a second stop
// signal ends the flush at exit and keeps the windows.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hot_javascript.hpp"
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

// arec pushing to `url` in Pyroscope's format.
std::vector<std::string> push_command(const std::string& url, std::vector<std::string> more) {
  return e2e::push_command("pyroscope", url, std::move(more));
}

class RecordPush : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
  void expect_windows_name_a_containers_jit_code(const std::string& flags,
                                                 const std::string& script);
  test::stand_in_server server_;
  test::temp_dir dir_;
};

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
    samples += check_window("pyroscope", push, dir_.file("window.pb.gz")).samples;
  EXPECT_GT(samples, 0);
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "the windows' files are removed once pushed";
  EXPECT_FALSE(std::filesystem::exists(spool)) << "an empty spool directory arec made is removed";
  EXPECT_EQ(run.err.find("look at it with"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("arec: dump "), std::string::npos) << run.err;
}

// JIT code in a container (own pid and mount namespace, own /tmp): its perf map or jitdump
// (node `flags`, running `script`) is captured while node runs, and every window names
// jsHotFunction from it (the export used to read /tmp/perf-PID.map on the host, where a
// container's map never is, and only once).
void RecordPush::expect_windows_name_a_containers_jit_code(const std::string& flags,
                                                           const std::string& script) {
  std::ofstream{dir_.file("hot.js")} << R"(
function jsHotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);
  return s;
}
)" << script << "\njsHotFunction(1.5e9);\n";
  // --logfile: node writes no isolate-*-v8.log into the working directory; cd /tmp: a dump
  // goes to its own /tmp.
  std::string inside = "mount --bind " + dir_.path() +
                       " /mnt && mount -t tmpfs arec-test /tmp && cd /tmp && exec node " + flags +
                       " --logfile=/dev/null /mnt/hot.js";
  test::command_result run = test::run_command(push_command(
      server_.url(),
      {"-g", "--", "unshare", "--pid", "--fork", "--mount", "--mount-proc", "sh", "-c", inside}));
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

TEST_F(RecordPush, AContainersJitFramesAreNamedInTheWindows) {
  expect_windows_name_a_containers_jit_code("--perf-basic-prof", "");
}

// The same from a jitdump: the script pushes the hot function's record out of node's dump
// buffer before its long call (jitdump_flushing_prelude), so every window can name it.
TEST_F(RecordPush, AContainersJitFramesAreNamedInTheWindowsFromItsJitdump) {
  expect_windows_name_a_containers_jit_code("--perf-prof --allow-natives-syntax",
                                            jitdump_flushing_prelude);
}

// A node run without a perf-map flag: its JIT frames stay unnamed in every window, and the push
// says once, not once a window, which flag would have named them (as arec export does).
TEST_F(RecordPush, APlainNodeIsToldTheMissingFlagOnce) {
  // 2.5 s of wall-clock time whatever the machine's speed: three windows or more.
  std::ofstream{dir_.file("hot.js")} << R"(
function jsHotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);
  return s;
}
const end = Date.now() + 2500;
while (Date.now() < end) jsHotFunction(1e6);
)";
  test::command_result run = test::run_command(push_command(
      server_.url(), {"--", "node", "--logfile=/dev/null", dir_.file("hot.js")}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  ASSERT_GE(server_.received().size(), 2u) << "more windows than one: " << run.describe();
  const std::string line = "stay unnamed: it wrote no perf map or jitdump. Run node with "
                           "--perf-basic-prof";
  std::size_t told = 0;
  for (std::size_t at = run.err.find(line); at != std::string::npos; at = run.err.find(line, at + 1))
    ++told;
  EXPECT_EQ(told, 1u) << run.err;
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

// Team A's run could not deliver (its server held every request, then two Ctrl-C ended the
// flush): its windows stay in the shared spool. Team B's run, to another server with another
// tenant, used to send them as its own; now B's server gets B's windows only, the run says what it
// left and where, and A's windows are still there for A.
TEST_F(RecordPush, WindowsSpooledForOneTenantNeverReachAnother) {
  const std::string spool = dir_.file("spool");
  server_.hold();
  test::child_process team_a = test::child_process::spawn(
      push_command(server_.url(), {"-a", "--push-tenant", "team-a", "--push-spool", spool}));
  ASSERT_TRUE(server_.wait_for_requests(1));
  team_a.send_signal(SIGINT);
  ASSERT_TRUE(team_a.wait_for_stderr("Ctrl-C again stops this", 60s));
  team_a.send_signal(SIGINT);
  test::command_result a = team_a.wait(60s);
  server_.release();
  ASSERT_NE(a.err.find("window(s) not sent are kept in " + spool), std::string::npos) << a.err;
  const std::size_t left_by_a = std::distance(std::filesystem::directory_iterator(spool),
                                              std::filesystem::directory_iterator());
  ASSERT_GT(left_by_a, 0u);

  test::stand_in_server team_b_server;
  test::command_result b = test::run_command(push_command(
      team_b_server.url(),
      {"--push-tenant", "team-b", "--push-spool", spool, "--", test_program("hot_loop"), "1200"}));
  ASSERT_EQ(b.exit_code, 0) << b.describe();
  std::vector<test::received_push> received = team_b_server.received();
  ASSERT_GE(received.size(), 1u) << b.describe();
  for (const test::received_push& push : received)
    EXPECT_EQ(push.headers.at("x-scope-orgid"), "team-b");
  EXPECT_NE(b.err.find("arec: push: " + std::to_string(left_by_a) + " window(s) in " + spool +
                       " wait for another destination"),
            std::string::npos)
      << b.err;
  EXPECT_NE(b.err.find("push: left " + std::to_string(left_by_a) +
                       " window(s) of other destinations in " + spool + " unsent"),
            std::string::npos)
      << b.err;
  EXPECT_EQ(b.err.find("by an earlier run are sent first"), std::string::npos) << b.err;
  EXPECT_EQ(static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(spool),
                                                   std::filesystem::directory_iterator())),
            left_by_a)
      << "team A's windows wait for team A";
  long long b_samples = 0;
  for (const test::received_push& push : received)
    b_samples += check_window("pyroscope", push, dir_.file("window.pb.gz")).samples;
  EXPECT_GT(b_samples, 0);
}

// Every local user reads /proc/PID/cmdline: a password in --push is refused before anything
// runs, saying how to give it; from --push-password-file it is sent as basic auth.
TEST_F(RecordPush, APasswordComesFromAFileNeverFromTheCommandLine) {
  const std::string host = server_.url().substr(std::string("http://").size());
  test::command_result refused = test::run_command(push_command(
      "http://ann:s3cret@" + host, {"--push-spool", dir_.file("spool"), "--", "true"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.describe();
  EXPECT_NE(refused.err.find("--push: the URL holds a password"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--push-password-file FILE"), std::string::npos) << refused.err;
  EXPECT_EQ(server_.requests(), 0u);

  const std::string password = dir_.file("password");
  std::ofstream(password) << "s3cret\n";
  std::filesystem::permissions(
      password, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  test::command_result run =
      test::run_command(push_command("http://ann@" + host, {"--push-password-file", password, "--",
                                                            test_program("hot_loop"), "1200"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<test::received_push> received = server_.received();
  ASSERT_GE(received.size(), 1u) << run.describe();
  EXPECT_EQ(received.front().headers.at("authorization"), "Basic YW5uOnMzY3JldA==");  // ann:s3cret
}

// A URL no request can reach passed the check at start, and was then retried forever.
TEST_F(RecordPush, AUrlNoServerCanHaveIsRefusedAtStart) {
  for (const std::string url : {"http://[zz]/", "http://127.0.0.1:99999"}) {
    test::command_result run = test::run_command(push_command(url, {"--", "true"}));
    EXPECT_EQ(run.exit_code, 2) << url << ": " << run.describe();
    EXPECT_NE(run.err.find("--push: expected a URL whose host and port can be reached"),
              std::string::npos)
        << run.err;
  }
}

}  // namespace
}  // namespace arec::e2e
