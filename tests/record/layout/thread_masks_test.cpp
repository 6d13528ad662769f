// The --threads layout: every spec kind on the fixture machines (compared as --dry-run text),
// -C intersection, spec word prefixes and every error message.
#include "record/layout/thread_masks.hpp"

#include <gtest/gtest.h>

#include "host/cpu_list.hpp"

using arec::record::build_thread_layout;
using arec::record::cpu_topology;
using arec::record::format_thread_layout;
using arec::record::read_cpu_topology;
using arec::record::thread_layout;

namespace {

cpu_topology machine(const char* name) {
  return read_cpu_topology(std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/sysfs/" + name);
}

std::vector<int> cpus(const char* list) {
  return arec::host::parse_cpu_list(list);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    EXPECT_NE(end, std::string::npos) << "last line lacks '\\n'";
    if (end == std::string::npos) end = text.size();
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

// The --dry-run lines for SPEC on a machine, monitoring `monitored` (default: all online CPUs).
std::vector<std::string> dry_run(std::string_view spec, const cpu_topology& topology,
                                 std::optional<std::vector<int>> monitored = std::nullopt) {
  return lines(format_thread_layout(
      build_thread_layout(spec, monitored ? *monitored : topology.online, topology)));
}

std::vector<std::string> one_thread_per_cpu(std::span<const int> online) {
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < online.size(); ++i)
    expected.push_back("thread " + std::to_string(i) + ": cpus=" + std::to_string(online[i]) +
                       " affinity=" + std::to_string(online[i]));
  return expected;
}

// The message of the std::invalid_argument that SPEC throws ("" if none).
std::string error_of(std::string_view spec, const cpu_topology& topology,
                     std::optional<std::vector<int>> monitored = std::nullopt) {
  try {
    build_thread_layout(spec, monitored ? *monitored : topology.online, topology);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

using lines_t = std::vector<std::string>;

}  // namespace

TEST(ThreadMasks, FormatsOneCanonicalLinePerThread) {
  thread_layout layout;
  layout.threads.push_back({cpus("0-3,8"), cpus("3")});
  layout.threads.push_back({cpus("4,6"), cpus("4-7")});
  EXPECT_EQ(format_thread_layout(layout),
            "thread 0: cpus=0-3,8 affinity=3\nthread 1: cpus=4,6 affinity=4-7\n");
}

TEST(ThreadMasks, TwoSocketSmtEveryKind) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(dry_run("cpu", topology), one_thread_per_cpu(topology.online));
  lines_t cores;
  for (int core = 0; core < 16; ++core)
    cores.push_back("thread " + std::to_string(core) + ": cpus=" + std::to_string(core) + "," +
                    std::to_string(core + 16) + " affinity=" + std::to_string(core) + "," +
                    std::to_string(core + 16));
  EXPECT_EQ(dry_run("core", topology), cores);
  lines_t sockets{"thread 0: cpus=0-7,16-23 affinity=0-7,16-23",
                  "thread 1: cpus=8-15,24-31 affinity=8-15,24-31"};
  EXPECT_EQ(dry_run("package", topology), sockets);
  EXPECT_EQ(dry_run("socket", topology), sockets);
  EXPECT_EQ(dry_run("numa", topology), sockets);
  EXPECT_EQ(dry_run("0-3/3:4-7/4", topology),
            (lines_t{"thread 0: cpus=0-3 affinity=3", "thread 1: cpus=4-7 affinity=4"}));
}

TEST(ThreadMasks, NumaPerHalfSocketEveryKind) {
  cpu_topology topology = machine("numa-per-half-socket");
  EXPECT_EQ(dry_run("cpu", topology), one_thread_per_cpu(topology.online));
  EXPECT_EQ(dry_run("core", topology), one_thread_per_cpu(topology.online));
  EXPECT_EQ(dry_run("package", topology),
            (lines_t{"thread 0: cpus=0-7 affinity=0-7", "thread 1: cpus=8-15 affinity=8-15"}));
  EXPECT_EQ(dry_run("numa", topology),
            (lines_t{"thread 0: cpus=0-3 affinity=0-3", "thread 1: cpus=4-7 affinity=4-7",
                     "thread 2: cpus=8-11 affinity=8-11", "thread 3: cpus=12-15 affinity=12-15"}));
}

TEST(ThreadMasks, OfflineCpusNeverAppearInAnyKind) {
  cpu_topology topology = machine("offline-holes");
  EXPECT_EQ(dry_run("cpu", topology), one_thread_per_cpu(topology.online));
  EXPECT_EQ(dry_run("core", topology),
            (lines_t{"thread 0: cpus=0 affinity=0", "thread 1: cpus=1 affinity=1",
                     "thread 2: cpus=2,6 affinity=2,6", "thread 3: cpus=3,7 affinity=3,7"}));
  EXPECT_EQ(dry_run("package", topology), (lines_t{"thread 0: cpus=0-3,6-7 affinity=0-3,6-7"}));
  // node0's cpulist still names offline 4-5: the affinity keeps only its online CPUs.
  EXPECT_EQ(dry_run("numa", topology), (lines_t{"thread 0: cpus=0-1 affinity=0-1",
                                                "thread 1: cpus=2-3,6-7 affinity=2-3,6-7"}));
  EXPECT_EQ(dry_run("0-3/0:6-7/7", topology),
            (lines_t{"thread 0: cpus=0-3 affinity=0", "thread 1: cpus=6-7 affinity=7"}));
}

TEST(ThreadMasks, NoNodeDirectoriesIsOneNumaThread) {
  cpu_topology topology = machine("no-node-dirs");
  EXPECT_EQ(dry_run("numa", topology), (lines_t{"thread 0: cpus=0-3 affinity=0-3"}));
  EXPECT_EQ(dry_run("cpu", topology), one_thread_per_cpu(topology.online));
  EXPECT_EQ(dry_run("core", topology),
            (lines_t{"thread 0: cpus=0-1 affinity=0-1", "thread 1: cpus=2-3 affinity=2-3"}));
  EXPECT_EQ(dry_run("package", topology), (lines_t{"thread 0: cpus=0-3 affinity=0-3"}));
}

TEST(ThreadMasks, OldKernelNamesEveryKind) {
  cpu_topology topology = machine("old-kernel-names");
  EXPECT_EQ(dry_run("cpu", topology), one_thread_per_cpu(topology.online));
  EXPECT_EQ(dry_run("core", topology),
            (lines_t{"thread 0: cpus=0-1 affinity=0-1", "thread 1: cpus=2-3 affinity=2-3",
                     "thread 2: cpus=4-5 affinity=4-5", "thread 3: cpus=6-7 affinity=6-7"}));
  lines_t packages{"thread 0: cpus=0-3 affinity=0-3", "thread 1: cpus=4-7 affinity=4-7"};
  EXPECT_EQ(dry_run("package", topology), packages);
  EXPECT_EQ(dry_run("numa", topology), packages);
}

TEST(ThreadMasks, EmptySpecMeansCpu) {
  cpu_topology topology = machine("no-node-dirs");
  EXPECT_EQ(dry_run("", topology), one_thread_per_cpu(topology.online));
}

TEST(ThreadMasks, SpecWordsMatchCaseInsensitivePrefixesInPerfOrder) {
  cpu_topology topology = machine("two-socket-smt");
  lines_t per_cpu = one_thread_per_cpu(topology.online);
  lines_t per_core = dry_run("core", topology);
  lines_t per_socket = dry_run("package", topology);
  EXPECT_EQ(dry_run("c", topology), per_cpu);  // cpu is tried before core
  EXPECT_EQ(dry_run("CP", topology), per_cpu);
  EXPECT_EQ(dry_run("CPU", topology), per_cpu);
  EXPECT_EQ(dry_run("CO", topology), per_core);
  EXPECT_EQ(dry_run("Core", topology), per_core);
  EXPECT_EQ(dry_run("pack", topology), per_socket);
  EXPECT_EQ(dry_run("P", topology), per_socket);
  EXPECT_EQ(dry_run("soc", topology), per_socket);
  EXPECT_EQ(dry_run("SOCKET", topology), per_socket);
  EXPECT_EQ(dry_run("NuMa", topology), per_socket);  // one node per socket here
  EXPECT_EQ(dry_run("n", topology), per_socket);
}

TEST(ThreadMasks, CpuKindWithMonitoredSubsetMakesOneThreadPerMonitoredCpu) {
  cpu_topology topology = machine("two-socket-smt");
  thread_layout layout = build_thread_layout("cpu", cpus("1,5"), topology);
  EXPECT_EQ(format_thread_layout(layout),
            "thread 0: cpus=1 affinity=1\nthread 1: cpus=5 affinity=5\n");
  EXPECT_TRUE(layout.dropped.empty());
}

TEST(ThreadMasks, TopologyAffinityIsTheWholeOnlineUnitEvenOutsideMonitored) {
  cpu_topology topology = machine("two-socket-smt");
  thread_layout layout = build_thread_layout("package", cpus("0-3"), topology);
  EXPECT_EQ(format_thread_layout(layout), "thread 0: cpus=0-3 affinity=0-7,16-23\n");
  EXPECT_EQ(layout.dropped,
            (std::vector<std::string>{
                "no thread for package 8-15,24-31: none of its cpus is monitored"}));
}

TEST(ThreadMasks, TopologyThreadsAreOrderedByLowestMonitoredCpu) {
  cpu_topology topology = machine("two-socket-smt");
  // Core {0,16} is monitored only on 16, core {1,17} on 1: the latter comes first.
  thread_layout layout = build_thread_layout("core", std::vector<int>{16, 1}, topology);
  EXPECT_EQ(lines(format_thread_layout(layout)),
            (lines_t{"thread 0: cpus=1 affinity=1,17", "thread 1: cpus=16 affinity=0,16"}));
  EXPECT_EQ(layout.dropped.size(), 14u);
  EXPECT_EQ(layout.dropped.front(), "no thread for core 2,18: none of its cpus is monitored");
}

TEST(ThreadMasks, NumaDroppedNodeIsNoted) {
  cpu_topology topology = machine("numa-per-half-socket");
  thread_layout layout = build_thread_layout("numa", cpus("2-5"), topology);
  EXPECT_EQ(lines(format_thread_layout(layout)),
            (lines_t{"thread 0: cpus=2-3 affinity=0-3", "thread 1: cpus=4-5 affinity=4-7"}));
  EXPECT_EQ(layout.dropped,
            (std::vector<std::string>{
                "no thread for numa node 2 (cpus 8-11): none of its cpus is monitored",
                "no thread for numa node 3 (cpus 12-15): none of its cpus is monitored"}));
}

TEST(ThreadMasks, UserMasksAreIntersectedWithMonitoredButAffinityIsKept) {
  cpu_topology topology = machine("two-socket-smt");
  thread_layout layout = build_thread_layout("0-3/8:4-7/4", cpus("2-5"), topology);
  EXPECT_EQ(lines(format_thread_layout(layout)),
            (lines_t{"thread 0: cpus=2-3 affinity=8", "thread 1: cpus=4-5 affinity=4"}));
  EXPECT_TRUE(layout.dropped.empty());
}

TEST(ThreadMasks, UserMaskWithNoMonitoredCpuIsDroppedWithANote) {
  cpu_topology topology = machine("two-socket-smt");
  thread_layout layout = build_thread_layout("4-7/4:0-3/8:8-9/9", cpus("0-3,9"), topology);
  // Numbered as written among the survivors; affinity 8 lies outside -C and is kept.
  EXPECT_EQ(lines(format_thread_layout(layout)),
            (lines_t{"thread 0: cpus=0-3 affinity=8", "thread 1: cpus=9 affinity=9"}));
  EXPECT_EQ(
      layout.dropped,
      (std::vector<std::string>{"no thread for mask '4-7/4': none of its cpus is monitored"}));
}

TEST(ThreadMasks, UserAffinitiesMayOverlapAndDifferFromCpus) {
  cpu_topology topology = machine("no-node-dirs");
  EXPECT_EQ(dry_run("0/1:1/0", topology),
            (lines_t{"thread 0: cpus=0 affinity=1", "thread 1: cpus=1 affinity=0"}));
  EXPECT_EQ(dry_run("0-1/0-3:2-3/0-3", topology),
            (lines_t{"thread 0: cpus=0-1 affinity=0-3", "thread 1: cpus=2-3 affinity=0-3"}));
}

TEST(ThreadMasks, NumaCpusOutsideEveryNodeStillGetAThread) {
  cpu_topology topology;
  topology.online = cpus("0-3");
  topology.present = topology.online;
  for (int cpu : topology.online) topology.siblings.push_back({{cpu}, topology.online});
  topology.numa_nodes = {cpus("2-3"), {}, {}};
  thread_layout layout = build_thread_layout("numa", topology.online, topology);
  EXPECT_EQ(lines(format_thread_layout(layout)),
            (lines_t{"thread 0: cpus=0-1 affinity=0-1", "thread 1: cpus=2-3 affinity=2-3"}));
}

TEST(ThreadMasks, InconsistentSiblingListsStillPartitionCpus) {
  cpu_topology topology;
  topology.online = cpus("0-3");
  topology.present = topology.online;
  // cpu 1 claims 0-2 while cpu 0 claims only 0-1: no CPU may be drained twice.
  topology.siblings = {{cpus("0-1"), {}}, {cpus("0-2"), {}}, {cpus("2"), {}}, {cpus("3"), {}}};
  topology.numa_nodes = {topology.online};
  EXPECT_EQ(dry_run("core", topology),
            (lines_t{"thread 0: cpus=0-1 affinity=0-1", "thread 1: cpus=2 affinity=2",
                     "thread 2: cpus=3 affinity=3"}));
}

TEST(ThreadMasksErrors, UnknownSpecWord) {
  cpu_topology topology = machine("no-node-dirs");
  EXPECT_EQ(error_of("bogus", topology),
            "--threads: unknown spec 'bogus' (expected cpu, core, package, socket, numa or "
            "CPUS/AFFINITY[:CPUS/AFFINITY...])");
  EXPECT_NE(error_of("cores", topology).find("unknown spec 'cores'"), std::string::npos);
  EXPECT_NE(error_of("Node", topology).find("unknown spec 'Node'"), std::string::npos);
}

TEST(ThreadMasksErrors, MalformedMasks) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(error_of("0-x/3", topology), "--threads: mask '0-x/3': bad cpu list entry '0-x'");
  EXPECT_EQ(error_of("0/3-1", topology), "--threads: mask '0/3-1': reversed cpu range '3-1'");
  EXPECT_EQ(error_of("0/1/2", topology), "--threads: mask '0/1/2' has more than one '/'");
  EXPECT_EQ(error_of("0-1/1:", topology), "--threads: empty mask in '0-1/1:'");
  EXPECT_EQ(error_of("0/0::1/1", topology), "--threads: empty mask in '0/0::1/1'");
  EXPECT_EQ(error_of("/3", topology), "--threads: mask '/3': no cpus to drain before the '/'");
}

TEST(ThreadMasksErrors, MaskWithoutAffinityHalf) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(error_of("0-1", topology), "--threads: mask '0-1' has no /AFFINITY half");
  EXPECT_EQ(error_of("0-3/3:4-7", topology), "--threads: mask '4-7' has no /AFFINITY half");
}

