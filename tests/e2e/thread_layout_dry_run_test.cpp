// --dry-run through the real command line against the sysfs fixture machines: the streaming
// thread layout each --threads spec (with and without -C) gives, line by line, and the one-line
// usage errors a bad spec gives, with nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "env_command.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

std::string fixture_root(const std::string& machine) {
  return std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/sysfs/" + machine;
}

bool exists(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string line(int index, const std::string& cpus, const std::string& affinity) {
  return "thread " + std::to_string(index) + ": cpus=" + cpus + " affinity=" + affinity;
}

// One thread per listed unit, each draining and running on the whole unit.
std::vector<std::string> whole_units(const std::vector<std::string>& units) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < units.size(); ++i)
    lines.push_back(line(static_cast<int>(i), units[i], units[i]));
  return lines;
}

// One thread per listed cpu, pinned to it.
std::vector<std::string> one_per_cpu(const std::vector<int>& cpus) {
  std::vector<std::string> units;
  for (int cpu : cpus) units.push_back(std::to_string(cpu));
  return whole_units(units);
}

std::vector<int> range(int first, int last) {
  std::vector<int> cpus;
  for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  return cpus;
}

struct layout_case {
  std::vector<std::string> args;  // after "--dry-run -o FILE"
  std::vector<std::string> expected;
};

// arec as a child with AREC_SYSFS_ROOT pointing at `machine`.
test::command_result run_on(const std::string& machine, const std::vector<std::string>& args) {
  recorder rec = recorder::from_environment();
  return test::run_command(
      env_command({"AREC_SYSFS_ROOT=" + fixture_root(machine)}, rec.command(args)),
      std::chrono::seconds(30));
}

void expect_layouts(const std::string& machine, const std::vector<layout_case>& cases) {
  test::temp_dir dir;
  const std::string data = dir.file("never.data");
  for (const layout_case& c : cases) {
    std::vector<std::string> args{"--dry-run", "-o", data};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string shown;
    for (const std::string& arg : c.args) shown += " " + arg;
    SCOPED_TRACE(machine + ":" + shown);
    test::command_result run = run_on(machine, args);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(lines_of(run.out), c.expected);
    EXPECT_EQ(run.err, "") << "a dry run without -v prints nothing on stderr";
    EXPECT_FALSE(exists(data)) << "a dry run must not create " << data;
  }
}

class DryRunLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!recorder::from_environment().is_arec()) GTEST_SKIP() << "--dry-run layouts are arec's";
  }
};

// 2 sockets x 8 cores x 2 threads; cpu N and N+16 share a core; one NUMA node per socket.
TEST_F(DryRunLayout, TwoSocketSmtMachine) {
  std::vector<std::string> cores;
  for (int core = 0; core < 16; ++core)
    cores.push_back(std::to_string(core) + "," + std::to_string(core + 16));
  const std::vector<std::string> sockets{"0-7,16-23", "8-15,24-31"};
  expect_layouts(
      "two-socket-smt",
      {
          {{"-a"}, {line(0, "0-31", "0-31")}},
          // Without --threads one thread drains the monitored cpus and may run anywhere.
          {{"-C", "3-5"}, {line(0, "3-5", "0-31")}},
          {{"--threads=cpu", "-a"}, one_per_cpu(range(0, 31))},
          {{"--threads", "-a"}, one_per_cpu(range(0, 31))},
          {{"--threads=core", "-a"}, whole_units(cores)},
          {{"--threads=package", "-a"}, whole_units(sockets)},
          {{"--threads=numa", "-a"}, whole_units(sockets)},
          {{"--threads=0-15/0-7:16-31/16-23", "-a"},
           {line(0, "0-15", "0-7"), line(1, "16-31", "16-23")}},
          // User masks keep the order they were written in.
          {{"--threads=16-31/16:0-15/0", "-a"}, {line(0, "16-31", "16"), line(1, "0-15", "0")}},
          // -C: each thread drains only its monitored cpus but keeps its whole unit's affinity.
          {{"--threads=cpu", "-C", "5,17"}, {line(0, "5", "5"), line(1, "17", "17")}},
          {{"--threads=core", "-C", "2,18,20"}, {line(0, "2,18", "2,18"), line(1, "20", "4,20")}},
          {{"--threads=core", "-C", "20,1"}, {line(0, "1", "1,17"), line(1, "20", "4,20")}},
          {{"--threads=package", "-C", "9"}, {line(0, "9", "8-15,24-31")}},
          // Topology threads are ordered by their lowest drained cpu, whatever the node order.
          {{"--threads=numa", "-C", "16,9"},
           {line(0, "9", "8-15,24-31"), line(1, "16", "0-7,16-23")}},
          {{"--threads=0-3/0:8-11/8", "-C", "2-3,8-9"}, {line(0, "2-3", "0"), line(1, "8-9", "8")}},
          // A mask left without monitored cpus gets no thread.
          {{"--threads=0-3/0:8-11/8", "-C", "8-9"}, {line(0, "8-9", "8")}},
      });
}

