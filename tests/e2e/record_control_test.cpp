// --control: perf record's command channel, driven through a fifo pair and through inherited
// pipes. Every step waits for the recorder's ack (or the workload's "done"): nothing here is
// timed. Each test also runs with AREC_E2E_RECORDER=perf, against perf record 6.1 itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "control_fifo.hpp"
#include "io/unique_fd.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// The recorder's ends of the channel, and the workload's request and done fifos.
struct channel {
  int control = -1;
  int ack = -1;
  int requests = -1;
  int done = -1;

  // Sends `command` and returns what came back on the ack fd (perf_ack when acknowledged).
  std::string send(const std::string& command) {
    write_line(control, command);
    return read_bytes(ack, perf_ack.size());
  }
  // Has the workload spend its CPU time in window N; true once it says it is done.
  bool run_window(char n) {
    write_line(requests, std::string(1, n));
    return read_bytes(done, 5) == "done\n";
  }
};

struct window_samples {
  std::size_t one = 0, two = 0, three = 0;
};

window_samples count_windows(const std::string& data) {
  perf_script script = run_perf_script(data);
  EXPECT_EQ(script.run.exit_code, 0) << script.run.describe();
  window_samples counts;
  for (const script_sample& sample : script.samples) {
    if (sampled_in(sample, "window_one", "spin_on_request")) ++counts.one;
    if (sampled_in(sample, "window_two", "spin_on_request")) ++counts.two;
    if (sampled_in(sample, "window_three", "spin_on_request")) ++counts.three;
  }
  return counts;
}

class RecordControl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    make_fifo(requests_path_);
    make_fifo(done_path_);
    requests_ = open_read_write(requests_path_);
    done_ = open_read_write(done_path_);
  }

  std::vector<std::string> command(std::vector<std::string> options) {
    std::vector<std::string> args{"-e", "cpu-clock", "-o", data_};
    args.insert(args.end(), options.begin(), options.end());
    for (const std::string& arg :
         {std::string("--"), test_program("spin_on_request"), requests_path_, done_path_})
      args.push_back(arg);
    return rec_.command(args);
  }

  std::string enabled_message() const {
    return rec_.is_arec() ? "arec: events enabled" : "Events enabled";
  }
  std::string disabled_message() const {
    return rec_.is_arec() ? "arec: events disabled" : "Events disabled";
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
  std::string data_ = dir_.file("control.data");
  std::string requests_path_ = dir_.file("requests");
  std::string done_path_ = dir_.file("done");
  io::unique_fd requests_, done_;
};

// -D -1 waits for "enable"; "disable" stops sampling again; "stop" ends the recording with a
// complete file while the workload still waits for its next request.
TEST_F(RecordControl, FifoEnableDisableAndStop) {
  const std::string control_path = dir_.file("ctl"), ack_path = dir_.file("ack");
  make_fifo(control_path);
  make_fifo(ack_path);
  // Ours are opened read-write too: neither side waits for the other to open.
  io::unique_fd control = open_read_write(control_path), ack = open_read_write(ack_path);
  test::child_process recording = test::child_process::spawn(
      command({"-D", "-1", "--control", "fifo:" + control_path + "," + ack_path}));
  channel c{control.get(), ack.get(), requests_.get(), done_.get()};

  ASSERT_EQ(c.send("ping"), perf_ack) << "no ack for ping";
  ASSERT_TRUE(c.run_window('1'));
  ASSERT_EQ(c.send("enable"), perf_ack);
  ASSERT_TRUE(c.run_window('2'));
  ASSERT_EQ(c.send("disable"), perf_ack);
  ASSERT_TRUE(c.run_window('3'));
  ASSERT_EQ(c.send("stop"), perf_ack);
  test::command_result run = recording.wait(60s);
  ASSERT_FALSE(run.timed_out) << "stop did not end the recording: " << run.describe();

  window_samples counts = count_windows(data_);
  EXPECT_EQ(counts.one, 0u) << "sampled before enable (-D -1)";
  EXPECT_GT(counts.two, 0u) << "nothing sampled while enabled";
  EXPECT_EQ(counts.three, 0u) << "sampled after disable";
  // Said once at the start (-D -1), once per command.
  EXPECT_NE(run.err.find(disabled_message() + "\n" + enabled_message() + "\n" + disabled_message() +
                         "\n"),
            std::string::npos)
      << run.err;
}

