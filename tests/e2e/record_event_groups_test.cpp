// Event groups ({a,b}, {a,b}:u, --group, :S) and perf's term syntax (cpu-clock/period=N/,
// software/config=N/...): each command line is recorded by arec and by perf record here and
// what perf reads back (perf evlist -v, perf evlist -g, perf report --group) is compared.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "side_by_side.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// arec records side-band on its own tracking event ("dummy:u"); perf on the first event, or on
// a "dummy:HG" system-wide. Neither is one of the events asked for.
bool is_tracking_line(const std::string& line) {
  return line.rfind("dummy:", 0) == 0;
}

// Per event that perf evlist -v lists (tracking events aside), the attr fields that events,
// groups and terms decide. Left out: the side-band flags perf puts on its first event, the
// sample_type bits before CPU (arec keeps one layout: ID and CPU always, no ADDR/DATA_SRC) and
// PERIOD (arec records every sample's period). perf gives every event read_format ID|LOST;
// arec sets it where a group needs it, so a missing read_format reads as ID|LOST.
std::map<std::string, std::set<std::string>> event_fields(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  static const std::regex field(
      R"(\b(type|config|disabled|inherit|exclude_[a-z_]+|freq|enable_on_exec|pinned|exclusive|)"
      R"(precise_ip|sample_max_stack|sample_stack_user|sample_regs_user|read_format): [^,]+|)"
      R"(\{ sample_period, sample_freq \}: \d+)");
  static const std::regex later_bits(R"(\b(CALLCHAIN|READ|REGS_USER|STACK_USER)\b)");
  std::map<std::string, std::set<std::string>> events;
  for (const std::string& line : lines_of(evlist.out)) {
    // perf's tips ("# Tip: ...") follow the events.
    if (is_tracking_line(line) || line.empty() || line[0] == '#') continue;
    std::string name = line.substr(0, line.find(": type:"));
    std::set<std::string>& fields = events[name];
    for (std::sregex_iterator it(line.begin(), line.end(), field), end; it != end; ++it)
      fields.insert(it->str());
    std::string sample_type = line.substr(line.find("sample_type:"));
    sample_type = sample_type.substr(0, sample_type.find(','));
    for (std::sregex_iterator it(sample_type.begin(), sample_type.end(), later_bits), end;
         it != end; ++it)
      fields.insert("sample_type has " + it->str());
    if (line.find("read_format:") == std::string::npos) fields.insert("read_format: ID|LOST");
    // arec's frame-pointer chains carry a small user-stack copy without REGS_USER, to be
    // completed from CFI (docs/perf-options.md): not a field terms decide.
    if (!fields.contains("sample_type has REGS_USER") && fields.erase("sample_type has STACK_USER"))
      std::erase_if(fields, [](const std::string& f) { return f.starts_with("sample_stack_user"); });
  }
  return events;
}