// 2 sockets x 8 cores, no SMT, two NUMA nodes per socket.
TEST_F(DryRunLayout, NumaPerHalfSocketMachine) {
  expect_layouts("numa-per-half-socket",
                 {
                     {{"--threads=cpu", "-a"}, one_per_cpu(range(0, 15))},
                     {{"--threads=core", "-a"}, one_per_cpu(range(0, 15))},
                     {{"--threads=package", "-a"}, whole_units({"0-7", "8-15"})},
                     {{"--threads=numa", "-a"}, whole_units({"0-3", "4-7", "8-11", "12-15"})},
                     {{"--threads=numa", "-C", "1,5,9"},
                      {line(0, "1", "0-3"), line(1, "5", "4-7"), line(2, "9", "8-11")}},
                     {{"--threads=numa", "-C", "12-13"}, {line(0, "12-13", "12-15")}},
                     {{"--threads=0-7/0-3:8-15/12-15", "-a"},
                      {line(0, "0-7", "0-3"), line(1, "8-15", "12-15")}},
                 });
}

// One socket, 4 cores x 2 threads (siblings N and N+4), cpus 4-5 offline; node0's stale
// cpulist still names the offline cpus, which must not reach any affinity.
TEST_F(DryRunLayout, MachineWithOfflineCpus) {
  expect_layouts(
      "offline-holes",
      {
          {{"-a"}, {line(0, "0-3,6-7", "0-3,6-7")}},
          {{"--threads=cpu", "-a"}, one_per_cpu({0, 1, 2, 3, 6, 7})},
          {{"--threads=core", "-a"}, whole_units({"0", "1", "2,6", "3,7"})},
          {{"--threads=package", "-a"}, whole_units({"0-3,6-7"})},
          {{"--threads=numa", "-a"}, whole_units({"0-1", "2-3,6-7"})},
          {{"--threads=numa", "-C", "6"}, {line(0, "6", "2-3,6-7")}},
          {{"--threads=core", "-C", "0,6"}, {line(0, "0", "0"), line(1, "6", "2,6")}},
          {{"--threads=0-3/0-1:6-7/6", "-a"}, {line(0, "0-3", "0-1"), line(1, "6-7", "6")}},
      });
}

// 2 cores x 2 threads (siblings adjacent) and no devices/system/node: one NUMA node.
TEST_F(DryRunLayout, MachineWithoutNumaNodes) {
  expect_layouts("no-node-dirs",
                 {
                     {{"--threads=cpu", "-a"}, one_per_cpu(range(0, 3))},
                     {{"--threads=core", "-a"}, whole_units({"0-1", "2-3"})},
                     {{"--threads=package", "-a"}, whole_units({"0-3"})},
                     {{"--threads=numa", "-a"}, whole_units({"0-3"})},
                     {{"--threads=numa", "-C", "2"}, {line(0, "2", "0-3")}},
                     {{"--threads=core", "-C", "1-2"}, {line(0, "1", "0-1"), line(1, "2", "2-3")}},
                 });
}

