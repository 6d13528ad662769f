#include "record/layout/topology.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "base/system_error.hpp"
#include "host/cpu_list.hpp"
#include "io/dir_reader.hpp"
#include "io/small_file.hpp"
#include "io/unique_fd.hpp"

namespace arec::record {
namespace {

// Node numbers beyond this are not a real machine's (the kernel's MAX_NUMNODES is at most 1024).
constexpr int max_numa_nodes = 4096;

std::vector<int> parse_list_file(const std::string& path, std::string_view text) {
  try {
    return host::parse_cpu_list(text);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
}

// The CPU list in the first of `names` that exists under DIR; nullopt when none does.
std::optional<std::vector<int>> read_first_list(const std::string& dir,
                                                std::initializer_list<const char*> names) {
  for (const char* name : names) {
    std::string path = dir + name;
    if (auto text = io::read_text_if_exists(path)) return parse_list_file(path, *text);
  }
  return std::nullopt;
}

std::vector<int> read_required_list(const std::string& path) {
  auto text = io::read_text_if_exists(path);
  if (!text) base::throw_system_error(ENOENT, "open", path);
  return parse_list_file(path, *text);
}

// "node12" -> 12; nullopt for every other directory entry (has_cpu, online, power, ...).
std::optional<int> node_number(std::string_view name) {
  if (!name.starts_with("node") || name.size() == 4) return std::nullopt;
  name.remove_prefix(4);
  int node = -1;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), node);
  if (ec != std::errc{} || end != name.data() + name.size()) return std::nullopt;
  return node;
}

std::vector<std::vector<int>> read_numa_nodes(const std::string& root,
                                              const std::vector<int>& online) {
  std::string node_dir = root + "/devices/system/node";
  io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, node_dir.c_str());
  // Kernels without CONFIG_NUMA have no node directory: the machine is one node.
  if (!directory) return {online};
  io::dir_reader entries{std::move(directory)};
  std::vector<std::vector<int>> nodes;
  while (auto entry = entries.next()) {
    auto node = node_number(entry->name);
    if (!node) continue;
    std::string path = node_dir + '/' + std::string(entry->name) + "/cpulist";
    if (*node >= max_numa_nodes)
      throw std::runtime_error(path + ": node number beyond " + std::to_string(max_numa_nodes));
    if (static_cast<std::size_t>(*node) >= nodes.size()) nodes.resize(*node + 1);
    if (auto text = io::read_text_if_exists(path)) nodes[*node] = parse_list_file(path, *text);
  }
  if (nodes.empty()) return {online};
  return nodes;
}

}  // namespace

bool cpu_topology::is_online(int cpu) const {
  return std::binary_search(online.begin(), online.end(), cpu);
}

bool cpu_topology::is_present(int cpu) const {
  return std::binary_search(present.begin(), present.end(), cpu);
}

const cpu_siblings& cpu_topology::siblings_of(int cpu) const {
  auto it = std::lower_bound(online.begin(), online.end(), cpu);
  return siblings[static_cast<std::size_t>(it - online.begin())];
}

std::string sysfs_root() {
  const char* root = std::getenv("AREC_SYSFS_ROOT");
  return root && *root ? root : "/sys";
}

cpu_topology read_cpu_topology(const std::string& sysfs_root) {
  cpu_topology topology;
  std::string cpu_dir = sysfs_root + "/devices/system/cpu/";
  topology.online = read_required_list(cpu_dir + "online");
  topology.present = read_first_list(cpu_dir, {"present"}).value_or(topology.online);
  // Offline CPUs are skipped: the kernel removes their topology/ directory.
  topology.siblings.reserve(topology.online.size());
  for (int cpu : topology.online) {
    std::string dir = cpu_dir + "cpu" + std::to_string(cpu) + "/topology/";
    topology.siblings.push_back(cpu_siblings{
        .core = read_first_list(dir, {"core_cpus_list", "thread_siblings_list"})
                    .value_or(std::vector<int>{cpu}),
        .package = read_first_list(dir, {"package_cpus_list", "core_siblings_list"})
                       .value_or(std::vector<int>{cpu}),
    });
  }
  topology.numa_nodes = read_numa_nodes(sysfs_root, topology.online);
  return topology;
}

}  // namespace arec::record
