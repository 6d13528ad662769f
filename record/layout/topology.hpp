// cpu_topology: which CPUs are online and how they group into cores, packages and NUMA nodes,
// read once from sysfs (under a root that tests and containers can redirect).
#pragma once

#include <string>
#include <vector>

namespace arec::record {

// The sibling sets of one online CPU, as sysfs lists them (ascending; normally containing the
// CPU itself). A CPU without topology files is its own core and package.
struct cpu_siblings {
  std::vector<int> core;     // SMT siblings: core_cpus_list, else thread_siblings_list
  std::vector<int> package;  // package_cpus_list, else core_siblings_list
};

struct cpu_topology {
  std::vector<int> online;             // ascending
  std::vector<int> present;            // ascending; online plus offline CPUs that exist
  std::vector<cpu_siblings> siblings;  // siblings[i] belongs to online[i]
  // numa_nodes[n] lists node n's CPUs as sysfs does (which may include offline CPUs); a gap in
  // the node numbering is an empty list. Without devices/system/node it is one node: `online`.
  std::vector<std::vector<int>> numa_nodes;

  bool is_online(int cpu) const;
  bool is_present(int cpu) const;
  // Precondition: is_online(cpu).
  const cpu_siblings& siblings_of(int cpu) const;
};

// The sysfs root every topology read uses: $AREC_SYSFS_ROOT when set and non-empty, else "/sys".
std::string sysfs_root();

// Reads ROOT/devices/system/cpu/{online,present}, each online CPU's topology/ lists and
// ROOT/devices/system/node/node*/cpulist. Offline CPUs' files are never read. A missing
// `present` means present == online. Throws std::system_error naming the file when `online`
// (or any existing file) cannot be read, std::runtime_error naming the file for a malformed list.
cpu_topology read_cpu_topology(const std::string& sysfs_root);

}  // namespace arec::record
