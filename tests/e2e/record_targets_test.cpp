// perf record's targets beyond -a/-p/-t: -u USER, -G/--cgroup and --all-cgroups. Each test
// runs spinners of known users or cgroups and checks, with perf script and perf report, whose
// samples were recorded; with AREC_E2E_RECORDER=/usr/bin/perf the same checks hold for perf.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "arec_summary.hpp"
#include "host/cgroup_fs.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "scratch_cgroup.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// spin_until_killed started through `prefix` (e.g. setpriv, which execs it: same pid), once it
// said it is ready.
test::child_process start_spinner(std::vector<std::string> prefix = {}) {
  prefix.push_back(test_program("spin_until_killed"));
  prefix.push_back("60000");
  test::child_process spinner = test::child_process::spawn(prefix);
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  EXPECT_EQ(ready.value_or("nothing"), "ready " + std::to_string(spinner.pid()) + "\n");
  return spinner;
}

std::size_t samples_of(const perf_script& script, int tid) {
  std::size_t count = 0;
  for (const script_sample& sample : script.samples) count += sample.tid == tid ? 1 : 0;
  return count;
}

class RecordTargets : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }

  // Records `args` for one second with `who` into `data_`; the command's result.
  test::command_result record_for_a_second(const recorder& who, std::vector<std::string> args) {
    args.insert(args.end(), {"-o", data_});
    for (std::string& arg : who.duration_args("1")) args.push_back(std::move(arg));
    return test::run_command(who.command(args), 60s);
  }

  recorder rec_ = recorder::from_environment();
  recorder perf_ = recorder::reference_perf();
  test::temp_dir dir_;
  const std::string data_ = dir_.file("targets.data");
};

// -u samples what the user runs, and nothing of other users.
TEST_F(RecordTargets, UserRecordsOnlyThatUsersProcesses) {
  test::child_process theirs =
      start_spinner({"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  test::child_process root = start_spinner();
  test::command_result run =
      record_for_a_second(rec_, {"-u", "nobody", "-e", "cpu-clock", "-F", "1000"});
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data_);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  // Two spinners share this machine's cores with whatever else runs: some samples, not a rate.
  EXPECT_GE(samples_of(script, theirs.pid()), 20u) << excerpt(script.run.out);
  EXPECT_EQ(samples_of(script, root.pid()), 0u) << "root's spinner was sampled";
  sample_share hot = share_in(script.samples, "hot_function", "spin_until_killed",
                              [&](const script_sample& s) { return s.tid == theirs.pid(); });
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total;
  if (rec_.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << run.err;
    EXPECT_EQ(summary->samples, sample_records(data_)) << run.err;
  }
}

TEST_F(RecordTargets, UnknownUsersAreRefusedInPerfsWords) {
  test::command_result name = record_for_a_second(rec_, {"-u", "no-such-user-arec"});
  EXPECT_NE(name.err.find("Invalid User: no-such-user-arec"), std::string::npos) << name.err;
  test::command_result uid = record_for_a_second(rec_, {"-u", "4000000000"});
  EXPECT_NE(uid.err.find("Problems obtaining information for user 4000000000"), std::string::npos)
      << uid.err;
  if (rec_.is_arec()) {  // perf 6.1 exits 0 here (errno is 0 after getpwnam)
    EXPECT_EQ(name.exit_code, 2) << name.describe();
    EXPECT_EQ(uid.exit_code, 2) << uid.describe();
    EXPECT_FALSE(std::ifstream(data_).good()) << "a refused recording leaves no file";
  }
}

// -G: the event counts only the tasks of its cgroup, on every cpu.
TEST_F(RecordTargets, CgroupSamplesOnlyTheTasksInIt) {
  std::string why;
  std::optional<scratch_cgroup> cgroup = scratch_cgroup::make(why);
  if (!cgroup) GTEST_SKIP() << why;
  test::child_process inside = start_spinner();
  test::child_process outside = start_spinner();
  cgroup->adopt(inside.pid());
  test::command_result run =
      record_for_a_second(rec_, {"-a", "-e", "cpu-clock", "-F", "1000", "-G", cgroup->name()});
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data_);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_GE(samples_of(script, inside.pid()), 20u) << excerpt(script.run.out);
  EXPECT_EQ(samples_of(script, outside.pid()), 0u) << "a task outside the cgroup was sampled";
  for (const script_sample& sample : script.samples)
    EXPECT_EQ(sample.tid, inside.pid()) << sample.comm << " is not in the cgroup";
  inside.send_signal(SIGKILL);
  inside.wait(10s);  // before the cgroup is removed: a cgroup with tasks cannot be
}

