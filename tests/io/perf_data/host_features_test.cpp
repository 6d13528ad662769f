#include "io/perf_data/host_features.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/perf_data/perf_file_reader.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

using namespace arec::io::perf;
using arec::test::perf_installed;
using arec::test::run_command;
using arec::test::temp_dir;

namespace {

// Writes `text` to `relative` inside `tree`, creating the directories on the way.
void write_file(const temp_dir& tree, const std::string& relative, const std::string& text) {
  std::filesystem::path path = tree.file(relative);
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::vector<std::byte> string_bytes(std::string_view text) {
  feature_encoder out;
  out.string(text);
  return out.take();
}

// sysfs and /proc of a 4-CPU machine whose CPU 3 is offline (no topology directory), one
// package, two cores (0-1 siblings), one die, one NUMA node.
void fabricate_machine(const temp_dir& tree) {
  write_file(tree, "sys/devices/system/cpu/present", "0-3\n");
  write_file(tree, "sys/devices/system/cpu/online", "0-2\n");
  const char* cores[] = {"0-1", "0-1", "2"};
  for (int cpu = 0; cpu < 3; ++cpu) {
    std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    write_file(tree, dir + "package_cpus_list", "0-3\n");
    write_file(tree, dir + "die_cpus_list", "0-3\n");
    write_file(tree, dir + "core_cpus_list", std::string(cores[cpu]) + "\n");
    write_file(tree, dir + "core_id", cpu < 2 ? "0\n" : "1\n");
    write_file(tree, dir + "physical_package_id", "0\n");
    write_file(tree, dir + "die_id", "0\n");
  }
  write_file(tree, "sys/devices/system/node/online", "0\n");
  write_file(tree, "sys/devices/system/node/node0/meminfo",
             "Node 0 MemTotal:        8000000 kB\n"
             "Node 0 MemFree:         6000000 kB\n"
             "Node 0 MemUsed:         2000000 kB\n");
  write_file(tree, "sys/devices/system/node/node0/cpulist", "0-3\n");
  write_file(tree, "proc/cpuinfo",
             "processor\t: 0\n"
             "vendor_id\t: GenuineIntel\n"
             "cpu family\t: 6\n"
             "model\t\t: 85\n"
             "model name\t: Intel(R) Xeon(R)  Gold   6130 CPU @ 2.10GHz\n"
             "stepping\t: 4\n"
             "\n"
             "processor\t: 1\n"
             "vendor_id\t: OtherVendor\n");
  write_file(tree, "proc/meminfo", "MemTotal:       16303856 kB\nMemFree:         1000 kB\n");
}

std::string machine() {
  utsname host{};
  ::uname(&host);
  return host.machine;
}

}  // namespace

TEST(HostFeatures, ReadsCountsNamesAndMemoryFromProcAndSysfs) {
  temp_dir tree;
  fabricate_machine(tree);
  feature_set features;
  add_host_features(features, tree.file("sys"), tree.file("proc"));

  feature_encoder nrcpus;
  nrcpus.u32(4);  // max present + 1
  nrcpus.u32(3);  // online
  EXPECT_EQ(*features.find(feature_nrcpus), nrcpus.take());
  EXPECT_EQ(*features.find(feature_cpudesc),
            string_bytes("Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz"));
  EXPECT_EQ(*features.find(feature_cpuid), string_bytes("GenuineIntel,6,85,4"));
  feature_encoder memory;
  memory.u64(16303856);
  EXPECT_EQ(*features.find(feature_total_mem), memory.take());
  EXPECT_EQ(*features.find(feature_version), string_bytes(compatible_perf_version));
  EXPECT_EQ(*features.find(feature_arch), string_bytes(machine()));
}

TEST(HostFeatures, CpuTopologyListsOnlineCpusAndMarksOfflineOnesMinusOne) {
  temp_dir tree;
  fabricate_machine(tree);
  feature_set features;
  add_host_features(features, tree.file("sys"), tree.file("proc"));

  feature_encoder expected;
  expected.string_list(std::vector<std::string>{"0-3"});
  expected.string_list(std::vector<std::string>{"0-1", "2"});
  for (auto [core, socket] : {std::pair{0u, 0u}, {0u, 0u}, {1u, 0u}, {~0u, ~0u}}) {
    expected.u32(core);
    expected.u32(socket);
  }
  // perf 6.1 writes the die part only on x86_64 and s390x
  std::string arch = machine();
  if (arch.starts_with("x86_64") || arch.starts_with("s390x")) {
    expected.string_list(std::vector<std::string>{"0-3"});
    for (std::uint32_t die : {0u, 0u, 0u, ~0u}) expected.u32(die);
  }
  EXPECT_EQ(*features.find(feature_cpu_topology), expected.take());
}

TEST(HostFeatures, NumaTopologyHasNodeMemoryAndCpus) {
  temp_dir tree;
  fabricate_machine(tree);
  feature_set features;
  add_host_features(features, tree.file("sys"), tree.file("proc"));

  feature_encoder expected;
  expected.u32(1);
  expected.u32(0);
  expected.u64(8000000);
  expected.u64(6000000);
  expected.string("0-3");
  EXPECT_EQ(*features.find(feature_numa_topology), expected.take());
}

TEST(HostFeatures, LeavesOutWhatTheMachineDoesNotDescribe) {
  temp_dir tree;
  write_file(tree, "proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n");
  write_file(tree, "sys/devices/system/cpu/present", "0\n");  // no online file
  feature_set features;
  add_host_features(features, tree.file("sys"), tree.file("proc"));
  EXPECT_TRUE(features.has(feature_hostname));
  EXPECT_TRUE(features.has(feature_osrelease));
  for (feature missing : {feature_cpudesc, feature_cpuid, feature_nrcpus, feature_cpu_topology,
                          feature_numa_topology, feature_total_mem})
    EXPECT_FALSE(features.has(missing)) << "feature " << missing;
}

// The payloads must be the ones perf itself writes on this machine (NUMA free memory aside,
// which changes between the two reads).
TEST(HostFeatures, MatchWhatPerfRecordWritesOnThisHost) {
  if (!perf_installed()) GTEST_SKIP() << "perf is not installed";
  temp_dir tree;
  std::string output = tree.file("perf.data");
  auto record =
      run_command({"perf", "record", "-q", "-a", "-e", "cpu-clock", "-o", output, "--", "true"});
  if (record.exit_code != 0) GTEST_SKIP() << "perf record failed: " << record.describe();
  auto perf_file = perf_file_reader::open(output);
  feature_set ours;
  add_host_features(ours);

  for (feature bit : {feature_hostname, feature_osrelease, feature_arch, feature_nrcpus,
                      feature_cpudesc, feature_cpuid, feature_total_mem, feature_cpu_topology}) {
    auto theirs = perf_file.feature(bit);
    ASSERT_TRUE(theirs) << "perf wrote no feature " << bit;
    ASSERT_TRUE(ours.has(bit)) << "we wrote no feature " << bit;
    const auto& mine = *ours.find(bit);
    EXPECT_TRUE(std::equal(theirs->begin(), theirs->end(), mine.begin(), mine.end()))
        << "feature " << bit << ": perf " << theirs->size() << " bytes, ours " << mine.size();
  }

  auto theirs = perf_file.feature(feature_numa_topology);
  ASSERT_TRUE(theirs);
  ASSERT_TRUE(ours.has(feature_numa_topology));
  std::vector<std::byte> perf_numa(theirs->begin(), theirs->end());
  std::vector<std::byte> our_numa = *ours.find(feature_numa_topology);
  ASSERT_EQ(perf_numa.size(), our_numa.size());
  // per node: u32 node, u64 total, u64 free (blanked), perf string cpus
  std::uint32_t nodes = 0;
  std::memcpy(&nodes, perf_numa.data(), 4);
  std::size_t at = 4;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    std::fill_n(perf_numa.begin() + static_cast<long>(at + 12), 8, std::byte{0});
    std::fill_n(our_numa.begin() + static_cast<long>(at + 12), 8, std::byte{0});
    std::uint32_t length = 0;
    std::memcpy(&length, perf_numa.data() + at + 20, 4);
    at += 24 + length;
  }
  EXPECT_EQ(at, perf_numa.size());
  EXPECT_EQ(perf_numa, our_numa);
}
