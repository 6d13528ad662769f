#include "host/host_features.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>

#include "perf_data/byte_cursor.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "support/child_process.hpp"
#include "support/pmu_order.hpp"
#include "support/temp_dir.hpp"

using namespace arec::perf_data;
using namespace arec::host;
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

// tests/fixtures/sysfs/caches-pmus-memory (see make_fixtures.sh there): PMUs, CPU caches
// and memory blocks per node.
std::string fixture_sysfs() {
  return std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/sysfs/caches-pmus-memory";
}

feature_set features_of(const std::string& sysfs_root) {
  feature_set features;
  arec::host::add_host_features(features, sysfs_root, "/nonexistent-proc");
  return features;
}

byte_cursor cursor_of(const std::vector<std::byte>& payload) {
  return byte_cursor(payload, 0, "feature", "test");
}

// The (type, name) pairs of a PMU_MAPPINGS payload, all of it consumed.
std::vector<std::pair<std::uint32_t, std::string>> decode_pmu_mappings(
    const std::vector<std::byte>& payload) {
  auto in = cursor_of(payload);
  std::vector<std::pair<std::uint32_t, std::string>> pmus;
  for (auto count = in.value<std::uint32_t>(); count > 0; --count) {
    auto type = in.value<std::uint32_t>();
    pmus.emplace_back(type, in.string());
  }
  EXPECT_EQ(in.offset(), payload.size());
  return pmus;
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
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));

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
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));

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
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));

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
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));
  EXPECT_TRUE(features.has(feature_hostname));
  EXPECT_TRUE(features.has(feature_osrelease));
  for (feature missing :
       {feature_cpudesc, feature_cpuid, feature_nrcpus, feature_cpu_topology, feature_numa_topology,
        feature_total_mem, feature_pmu_mappings, feature_mem_topology})
    EXPECT_FALSE(features.has(missing)) << "feature " << missing;
  // No cache directory is no cache, as perf writes it on machines (VMs) without them.
  feature_encoder no_caches;
  no_caches.u32(1);
  no_caches.u32(0);
  EXPECT_EQ(*features.find(feature_cache), no_caches.take());
}

// perf lists the PMUs in the order of its directory scan; it skips a PMU without a numeric
// type (power) and a hybrid name without CPUs (cpu_atom).
TEST(HostFeatures, PmuMappingsListTypedPmusInDirectoryOrder) {
  feature_set features = features_of(fixture_sysfs());
  ASSERT_TRUE(features.has(feature_pmu_mappings));
  auto pmus = decode_pmu_mappings(*features.find(feature_pmu_mappings));

  const std::map<std::string, std::uint32_t> typed{
      {"software", 1}, {"tracepoint", 2}, {"cpu_core", 4}, {"breakpoint", 5}};
  std::vector<std::pair<std::uint32_t, std::string>> expected;
  for (const auto& entry :
       std::filesystem::directory_iterator(fixture_sysfs() + "/bus/event_source/devices")) {
    std::string name = entry.path().filename().string();
    if (auto at = typed.find(name); at != typed.end()) expected.emplace_back(at->second, name);
  }
  ASSERT_EQ(expected.size(), typed.size());
  EXPECT_EQ(pmus, expected);
}

