// Events as perf users name them: modifiers set the attr as perf sets it, events the machine
// cannot count are named in the user's terms, and a frequency above the kernel's limit is
// lowered with a warning rather than refused. Each case is checked against perf record here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// The fields of the first event of `data` that modifiers and -F decide, as perf evlist -v
// prints them, e.g. "exclude_kernel: 1 exclude_hv: 1 precise_ip: 3 sample_freq: 4000".
std::string first_event_fields(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  std::string line = evlist.out.substr(0, evlist.out.find('\n'));
  static const std::regex field(
      R"((exclude_(user|kernel|hv|guest|host|idle): 1|pinned: 1|exclusive: 1|precise_ip: \d|)"
      R"(sample_freq \}: \d+))");
  std::string fields;
  for (std::sregex_iterator it(line.begin(), line.end(), field), end; it != end; ++it)
    fields += it->str() + " ";
  return fields;
}

test::command_result record_true(const std::vector<std::string>& recorder_argv) {
  std::vector<std::string> argv = recorder_argv;
  for (const char* arg : {"--", "true"}) argv.emplace_back(arg);
  return test::run_command(argv, 60s);
}

class RecordEvents : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  recorder rec_ = recorder::from_environment();
  recorder perf_ = recorder::reference_perf();
  test::temp_dir dir_;
};

TEST_F(RecordEvents, ModifiersSetTheAttrAsPerfDoes) {
  for (const char* event :
       {"cpu-clock",    "cpu-clock:u",   "cpu-clock:k", "cpu-clock:h",   "cpu-clock:uk",
        "cpu-clock:p",  "cpu-clock:ppp", "cpu-clock:P", "cpu-clock:upp", "task-clock:kP",
        "cycles:P",     "cpu-clock:G",   "cpu-clock:H", "cpu-clock:uG",  "cpu-clock:Gu",
        "cpu-clock:kH", "cpu-clock:GH",  "cpu-clock:I", "cpu-clock:D",   "cpu-clock:e"}) {
    SCOPED_TRACE(event);
    const std::string ours = dir_.file("ours.data"), theirs = dir_.file("theirs.data");
    test::command_result run = record_true(rec_.command({"-q", "-e", event, "-o", ours}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    test::command_result reference =
        record_true(perf_.command({"-q", "-e", event, "-o", theirs}));
    ASSERT_EQ(reference.exit_code, 0) << reference.describe();
    EXPECT_EQ(first_event_fields(ours), first_event_fields(theirs));
  }
}

// Whether perf record can open `event` here: without a PMU it cannot open instructions.
bool perf_supports(const recorder& perf, const std::string& event, const std::string& data) {
  return record_true(perf.command({"-q", "-e", event, "-o", data})).exit_code == 0;
}

TEST_F(RecordEvents, EventTheMachineCannotCountIsNamedInTheUsersTerms) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's own message";
  for (const char* event : {"instructions", "r0076"}) {
    SCOPED_TRACE(event);
    const std::string data = dir_.file("unsupported.data");
    bool supported = perf_supports(perf_, event, dir_.file("perf.data"));
    test::command_result run = record_true(rec_.command({"-e", event, "-o", data}));
    if (supported) {
      EXPECT_EQ(run.exit_code, 0) << "perf record can open " << event << ": " << run.describe();
      continue;
    }
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_EQ(run.err, "arec: error: the " + std::string(event) +
                           " event is not supported on this machine (cpu-clock samples by time "
                           "on any machine: -e cpu-clock)\n");
  }
}

TEST_F(RecordEvents, FrequencyAboveTheKernelLimitIsLoweredWithAWarning) {
  std::ifstream limit_file("/proc/sys/kernel/perf_event_max_sample_rate");
  std::uint64_t limit = 0;
  ASSERT_TRUE(limit_file >> limit);
  const std::string above = std::to_string(limit * 2);
  const std::string ours = dir_.file("ours.data"), theirs = dir_.file("theirs.data");
  test::command_result run =
      record_true(rec_.command({"-e", "cpu-clock", "-F", above, "-o", ours}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  test::command_result reference =
      record_true(perf_.command({"-e", "cpu-clock", "-F", above, "-o", theirs}));
  ASSERT_EQ(reference.exit_code, 0) << reference.describe();
  // The kernel may lower its limit meanwhile; each file holds the limit its recorder read.
  EXPECT_NE(first_event_fields(ours).find("sample_freq }: "), std::string::npos);
  EXPECT_EQ(first_event_fields(ours), first_event_fields(theirs));
  if (rec_.is_arec()) {
    EXPECT_NE(run.err.find("arec: warning: maximum frequency rate ("), std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find(" exceeded, throttling from " + above + " Hz to "), std::string::npos)
        << run.err;
  }
}

}  // namespace
}  // namespace arec::e2e
