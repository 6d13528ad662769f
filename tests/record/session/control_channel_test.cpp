// --control's specs, command framing and protocol, as perf 6.1's evlist.c has them.
#include "record/session/control_channel.hpp"

#include <gtest/gtest.h>

namespace arec::record {
namespace {

TEST(ControlSpec, FdFormTakesPerfsNumbers) {
  std::optional<control_spec> plain = parse_control_spec("fd:5");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->fifo);
  EXPECT_EQ(plain->control_fd, 5);
  EXPECT_EQ(plain->ack_fd, -1);
  std::optional<control_spec> both = parse_control_spec("fd:5,0x7");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->control_fd, 5);
  EXPECT_EQ(both->ack_fd, 7) << "strtoul base 0, as perf reads them";
  // Without a comma perf reads the number and ignores the rest.
  ASSERT_TRUE(parse_control_spec("fd:9x"));
  EXPECT_EQ(parse_control_spec("fd:9x")->control_fd, 9);
}

TEST(ControlSpec, FdFormRejectsWhatPerfRejects) {
  for (const char* bad : {"fd:", "fd:x", "fd:3,", "fd:3,x", "fd:3,4x", "fd:3x,4", "fd:,4"})
    EXPECT_FALSE(parse_control_spec(bad)) << bad;
  for (const char* not_an_fd : {"fd:-1", "fd:99999999999"})
    EXPECT_FALSE(parse_control_spec(not_an_fd)) << not_an_fd;
}

TEST(ControlSpec, FifoFormNamesOneOrTwoPaths) {
  std::optional<control_spec> one = parse_control_spec("fifo:/tmp/ctl");
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->fifo);
  EXPECT_EQ(one->control_path, "/tmp/ctl");
  EXPECT_EQ(one->ack_path, "");
  std::optional<control_spec> two = parse_control_spec("fifo:ctl,ack");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->control_path, "ctl");
  EXPECT_EQ(two->ack_path, "ack");
  std::optional<control_spec> trailing_comma = parse_control_spec("fifo:ctl,");
  ASSERT_TRUE(trailing_comma) << "perf takes a trailing comma as no ack fifo";
  EXPECT_EQ(trailing_comma->ack_path, "");
  for (const char* bad : {"fifo:", "fifo:,ack", "ctl", "", "file:ctl", "FD:3"})
    EXPECT_FALSE(parse_control_spec(bad)) << bad;
}

TEST(ControlCommands, SplitAtNewlinesNulsAnd63Bytes) {
  EXPECT_EQ(split_control_commands("enable\ndisable\n"),
            (std::vector<std::string>{"enable", "disable"}));
  EXPECT_EQ(split_control_commands(std::string_view("ping\0stop", 9)),
            (std::vector<std::string>{"ping", "stop"}))
      << "a NUL ends a command; a last one without an end still counts";
  EXPECT_EQ(split_control_commands("\n\n"), std::vector<std::string>{}) << "empty lines";
  std::string long_line(70, 'x');
  EXPECT_EQ(split_control_commands(long_line + "\n"),
            (std::vector<std::string>{std::string(63, 'x'), std::string(7, 'x')}));
}

TEST(ControlCommands, ParsedByPrefixAsPerfDoes) {
  using v = control_verb;
  EXPECT_EQ(parse_control_command("enable"), (control_command{v::enable}));
  EXPECT_EQ(parse_control_command("disable cpu-clock"), (control_command{v::disable, "cpu-clock"}));
  EXPECT_EQ(parse_control_command("enable "), (control_command{v::enable, ""}));
  EXPECT_EQ(parse_control_command("enabled"), (control_command{v::enable, std::nullopt, true}));
  EXPECT_EQ(parse_control_command("evlist -F"), (control_command{v::evlist, "-F"}));
  EXPECT_EQ(parse_control_command("stopnow"), (control_command{v::stop}))
      << "stop, ping and snapshot read no argument";
  EXPECT_EQ(parse_control_command("ping me"), (control_command{v::ping}));
  EXPECT_EQ(parse_control_command("snapshot"), (control_command{v::snapshot}));
  EXPECT_EQ(parse_control_command("bogus"), (control_command{v::unsupported}));
  EXPECT_EQ(parse_control_command(" enable"), (control_command{v::unsupported}));
}