TEST_F(RecordTargets, CgroupErrorsAreRefusedInPerfsWords) {
  std::optional<std::string> mount = host::perf_event_cgroup_mount();
  if (!mount) GTEST_SKIP() << "no cgroup file system is mounted";
  test::command_result missing =
      record_for_a_second(rec_, {"-a", "-e", "cpu-clock", "-G", "/no-such-cgroup-arec"});
  EXPECT_NE(missing.err.find("no access to cgroup " + *mount + "//no-such-cgroup-arec"),
            std::string::npos)
      << missing.err;
  test::command_result first =
      test::run_command(rec_.command({"-G", "/", "-e", "cpu-clock", "-o", data_, "--", "true"}));
  EXPECT_NE(first.err.find("must define events before cgroups"), std::string::npos) << first.err;
  test::command_result per_task =
      test::run_command(rec_.command({"-e", "cpu-clock", "-G", "/", "-o", data_, "--", "true"}));
  EXPECT_NE(per_task.err.find("cgroup monitoring only available in system-wide mode"),
            std::string::npos)
      << per_task.err;
  for (const test::command_result* run : {&missing, &first, &per_task})
    EXPECT_EQ(run->exit_code, rec_.usage_error_status()) << run->describe();
}

// The events' attrs as perf evlist -v prints them: which carry CGROUP in sample_type, which the
// cgroup bit.
struct cgroup_bits {
  std::size_t events = 0, sampling_cgroup = 0, tracking = 0;
};

cgroup_bits cgroup_bits_of(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  cgroup_bits bits;
  std::size_t start = 0;
  while (start < evlist.out.size()) {
    std::size_t end = evlist.out.find('\n', start);
    std::string line = evlist.out.substr(start, end - start);
    start = end == std::string::npos ? evlist.out.size() : end + 1;
    if (line.empty()) continue;
    ++bits.events;
    if (line.find("|CGROUP") != std::string::npos) ++bits.sampling_cgroup;
    if (line.find(" cgroup: 1") != std::string::npos) ++bits.tracking;
  }
  return bits;
}

// The PERF_RECORD_CGROUP records of a file, "ID PATH", from perf report -D; with `below`, only
// those of the root, of `below` and of the cgroups under it (others may come and go).
std::multiset<std::string> cgroup_records(const std::string& data, const std::string& below = "") {
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", data});
  EXPECT_EQ(dump.exit_code, 0) << dump.describe();
  std::multiset<std::string> records;
  const std::string marker = "PERF_RECORD_CGROUP cgroup: ";
  std::size_t at = 0;
  while ((at = dump.out.find(marker, at)) != std::string::npos) {
    at += marker.size();
    std::string record = dump.out.substr(at, dump.out.find('\n', at) - at);
    std::string path = record.substr(record.find(' ') + 1);
    bool kept = below.empty() || path == "/" || path == below || path.starts_with(below + "/");
    if (kept) records.insert(record);
  }
  return records;
}

// --all-cgroups: every event samples its cgroup, the tracking event records new ones, and the
// cgroups that exist are named at the start, so perf report sorts by their names.
TEST_F(RecordTargets, AllCgroupsNamesTheCgroupOfEverySample) {
  std::string why;
  std::optional<scratch_cgroup> cgroup = scratch_cgroup::make(why);
  if (!cgroup) GTEST_SKIP() << why;
  test::child_process inside = start_spinner();
  cgroup->adopt(inside.pid());
  test::command_result run =
      record_for_a_second(rec_, {"-a", "--all-cgroups", "-e", "cpu-clock", "-F", "1000"});
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();

  cgroup_bits bits = cgroup_bits_of(data_);
  EXPECT_EQ(bits.sampling_cgroup, bits.events) << "every event samples PERF_SAMPLE_CGROUP";
  EXPECT_EQ(bits.tracking, 1u) << "one tracking event with attr.cgroup";
  std::multiset<std::string> records = cgroup_records(data_);
  const std::string mount = host::perf_event_cgroup_mount().value();
  std::string ours =
      std::to_string(host::cgroup_id((mount + cgroup->name()).c_str())) + " " + cgroup->name();
  EXPECT_EQ(records.count(ours), 1u) << "no CGROUP record names " << ours;
  std::string root = std::to_string(host::cgroup_id(mount.c_str())) + " /";
  EXPECT_EQ(records.count(root), 1u) << "no CGROUP record names the root";

  test::command_result report =
      test::run_command({"perf", "report", "--stdio", "-q", "--sort", "cgroup", "-i", data_});
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find(cgroup->name()), std::string::npos)
      << "perf report --sort cgroup does not name " << cgroup->name() << ":\n"
      << report.out;
  EXPECT_EQ(report.out.find("unknown"), std::string::npos) << report.out;
  inside.send_signal(SIGKILL);
  inside.wait(10s);
}