TEST(ThreadMasksErrors, OfflineOrAbsentCpuInEitherHalf) {
  cpu_topology topology = machine("offline-holes");
  EXPECT_EQ(error_of("4/0", topology), "--threads: mask '4/0': cpu 4 is offline");
  EXPECT_EQ(error_of("0/5", topology), "--threads: mask '0/5': affinity cpu 5 is offline");
  EXPECT_EQ(error_of("8-9/0", topology), "--threads: mask '8-9/0': cpu 8 does not exist");
  EXPECT_EQ(error_of("0/3:1/10", topology),
            "--threads: mask '1/10': affinity cpu 10 does not exist");
}

TEST(ThreadMasksErrors, OfflineMonitoredCpu) {
  cpu_topology topology = machine("offline-holes");
  EXPECT_EQ(error_of("cpu", topology, cpus("3-4")), "--threads: monitored cpu 4 is offline");
  EXPECT_EQ(error_of("core", topology, cpus("9")), "--threads: monitored cpu 9 does not exist");
}

TEST(ThreadMasksErrors, OverlappingMonitoredHalves) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(error_of("0-3/0:4-5/4:3-4/3", topology),
            "--threads: mask '3-4/3' overlaps mask '0-3/0' on cpus 3");
  // Overlap is an error even where -C would have separated the masks.
  EXPECT_EQ(error_of("0-3/0:2-5/4", topology, cpus("0-1,4-5")),
            "--threads: mask '2-5/4' overlaps mask '0-3/0' on cpus 2-3");
}