// perf evlist -g: one line per group or lone event.
std::vector<std::string> group_lines(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-g", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(evlist.out))
    if (!is_tracking_line(line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> matching_lines(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(text))
    if (std::regex_search(line, pattern)) lines.push_back(line);
  return lines;
}

class RecordEventGroups : public side_by_side_test {
 protected:
  // Records `args` with both and compares every event's decided fields and the groups.
  void expect_same_events(const std::vector<std::string>& args) {
    record(rec_, args, ours_);
    record(perf_, args, theirs_);
    EXPECT_EQ(event_fields(ours_), event_fields(theirs_));
    EXPECT_EQ(group_lines(ours_), group_lines(theirs_));
  }
};

TEST_F(RecordEventGroups, GroupAttrsAreSetAsPerfSetsThem) {
  const std::vector<std::vector<std::string>> cases{
      {"-e", "{cpu-clock,task-clock}"},
      {"-e", "{cpu-clock,task-clock}:u"},
      {"-e", "{cpu-clock:k,task-clock}:u"},
      {"-e", "{cpu-clock:I,task-clock}:k"},
      {"-e", "{cpu-clock,task-clock},page-faults,{cs,faults}"},
      {"-e", "{cpu-clock,task-clock}", "-e", "page-faults"},
      {"--group", "-e", "cpu-clock,task-clock", "-e", "page-faults"},
      {"--group", "-e", "{cpu-clock,task-clock},page-faults"},
      {"-e", "foo{cpu-clock,task-clock}"},
      {"-e", "{cpu-clock}"},
      {"-e", "{cpu-clock,task-clock}", "-F", "99"},
      {"-e", "{cpu-clock,task-clock}", "-c", "1000000", "-g"},
      {"-e", "{cpu-clock,task-clock}:S"},
      {"-e", "{cpu-clock,task-clock}:uS"},
      {"-e", "{cycles,task-clock}"},  // cycles falls back to cpu-clock without a hardware PMU
      {"-e", "{task-clock,cycles}"},
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(::testing::PrintToString(args));
    expect_same_events(args);
  }
}

TEST_F(RecordEventGroups, GroupsShowInPerfsHeaderAndGroupReport) {
  for (const char* event : {"{cpu-clock,task-clock}", "{cpu-clock,task-clock}:S"}) {
    SCOPED_TRACE(event);
    const std::vector<std::string> workload{test_program("hot_loop"), "200"};
    record(rec_, {"-e", event}, ours_, workload);
    record(perf_, {"-e", event}, theirs_, workload);
    auto header = [](const std::string& data) {
      test::command_result run = test::run_command({"perf", "report", "--header-only", "-i", data});
      EXPECT_EQ(run.exit_code, 0) << run.describe();
      return matching_lines(run.out, std::regex("^# group: "));
    };
    EXPECT_EQ(header(ours_), std::vector<std::string>{"# group: {cpu-clock,task-clock}"});
    EXPECT_EQ(header(ours_), header(theirs_));
    test::command_result report =
        test::run_command({"perf", "report", "--group", "--stdio", "-i", ours_}, 60s);
    ASSERT_EQ(report.exit_code, 0) << report.describe();
    EXPECT_EQ(report.err, "");
    EXPECT_EQ(matching_lines(report.out, std::regex(" of events? '")).size(), 1u) << report.out;
    EXPECT_NE(report.out.find(" of events 'anon group { cpu-clock, task-clock }'"),
              std::string::npos)
        << report.out;
    // One overhead column per member on the hot function's line.
    EXPECT_EQ(matching_lines(report.out,
                             std::regex(R"(^ +\d+\.\d+% +\d+\.\d+% +hot_loop .*hot_function)"))
                  .size(),
              1u)
        << report.out;
  }
}

class RecordEventTerms : public RecordEventGroups {};

TEST_F(RecordEventTerms, TermsSetTheirEventsAttrAsPerfSetsIt) {
  const std::vector<std::vector<std::string>> cases{
      {"-e", "cpu-clock/period=100000/"},
      {"-e", "cpu-clock/period=0x100000/"},
      {"-e", "cpu-clock/freq=99/"},
      {"-e", "cpu-clock/period=1,freq=2/"},
      {"-e", "cpu-clock/max-stack=3/"},
      {"-e", "cpu-clock/call-graph=fp/"},
      {"-e", "cpu-clock/call-graph=dwarf,stack-size=4096/"},
      {"-g", "-e", "cpu-clock/call-graph=no/"},
      {"-g", "-e", "cpu-clock/stack-size=4096/"},
      {"--call-graph", "dwarf", "-e", "cpu-clock/max-stack=5/"},
      {"--call-graph", "dwarf", "-e", "cpu-clock/call-graph=no/"},
      {"-e", "cpu-clock/name=foo/"},
      {"-e", "cpu-clock/no-inherit/"},
      {"-i", "-e", "cpu-clock/inherit/"},
      {"-e", "cpu-clock/time/"},
      {"-e", "cpu-clock/config=1/"},
      {"-e", "software/config=1/"},
      {"-e", "cpu-clock/period=100000/u"},
      {"-F", "99", "-e", "cpu-clock/period=100000/,task-clock"},
      {"-c", "1000000", "-e", "cpu-clock/freq=99/,task-clock"},
      {"-e", "{cpu-clock/period=1000000/,task-clock}"},
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(::testing::PrintToString(args));
    expect_same_events(args);
  }
}

// A tracepoint takes perf's call-graph, stack and inheritance terms (perf's own
// record+probe_libc_inet_pton.sh writes `probe_libc:inet_pton/max-stack=3/`), keeps its name
// without them, and takes modifiers after them.
TEST_F(RecordEventTerms, TracepointTermsSetTheirAttrsAsPerfSetsThem) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  own_mounts_ = true;
  for (const char* event :
       {"sched:sched_switch/call-graph=fp/", "sched:sched_switch/max-stack=3/",
        "sched:sched_switch/call-graph=dwarf,stack-size=4096/", "sched:sched_switch/no-inherit/",
        "sched:sched_switch/call-graph=fp/u"}) {
    SCOPED_TRACE(event);
    record(rec_, {"-e", event, "-a"}, ours_, {"sleep", "0.1"});
    record(perf_, {"-e", event, "-a"}, theirs_, {"sleep", "0.1"});
    auto ours = event_fields(ours_);
    EXPECT_EQ(ours.count("sched:sched_switch"), 1u) << "named without its terms";
    EXPECT_EQ(ours, event_fields(theirs_));
  }
}

// perf's own record+probe_libc_inet_pton.sh form: a uprobe on libc's inet_pton with
// max-stack=3, under `ping -6 -c 1 ::1`. arec's recording gives the stacks perf script shows for
// perf's. The probe (kernel-wide) is made and removed within each run, in a mount namespace of
// the run's own.
TEST_F(RecordEventTerms, AProbeWithTermsRecordsTheStacksPerfRecords) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  const std::string script =
      "libc=$(ldd \"$(command -v ping)\" | awk '/libc.so/ {print $3}'); "
      "perf probe -q -f -x \"$libc\" -a inet_pton || exit 77; "
      "trap 'perf probe -q -d probe_libc:inet_pton' EXIT; "
      "\"$@\" -e probe_libc:inet_pton/max-stack=3/ -o \"$0\" ping -6 -c 1 ::1 > /dev/null";
  auto stacks = [&](const recorder& who, const std::string& data) {
    std::vector<std::string> command{"unshare", "--mount", "--propagation", "private",
                                     "sh",      "-c",      script,          data};
    for (const std::string& word : who.command({"-q"})) command.push_back(word);
    test::command_result run = test::run_command(command, 60s);
    EXPECT_EQ(run.exit_code, 0) << who.describe() << ": " << run.describe();
    test::command_result lines =
        test::run_command({"perf", "script", "-i", data, "-F", "ip,sym,dso"}, 60s);
    EXPECT_EQ(lines.exit_code, 0) << lines.describe();
    return lines.out;
  };
  std::string ours = stacks(rec_, ours_), theirs = stacks(perf_, theirs_);
  EXPECT_NE(ours.find("inet_pton"), std::string::npos) << ours;
  EXPECT_EQ(ours, theirs);
}

