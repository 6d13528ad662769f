// Reading CPU topology from sysfs: the checked-in fixture machines, small trees built per test
// for edge cases, and this machine's /sys.
#include "record/layout/topology.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "host/cpu_list.hpp"
#include "support/temp_dir.hpp"

using arec::record::cpu_topology;
using arec::record::read_cpu_topology;
using arec::test::temp_dir;

namespace {

std::string fixture(const char* machine) {
  return std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/sysfs/" + machine;
}

std::vector<int> cpus(const char* list) {
  return arec::host::parse_cpu_list(list);
}

// Writes `text` and a newline to `relative` inside a sysfs-shaped `tree`, creating the
// directories on the way.
void put(const temp_dir& tree, const std::string& relative, const std::string& text) {
  std::filesystem::path path = tree.file(relative);
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << '\n';
}

// Sets (or unsets) an environment variable for one scope, restoring the old value.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~scoped_env() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST(SysfsRoot, DefaultsToSys) {
  scoped_env env("AREC_SYSFS_ROOT", nullptr);
  EXPECT_EQ(arec::record::sysfs_root(), "/sys");
}

TEST(SysfsRoot, IsReplacedByEnvironment) {
  scoped_env env("AREC_SYSFS_ROOT", "/tmp/fake-sys");
  EXPECT_EQ(arec::record::sysfs_root(), "/tmp/fake-sys");
}

TEST(SysfsRoot, EmptyEnvironmentValueMeansSys) {
  scoped_env env("AREC_SYSFS_ROOT", "");
  EXPECT_EQ(arec::record::sysfs_root(), "/sys");
}

TEST(CpuTopology, ReadsInterleavedSmtSiblingsAndNodes) {
  cpu_topology topology = read_cpu_topology(fixture("two-socket-smt"));
  EXPECT_EQ(topology.online, cpus("0-31"));
  EXPECT_EQ(topology.present, cpus("0-31"));
  ASSERT_EQ(topology.siblings.size(), 32u);
  EXPECT_EQ(topology.siblings_of(17).core, cpus("1,17"));
  EXPECT_EQ(topology.siblings_of(17).package, cpus("0-7,16-23"));
  EXPECT_EQ(topology.siblings_of(9).core, cpus("9,25"));
  EXPECT_EQ(topology.siblings_of(9).package, cpus("8-15,24-31"));
  EXPECT_EQ(topology.numa_nodes,
            (std::vector<std::vector<int>>{cpus("0-7,16-23"), cpus("8-15,24-31")}));
}

TEST(CpuTopology, ReadsSeveralNodesPerPackage) {
  cpu_topology topology = read_cpu_topology(fixture("numa-per-half-socket"));
  EXPECT_EQ(topology.online, cpus("0-15"));
  EXPECT_EQ(topology.siblings_of(5).core, cpus("5"));
  EXPECT_EQ(topology.siblings_of(12).package, cpus("8-15"));
  EXPECT_EQ(topology.numa_nodes,
            (std::vector<std::vector<int>>{cpus("0-3"), cpus("4-7"), cpus("8-11"), cpus("12-15")}));
}

TEST(CpuTopology, OfflineCpusWithoutTopologyFilesDoNotBreakParsing) {
  cpu_topology topology = read_cpu_topology(fixture("offline-holes"));
  EXPECT_EQ(topology.online, cpus("0-3,6-7"));
  EXPECT_EQ(topology.present, cpus("0-7"));
  ASSERT_EQ(topology.siblings.size(), 6u);
  EXPECT_EQ(topology.siblings_of(6).core, cpus("2,6"));
  EXPECT_EQ(topology.siblings_of(0).core, cpus("0"));
  EXPECT_FALSE(topology.is_online(4));
  EXPECT_TRUE(topology.is_present(4));
  EXPECT_FALSE(topology.is_present(10));
  // Node lists are kept as sysfs wrote them; filtering offline CPUs is the layout's job.
  EXPECT_EQ(topology.numa_nodes[0], cpus("0-1,4-5"));
}