// Pre-5.8 sysfs names only (thread_siblings_list, core_siblings_list); 2 packages x 2 cores x
// 2 threads, siblings adjacent, one NUMA node per package.
TEST_F(DryRunLayout, MachineWithOldKernelNames) {
  expect_layouts("old-kernel-names",
                 {
                     {{"--threads=cpu", "-a"}, one_per_cpu(range(0, 7))},
                     {{"--threads=core", "-a"}, whole_units({"0-1", "2-3", "4-5", "6-7"})},
                     {{"--threads=package", "-a"}, whole_units({"0-3", "4-7"})},
                     {{"--threads=numa", "-a"}, whole_units({"0-3", "4-7"})},
                     {{"--threads=core", "-C", "1,6"}, {line(0, "1", "0-1"), line(1, "6", "6-7")}},
                     {{"--threads=package", "-C", "5"}, {line(0, "5", "4-7")}},
                 });
}

// "socket" names the same unit as "package" (thread_masks.hpp), on every machine.
TEST_F(DryRunLayout, SocketIsASynonymOfPackage) {
  for (const std::string machine : {"two-socket-smt", "numa-per-half-socket", "offline-holes",
                                    "no-node-dirs", "old-kernel-names"}) {
    SCOPED_TRACE(machine);
    test::command_result package = run_on(machine, {"--dry-run", "--threads=package", "-a"});
    ASSERT_EQ(package.exit_code, 0) << package.describe();
    test::command_result socket = run_on(machine, {"--dry-run", "--threads=socket", "-a"});
    ASSERT_EQ(socket.exit_code, 0) << socket.describe();
    EXPECT_EQ(socket.out, package.out);
  }
}

struct error_case {
  std::string machine;
  std::vector<std::string> args;
  std::vector<std::string> named;  // parts the message must contain
};

// Each case fails the same way as a dry run and as a recording: exit 2, one line on stderr
// starting "arec: error: " and naming the bad part, nothing on stdout, no output file.
void expect_usage_errors(const std::vector<error_case>& cases) {
  test::temp_dir dir;
  const std::string data = dir.file("never.data");
  for (const error_case& c : cases) {
    for (bool dry_run : {true, false}) {
      std::vector<std::string> args{"-o", data};
      if (dry_run) {
        args.push_back("--dry-run");
      } else {
        // Should the spec wrongly pass, the recording ends soon (or fails on fixture cpus).
        args.insert(args.end(), {"--duration", "0.5"});
      }
      args.insert(args.end(), c.args.begin(), c.args.end());
      std::string shown;
      for (const std::string& arg : args) shown += " " + arg;
      SCOPED_TRACE(c.machine + ":" + shown);
      test::command_result run = run_on(c.machine, args);
      EXPECT_EQ(run.exit_code, 2) << run.describe();
      EXPECT_TRUE(run.err.starts_with("arec: error: ")) << run.err;
      EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line, ending in a newline:\n"
                                                        << run.err;
      for (const std::string& part : c.named)
        EXPECT_NE(run.err.find(part), std::string::npos) << "should name " << part << ":\n"
                                                         << run.err;
      EXPECT_EQ(run.out, "");
      EXPECT_FALSE(exists(data)) << "a rejected command line must not create " << data;
    }
  }
}

TEST_F(DryRunLayout, BadSpecsAreOneLineUsageErrorsNamingTheProblem) {
  expect_usage_errors({
      {"two-socket-smt", {"--threads=bogus", "-a"}, {"'bogus'"}},
      {"two-socket-smt", {"--threads=0-x/1", "-a"}, {"'0-x/1'"}},
      // A mask without the /AFFINITY half.
      {"two-socket-smt", {"--threads=0-3", "-a"}, {"'0-3'"}},
      {"two-socket-smt", {"--threads=0-3/0:2-5/2", "-a"}, {"'2-5/2'", "overlaps", "2-3"}},
      {"two-socket-smt", {"--threads=40/0", "-a"}, {"cpu 40 does not exist"}},
      {"two-socket-smt", {"--threads=0-3/40", "-a"}, {"cpu 40 does not exist"}},
      // The mask is valid but -C leaves it nothing to drain.
      {"two-socket-smt", {"--threads=0/0", "-C", "1"}, {"'0/0'", "no streaming thread"}},
      {"offline-holes", {"--threads=4/0", "-a"}, {"'4/0'", "cpu 4 is offline"}},
      {"offline-holes", {"--threads=0/5", "-a"}, {"'0/5'", "cpu 5 is offline"}},
      {"offline-holes", {"--threads=cpu", "-C", "4"}, {"cpu 4"}},
  });
}

}  // namespace
}  // namespace arec::e2e