// Distinct caches of the online CPUs (cpu1 repeats cpu0's, cpu2 shares the L3), ordered by
// level and, within a level, as found: cpu0's L1 data and instruction before cpu2's.
TEST(HostFeatures, CacheKeepsDistinctCachesByLevelInTheOrderFound) {
  feature_set features = features_of(fixture_sysfs());
  ASSERT_TRUE(features.has(feature_cache));
  auto in = cursor_of(*features.find(feature_cache));
  EXPECT_EQ(in.value<std::uint32_t>(), 1u);  // version
  struct cache {
    std::uint32_t level, line_size, sets, ways;
    std::string type, size, map;
    bool operator==(const cache&) const = default;
  };
  std::vector<cache> caches(in.value<std::uint32_t>());
  for (cache& c : caches) {
    c.level = in.value<std::uint32_t>();
    c.line_size = in.value<std::uint32_t>();
    c.sets = in.value<std::uint32_t>();
    c.ways = in.value<std::uint32_t>();
    c.type = in.string();
    c.size = in.string();
    c.map = in.string();
  }
  EXPECT_EQ(in.offset(), features.find(feature_cache)->size());
  std::vector<cache> expected{
      {1, 64, 64, 8, "Data", "32K", "0-1"},          {1, 64, 64, 8, "Instruction", "32K", "0-1"},
      {1, 64, 64, 8, "Data", "32K", "2-3"},          {1, 64, 64, 8, "Instruction", "32K", "2-3"},
      {2, 64, 1024, 8, "Unified", "512K", "0-1"},    {2, 64, 1024, 8, "Unified", "512K", "2-3"},
      {3, 64, 16384, 8, "Unified", "16384K", "0-3"},
  };
  ASSERT_EQ(caches.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(caches[i] == expected[i]) << "cache " << i << ": L" << caches[i].level << " "
                                          << caches[i].type << " [" << caches[i].map << "]";
}

// A cache directory perf cannot read fully makes perf drop the whole feature.
TEST(HostFeatures, CacheIsLeftOutWhenAnAttributeIsUnreadable) {
  temp_dir tree;
  fabricate_machine(tree);
  std::string index = "sys/devices/system/cpu/cpu0/cache/index0/";
  for (const char* name : {"level", "coherency_line_size", "number_of_sets", "type", "size",
                           "shared_cpu_list"})  // no ways_of_associativity
    write_file(tree, index + name, "1\n");
  feature_set features;
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));
  EXPECT_FALSE(features.has(feature_cache));
  EXPECT_TRUE(features.has(feature_cpu_topology));
}

// Per node (ascending) its number and the bitmap of its memory blocks, perf's bitmap
// repeating the bit count before the words; a node without memory has one clear bit.
TEST(HostFeatures, MemTopologyMapsMemoryBlocksPerNode) {
  feature_set features = features_of(fixture_sysfs());
  ASSERT_TRUE(features.has(feature_mem_topology));
  const auto& payload = *features.find(feature_mem_topology);
  auto in = cursor_of(payload);
  EXPECT_EQ(in.value<std::uint64_t>(), 1u);          // version
  EXPECT_EQ(in.value<std::uint64_t>(), 0x8000000u);  // block_size_bytes, hexadecimal
  ASSERT_EQ(in.value<std::uint64_t>(), 3u);
  struct node {
    std::uint64_t number, bits;
    std::vector<std::uint64_t> words;
  };
  const node expected[] = {
      {0, 66, {0b111, std::uint64_t{1} << 1}},  // blocks 0-2 and 65; memory_failure is no block
      {1, 5, {0b11000}},                        // blocks 3-4
      {2, 1, {0}},                              // no memory
  };
  for (const node& want : expected) {
    EXPECT_EQ(in.value<std::uint64_t>(), want.number);
    EXPECT_EQ(in.value<std::uint64_t>(), want.bits);
    EXPECT_EQ(in.value<std::uint64_t>(), want.bits) << "the bitmap's own size";
    for (std::uint64_t word : want.words)
      EXPECT_EQ(in.value<std::uint64_t>(), word) << "node " << want.number;
  }
  EXPECT_EQ(in.offset(), payload.size());
}

TEST(HostFeatures, MemTopologyIsLeftOutWithoutBlockSize) {
  temp_dir tree;
  fabricate_machine(tree);  // has node0 but no devices/system/memory
  feature_set features;
  arec::host::add_host_features(features, tree.file("sys"), tree.file("proc"));
  EXPECT_FALSE(features.has(feature_mem_topology));
  EXPECT_TRUE(features.has(feature_numa_topology));
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
  arec::host::add_host_features(ours);

  std::vector<feature> same{feature_hostname,    feature_osrelease,    feature_arch,
                            feature_nrcpus,      feature_cpudesc,      feature_cpuid,
                            feature_total_mem,   feature_cpu_topology, feature_cache,
                            feature_mem_topology};
  // perf record -e cpu-clock on an Intel CPU looks up intel_pt and intel_bts before its scan
  // and lists them first; arec lists every PMU in directory order.
  if (!arec::test::perf_lists_intel_auxtrace_first()) same.push_back(feature_pmu_mappings);
  for (feature bit : same) {
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