// Records what the recording was asked to do.
struct fake_recording {
  std::vector<std::string> calls;
  control_actions actions() {
    control_actions a;
    a.sample_all = [this](bool on) { calls.push_back(on ? "all on" : "all off"); };
    a.sample_one = [this](const std::string& name, bool on) {
      calls.push_back(name + (on ? " on" : " off"));
      return name == "cpu-clock";
    };
    a.list_events = [this](char detail) {
      calls.push_back(detail ? std::string("list -") + detail : "list");
    };
    a.stop = [this] { calls.push_back("stop"); };
    a.say = [this](const std::string& line) { calls.push_back("say " + line); };
    return a;
  }
};

std::vector<std::string> run(std::string_view text, bool expected_ack = true) {
  fake_recording recording;
  bool acked = carry_out(parse_control_command(text), recording.actions());
  EXPECT_EQ(acked, expected_ack) << text;
  return recording.calls;
}

TEST(ControlCommands, CarriedOutWithPerfsMessagesAndAcks) {
  using calls = std::vector<std::string>;
  EXPECT_EQ(run("enable"), (calls{"all on", "say arec: events enabled"}));
  EXPECT_EQ(run("disable"), (calls{"all off", "say arec: events disabled"}));
  EXPECT_EQ(run("enable cpu-clock"), (calls{"cpu-clock on", "say arec: event cpu-clock enabled"}));
  EXPECT_EQ(run("disable foo"), (calls{"foo off", "say arec: failed: can't find 'foo' event"}));
  EXPECT_EQ(run("enabled"), (calls{"say arec: failed: wrong command"}));
  EXPECT_EQ(run("evlist"), (calls{"list"}));
  EXPECT_EQ(run("evlist -F"), (calls{"list -F"}));
  EXPECT_EQ(run("evlist -x"), (calls{"say arec: failed: wrong command"}));
  EXPECT_EQ(run("stop"), (calls{"stop"}));
  EXPECT_EQ(run("ping"), calls{});
  EXPECT_EQ(run("snapshot"), calls{}) << "without a snapshot action: acknowledged only, as perf";
  EXPECT_EQ(run("bogus", false), calls{}) << "perf neither answers nor says anything";
}

// --overwrite --switch-output: the snapshot is taken (its file written) before the ack.
TEST(ControlCommands, SnapshotRunsItsActionBeforeTheAck) {
  fake_recording recording;
  control_actions actions = recording.actions();
  actions.snapshot = [&recording] { recording.calls.push_back("snapshot"); };
  EXPECT_TRUE(carry_out(parse_control_command("snapshot"), actions));
  EXPECT_EQ(recording.calls, std::vector<std::string>{"snapshot"});
}

// perf 6.1 says nothing of an unknown command (its -v prints "ctlfd: unsupported"); arec says
// what it did with it, once per distinct command, and stops saying after max_said of them.
TEST(ControlCommands, UnknownCommandIsSaidOnceEach) {
  unknown_commands unknown;
  std::string first = unknown.note("bogus");
  EXPECT_EQ(first,
            "arec: --control: unknown command 'bogus' ignored and not acknowledged, as perf does "
            "(the commands are enable, disable, snapshot, evlist, stop and ping)");
  EXPECT_EQ(unknown.note("bogus"), "") << "said once";
  EXPECT_NE(unknown.note("frob\x01").find("'frob\\x01'"), std::string::npos);
  EXPECT_NE(unknown.note(std::string("a\x1b[2Jb")).find("'a\\x1b[2Jb'"), std::string::npos)
      << "a terminal's escape is shown, not sent";
  for (std::size_t i = 3; i < unknown_commands::max_said; ++i)
    EXPECT_NE(unknown.note("x" + std::to_string(i)), "");
  EXPECT_EQ(unknown.note("one more"),
            "arec: --control: more unknown commands came; they are ignored without a word");
  EXPECT_EQ(unknown.note("and another"), "");
  EXPECT_EQ(unknown.note("bogus"), "");
}

TEST(ControlCommands, AckIsPerfsStringWithItsNul) {
  EXPECT_EQ(control_ack, std::string_view("ack\n\0", 5));
}

}  // namespace
}  // namespace arec::record