// The same records as perf: the cgroup tree walked the same way, and --synth without its
// cgroup bit leaves them out.
TEST_F(RecordTargets, AllCgroupsSynthesizesTheCgroupsPerfDoes) {
  std::string why;
  std::optional<scratch_cgroup> cgroup = scratch_cgroup::make(why);
  if (!cgroup) GTEST_SKIP() << why;
  cgroup->add_child("/inner");
  cgroup->add_child("/inner/deeper");
  cgroup->add_child("/second");
  const std::string theirs = dir_.file("theirs.data");
  auto record = [&](const recorder& who, const std::string& data, const char* synth) {
    test::command_result run = test::run_command(
        who.command({"-e", "cpu-clock", "--all-cgroups", synth, "-q", "-o", data, "--", "true"}));
    EXPECT_EQ(run.exit_code, 0) << who.describe() << ": " << run.describe();
  };
  record(rec_, data_, "--synth=all");
  record(perf_, theirs, "--synth=all");
  std::multiset<std::string> records = cgroup_records(data_, cgroup->name());
  EXPECT_EQ(records, cgroup_records(theirs, cgroup->name()));
  EXPECT_EQ(records.size(), 5u) << "the root, " << cgroup->name() << " and its three below";
  EXPECT_EQ(cgroup_bits_of(data_).sampling_cgroup, cgroup_bits_of(data_).events);

  record(rec_, data_, "--synth=task");
  record(perf_, theirs, "--synth=task");
  EXPECT_TRUE(cgroup_records(data_).empty());
  EXPECT_TRUE(cgroup_records(theirs).empty());
}

// Whether any event `perf evlist -v` lists is inherited.
bool any_inherited(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  return evlist.out.find(" inherit: 1") != std::string::npos;
}

std::size_t samples_of_comm(const perf_script& script, const std::string& comm) {
  std::size_t count = 0;
  for (const script_sample& sample : script.samples) count += sample.comm == comm ? 1 : 0;
  return count;
}

// --per-thread: a ring per task and no inherit, so a workload's children are not recorded;
// without it they are.
TEST_F(RecordTargets, PerThreadRecordsTheWorkloadButNotItsChildren) {
  const std::string child = test_program("hot_loop") + " 1000; true";
  auto record = [&](std::vector<std::string> args) {
    args.insert(args.end(),
                {"-e", "cpu-clock", "-F", "1000", "-q", "-o", data_, "--", "sh", "-c", child});
    test::command_result run = test::run_command(rec_.command(args), 60s);
    EXPECT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();
  };
  record({"--per-thread"});
  EXPECT_FALSE(any_inherited(data_));
  perf_script alone = run_perf_script(data_);
  ASSERT_EQ(alone.run.exit_code, 0) << alone.run.describe();
  EXPECT_EQ(samples_of_comm(alone, "hot_loop"), 0u) << excerpt(alone.run.out);

  record({});
  EXPECT_TRUE(any_inherited(data_));
  perf_script inherited = run_perf_script(data_);
  ASSERT_EQ(inherited.run.exit_code, 0) << inherited.run.describe();
  EXPECT_GE(samples_of_comm(inherited, "hot_loop"), 50u) << excerpt(inherited.run.out);
}

// --per-thread with -p: every thread of the process has its own ring, the spinning one samples.
TEST_F(RecordTargets, PerThreadAttachesToEveryThreadOfAProcess) {
  test::child_process spinner =
      test::child_process::spawn({test_program("spin_in_thread"), "60000"});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "spin_in_thread did not report ready";
  int tid = 0;
  ASSERT_EQ(std::sscanf(ready->c_str(), "ready %*d %d", &tid), 1) << *ready;
  test::command_result run = record_for_a_second(
      rec_, {"--per-thread", "-p", std::to_string(spinner.pid()), "-e", "cpu-clock", "-F", "1000"});
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();
  EXPECT_FALSE(any_inherited(data_));
  perf_script script = run_perf_script(data_);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_GE(samples_of(script, tid), 50u) << excerpt(script.run.out);
  sample_share hot = share_in(script.samples, "hot_function", "spin_in_thread",
                              [&](const script_sample& s) { return s.tid == tid; });
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total;
}

TEST_F(RecordTargets, PerThreadIsNotForParallelStreaming) {
  test::command_result run = test::run_command(
      rec_.command({"--per-thread", "--threads", "-e", "cpu-clock", "-o", data_, "--", "true"}));
  EXPECT_NE(run.err.find("--per-thread option is mutually exclusive to parallel streaming mode"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.exit_code, 0) << run.describe();
}

}  // namespace
}  // namespace arec::e2e