TEST(CpuTopology, MachineWithoutNodeDirectoryIsOneNode) {
  cpu_topology topology = read_cpu_topology(fixture("no-node-dirs"));
  EXPECT_EQ(topology.numa_nodes, (std::vector<std::vector<int>>{cpus("0-3")}));
  EXPECT_EQ(topology.siblings_of(3).core, cpus("2-3"));
}

TEST(CpuTopology, FallsBackToPre58SiblingFileNames) {
  cpu_topology topology = read_cpu_topology(fixture("old-kernel-names"));
  EXPECT_EQ(topology.siblings_of(5).core, cpus("4-5"));
  EXPECT_EQ(topology.siblings_of(5).package, cpus("4-7"));
  EXPECT_EQ(topology.siblings_of(0).package, cpus("0-3"));
}

TEST(CpuTopology, PrefersNewNamesOverOldOnes) {
  temp_dir tree;
  put(tree, "devices/system/cpu/online", "0");
  put(tree, "devices/system/cpu/cpu0/topology/core_cpus_list", "0");
  put(tree, "devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1");
  put(tree, "devices/system/cpu/cpu0/topology/package_cpus_list", "0");
  put(tree, "devices/system/cpu/cpu0/topology/core_siblings_list", "0-3");
  cpu_topology topology = read_cpu_topology(tree.path());
  EXPECT_EQ(topology.siblings_of(0).core, cpus("0"));
  EXPECT_EQ(topology.siblings_of(0).package, cpus("0"));
}

TEST(CpuTopology, MissingPresentMeansOnlineAndMissingTopologyMeansOwnUnit) {
  temp_dir tree;
  put(tree, "devices/system/cpu/online", "0-1");
  cpu_topology topology = read_cpu_topology(tree.path());
  EXPECT_EQ(topology.present, cpus("0-1"));
  EXPECT_EQ(topology.siblings_of(1).core, cpus("1"));
  EXPECT_EQ(topology.siblings_of(1).package, cpus("1"));
  EXPECT_EQ(topology.numa_nodes, (std::vector<std::vector<int>>{cpus("0-1")}));
}

TEST(CpuTopology, NodeNumberingGapsAreEmptyNodes) {
  temp_dir tree;
  put(tree, "devices/system/cpu/online", "0-3");
  put(tree, "devices/system/node/node0/cpulist", "0-1");
  put(tree, "devices/system/node/node2/cpulist", "2-3");
  put(tree, "devices/system/node/online", "0,2");  // not a node directory: ignored
  cpu_topology topology = read_cpu_topology(tree.path());
  EXPECT_EQ(topology.numa_nodes, (std::vector<std::vector<int>>{cpus("0-1"), {}, cpus("2-3")}));
}

TEST(CpuTopology, MissingOnlineFileThrowsNamingIt) {
  temp_dir tree;
  put(tree, "devices/system/cpu/present", "0");
  try {
    read_cpu_topology(tree.path());
    FAIL() << "no exception";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(error.what()).find(tree.path() + "/devices/system/cpu/online"),
              std::string::npos)
        << error.what();
  }
}

TEST(CpuTopology, MalformedListThrowsNamingTheFile) {
  temp_dir tree;
  put(tree, "devices/system/cpu/online", "0");
  put(tree, "devices/system/cpu/cpu0/topology/core_cpus_list", "0-x");
  try {
    read_cpu_topology(tree.path());
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cpu0/topology/core_cpus_list: bad cpu list entry"),
              std::string::npos)
        << error.what();
  }
}

TEST(CpuTopology, ReadsThisMachine) {
  cpu_topology topology = read_cpu_topology("/sys");
  std::ifstream online_file("/sys/devices/system/cpu/online");
  std::string online_text;
  std::getline(online_file, online_text);
  ASSERT_FALSE(topology.online.empty());
  EXPECT_EQ(topology.online, cpus(online_text.c_str()));
  for (int cpu : topology.online) {
    const auto& siblings = topology.siblings_of(cpu);
    EXPECT_TRUE(std::binary_search(siblings.core.begin(), siblings.core.end(), cpu)) << cpu;
    EXPECT_TRUE(std::binary_search(siblings.package.begin(), siblings.package.end(), cpu)) << cpu;
  }
  ASSERT_FALSE(topology.numa_nodes.empty());
}