// fd:CTL,ACK with pipes the recorder inherits. With -D MS, perf 6.1 sleeps through the delay
// before it reads any command: a "disable" sent at once is carried out after the delay's
// enable (however late the test sends it, the order is the same).
TEST_F(RecordControl, InheritedFdsCommandsWaitForTheDelay) {
  int control_pipe[2], ack_pipe[2];
  ASSERT_EQ(::pipe2(control_pipe, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(ack_pipe, O_CLOEXEC), 0);
  io::unique_fd control_read(control_pipe[0]), control_write(control_pipe[1]);
  io::unique_fd ack_read(ack_pipe[0]), ack_write(ack_pipe[1]);
  const std::string spec =
      "fd:" + std::to_string(control_read.get()) + "," + std::to_string(ack_write.get());
  test::child_process recording = test::child_process::spawn(
      command({"-D", "200", "--control", spec}), {control_read.get(), ack_write.get()});
  control_read.reset();  // the recorder's ends are its own now
  ack_write.reset();
  channel c{control_write.get(), ack_read.get(), requests_.get(), done_.get()};

  ASSERT_EQ(c.send("disable"), perf_ack) << "no ack for disable";
  ASSERT_TRUE(c.run_window('1'));
  ASSERT_EQ(c.send("enable"), perf_ack);
  ASSERT_TRUE(c.run_window('2'));
  ASSERT_EQ(c.send("stop"), perf_ack);
  test::command_result run = recording.wait(60s);
  ASSERT_FALSE(run.timed_out) << "stop did not end the recording: " << run.describe();

  window_samples counts = count_windows(data_);
  EXPECT_EQ(counts.one, 0u) << "sampled after disable";
  EXPECT_GT(counts.two, 0u) << "nothing sampled after enable";
  // At the start, when the delay passed, then per command.
  EXPECT_NE(run.err.find(disabled_message() + "\n" + enabled_message() + "\n" + disabled_message() +
                         "\n" + enabled_message() + "\n"),
            std::string::npos)
      << run.err;
}

// One event by name; a name no event has and a misspelt command are answered all the same,
// an unknown command is not answered at all (the ping after it gets the next ack).
TEST_F(RecordControl, EventNamesAndCommandsPerfDoesNotKnow) {
  const std::string control_path = dir_.file("ctl"), ack_path = dir_.file("ack");
  make_fifo(control_path);
  make_fifo(ack_path);
  io::unique_fd control = open_read_write(control_path), ack = open_read_write(ack_path);
  test::child_process recording = test::child_process::spawn(
      command({"-D", "-1", "--control", "fifo:" + control_path + "," + ack_path}));
  channel c{control.get(), ack.get(), requests_.get(), done_.get()};

  ASSERT_EQ(c.send("enable cpu-clock"), perf_ack);
  ASSERT_EQ(c.send("enable no-such-event"), perf_ack);
  ASSERT_EQ(c.send("enabled"), perf_ack);
  ASSERT_EQ(c.send("snapshot"), perf_ack) << "perf acknowledges a snapshot it cannot take";
  ASSERT_EQ(c.send("evlist"), perf_ack);
  write_line(control.get(), "bogus");
  ASSERT_EQ(c.send("ping"), perf_ack) << "exactly one ack for bogus + ping";
  ASSERT_TRUE(c.run_window('2'));
  ASSERT_EQ(c.send("stop"), perf_ack);
  test::command_result run = recording.wait(60s);
  ASSERT_FALSE(run.timed_out) << run.describe();

  EXPECT_GT(count_windows(data_).two, 0u) << "enable cpu-clock did not enable it";
  std::string prefix = rec_.is_arec() ? "arec: " : "";
  for (std::string said : {std::string(rec_.is_arec() ? "event" : "Event") + " cpu-clock enabled",
                           std::string("failed: can't find 'no-such-event' event"),
                           std::string("failed: wrong command"), std::string("cpu-clock\n")}) {
    if (said != "cpu-clock\n") said = prefix + said;
    EXPECT_NE(run.err.find(said), std::string::npos) << "expected '" << said << "' in\n" << run.err;
  }
}

// Unknown commands get no ack, as in perf (only the ping after them is answered); arec says
// once per distinct command what it did with it (perf 6.1 says nothing without -v).
TEST_F(RecordControl, UnknownCommandsAreNotAnsweredAndSaidOnceEach) {
  const std::string control_path = dir_.file("ctl"), ack_path = dir_.file("ack");
  make_fifo(control_path);
  make_fifo(ack_path);
  io::unique_fd control = open_read_write(control_path), ack = open_read_write(ack_path);
  test::child_process recording =
      test::child_process::spawn(command({"--control", "fifo:" + control_path + "," + ack_path}));
  channel c{control.get(), ack.get(), requests_.get(), done_.get()};

  for (const char* unknown : {"bogus", "frobnicate", "bogus", "bogus"})
    write_line(control.get(), unknown);
  ASSERT_EQ(c.send("ping"), perf_ack) << "exactly one ack for three unknown commands and a ping";
  ASSERT_EQ(c.send("stop"), perf_ack);
  test::command_result run = recording.wait(60s);
  ASSERT_FALSE(run.timed_out) << run.describe();
  if (!rec_.is_arec()) {
    EXPECT_EQ(run.err.find("bogus"), std::string::npos) << "perf 6.1 says nothing: " << run.err;
    return;
  }
  auto said = [&](const std::string& command) {
    std::string line = "arec: --control: unknown command '" + command +
                       "' ignored and not acknowledged, as perf does";
    std::size_t count = 0;
    for (std::size_t at = run.err.find(line); at != std::string::npos;
         at = run.err.find(line, at + 1))
      ++count;
    return count;
  };
  EXPECT_EQ(said("bogus"), 1u) << run.err;
  EXPECT_EQ(said("frobnicate"), 1u) << run.err;
}

TEST_F(RecordControl, MissingFifoAndBadSpecsAreUsageErrors) {
  const std::string missing = dir_.file("missing");
  test::command_result run = test::run_command(command({"--control", "fifo:" + missing}), 60s);
  EXPECT_EQ(run.exit_code, rec_.usage_error_status()) << run.describe();
  EXPECT_NE(run.err.find("Failed to open '" + missing + "'"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(data_)) << "nothing recorded";
  for (const char* bad : {"bogus", "fd:", "fd:3,x", "fifo:", "fifo:,ack"}) {
    test::command_result refused = test::run_command(command({"--control", bad}), 60s);
    EXPECT_EQ(refused.exit_code, rec_.usage_error_status()) << bad << ": " << refused.describe();
    if (rec_.is_arec()) {
      EXPECT_NE(refused.err.find(std::string("arec: error: --control ") + bad +
                                 ": expected fd:CTL[,ACK] or fifo:CTL[,ACK]"),
                std::string::npos)
          << refused.err;
    }
  }
}

}  // namespace
}  // namespace arec::e2e