TEST(ThreadMasksErrors, AffinityWithNoOnlineCpu) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(error_of("0-3/", topology), "--threads: mask '0-3/': affinity has no online cpu");
}

TEST(ThreadMasksErrors, SpecLeavingNoThread) {
  cpu_topology topology = machine("two-socket-smt");
  EXPECT_EQ(error_of("8-15/8", topology, cpus("0-3")),
            "--threads: '8-15/8' leaves no streaming thread for monitored cpus '0-3'");
  EXPECT_EQ(error_of("", topology, std::vector<int>{}),
            "--threads: 'cpu' leaves no streaming thread for monitored cpus ''");
}

TEST(ThreadMasks, ThisMachineGivesOneCpuThreadPerOnlineCpu) {
  cpu_topology topology = read_cpu_topology("/sys");
  thread_layout layout = build_thread_layout("cpu", topology.online, topology);
  ASSERT_EQ(layout.threads.size(), topology.online.size());
  for (std::size_t i = 0; i < layout.threads.size(); ++i) {
    EXPECT_EQ(layout.threads[i].cpus, std::vector<int>{topology.online[i]});
    EXPECT_EQ(layout.threads[i].affinity, std::vector<int>{topology.online[i]});
  }
  EXPECT_EQ(lines(format_thread_layout(layout)), one_thread_per_cpu(topology.online));
}