TEST_F(RecordEventTerms, TracepointTermsPerfRefusesAreRefusedInItsWords) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  own_mounts_ = true;
  for (const char* event : {"sched:sched_switch/period=2/", "sched:sched_switch/call-graph=fp"}) {
    SCOPED_TRACE(event);
    test::command_result ours =
        test::run_command({"unshare", "--mount", "--propagation", "private", arec_binary(), "-e",
                           event, "-o", ours_, "--", "true"});
    EXPECT_EQ(ours.exit_code, rec_.usage_error_status()) << ours.describe();
    EXPECT_NE(ours.err.find("event syntax error: '" + std::string(event) + "': "),
              std::string::npos)
        << ours.err;
  }
}

TEST_F(RecordEventTerms, UnknownTermsAndPmusAreRefusedInPerfsWords) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"cpu-clock/bogus=1/", "unknown term"},
      {"software/cpu-clock/", "unknown term 'cpu-clock' for pmu 'software'"},
      {"nopmu/config=1/", "Cannot find PMU `nopmu'. Missing kernel support?"},
      {"{cpu-clock,{task-clock}}", "parser error"},
  };
  for (const auto& [event, words] : cases) {
    SCOPED_TRACE(event);
    test::command_result run =
        test::run_command(rec_.command({"-q", "-e", event, "-o", ours_, "--", "true"}), 60s);
    EXPECT_EQ(run.exit_code, rec_.usage_error_status()) << run.describe();
    EXPECT_NE(run.err.find(words), std::string::npos) << run.err;
    if (rec_.is_arec()) {
      EXPECT_EQ(
          run.err.rfind("arec: error: -e " + event + ": event syntax error: '" + event + "'", 0),
          0u)
          << run.err;
    }
    EXPECT_FALSE(std::filesystem::exists(ours_));
  }
}

}  // namespace
}  // namespace arec::e2e
