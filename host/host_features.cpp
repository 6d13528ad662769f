#include "host/host_features.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "base/system_error.hpp"
#include "base/trimmed.hpp"
#include "host/cpu_list.hpp"
#include "io/dir_reader.hpp"
#include "io/small_file.hpp"
#include "io/unique_fd.hpp"

namespace arec::host {
namespace {

// The whole text of a small /proc or sysfs file, or nullopt when it cannot be read (absent on
// this kernel, an offline CPU's topology): callers then leave the feature out, as perf does.
std::optional<std::string> read_text(const std::string& path) {
  io::unique_fd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!fd) return std::nullopt;
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = base::retry_on_eintr([&] { return ::read(fd.get(), buffer, sizeof buffer); });
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// The first line of `text`, as perf keeps it after cutting at the newline.
std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

std::optional<std::string> read_line(const std::string& path) {
  auto text = read_text(path);
  if (!text) return std::nullopt;
  return first_line(*text);
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

// The value of the first "key<blanks>: value" line of /proc/cpuinfo with exactly this key,
// without the ": " separator and the newline.
std::optional<std::string> cpuinfo_value(std::string_view cpuinfo, std::string_view key) {
  std::size_t pos = 0;
  while (pos < cpuinfo.size()) {
    std::size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
      name.remove_suffix(1);
    if (name != key) continue;
    std::string_view value = line.substr(colon + 1);
    if (value.size() > 1 && value.front() == ' ') value.remove_prefix(1);
    return std::string(value);
  }
  return std::nullopt;
}

// perf squashes each run of whitespace in the CPU brand string into one space.
std::string squash_spaces(std::string_view text) {
  std::string out;
  bool in_space = false;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (!space)
      out += c;
    else if (!in_space)
      out += ' ';
    in_space = space;
  }
  return out;
}

std::vector<std::byte> string_payload(std::string_view text) {
  perf_data::feature_encoder out;
  out.string(text);
  return out.take();
}

// CPU numbers from a sysfs list file; nullopt when absent or malformed.
std::optional<std::vector<int>> read_cpu_list(const std::string& path) {
  auto text = read_text(path);
  if (!text) return std::nullopt;
  try {
    return host::parse_cpu_list(*text);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void add_unique(std::vector<std::string>& list, std::string value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

std::optional<std::string> read_first_of(const std::string& dir, const char* preferred,
                                         const char* fallback) {
  if (auto line = read_line(dir + preferred)) return line;
  return read_line(dir + fallback);
}

std::uint32_t topology_id(const std::string& cpu_dir, const char* name) {
  // perf records -1 for a CPU whose topology it cannot read (an offline CPU).
  auto text = read_text(cpu_dir + "topology/" + name);
  auto value = text ? parse_integer(*text) : std::nullopt;
  return static_cast<std::uint32_t>(value.value_or(-1));
}

struct cpu_counts {
  int avail;   // max present CPU + 1
  int online;  // number of online CPUs
  std::vector<int> online_cpus;
};

std::optional<cpu_counts> read_cpu_counts(const std::string& cpu_root) {
  auto present = read_cpu_list(cpu_root + "present");
  auto online = read_cpu_list(cpu_root + "online");
  if (!present || present->empty() || !online) return std::nullopt;
  return cpu_counts{present->back() + 1, static_cast<int>(online->size()), *online};
}

std::optional<std::vector<std::byte>> cpu_topology_payload(const std::string& cpu_root,
                                                           const cpu_counts& cpus,
                                                           std::string_view machine) {
  bool has_die = (machine.starts_with("x86_64") || machine.starts_with("s390x")) &&
                 read_text(cpu_root + "cpu0/topology/die_cpus_list").has_value();
  std::vector<std::string> packages, dies, cores;
  for (int cpu : cpus.online_cpus) {
    if (cpu >= cpus.avail) continue;
    std::string dir = cpu_root + "cpu" + std::to_string(cpu) + "/topology/";
    auto package = read_first_of(dir, "package_cpus_list", "core_siblings_list");
    auto core = read_first_of(dir, "core_cpus_list", "thread_siblings_list");
    if (!package || !core) return std::nullopt;
    add_unique(packages, std::move(*package));
    if (has_die) {
      auto die = read_line(dir + "die_cpus_list");
      if (!die) return std::nullopt;
      add_unique(dies, std::move(*die));
    }
    add_unique(cores, std::move(*core));
  }
  perf_data::feature_encoder out;
  out.string_list(packages);
  out.string_list(cores);
  for (int cpu = 0; cpu < cpus.avail; ++cpu) {
    std::string dir = cpu_root + "cpu" + std::to_string(cpu) + "/";
    out.u32(topology_id(dir, "core_id"));
    out.u32(topology_id(dir, "physical_package_id"));
  }
  if (has_die) {
    out.string_list(dies);
    for (int cpu = 0; cpu < cpus.avail; ++cpu)
      out.u32(topology_id(cpu_root + "cpu" + std::to_string(cpu) + "/", "die_id"));
  }
  return out.take();
}

// "Node 0 MemTotal:  5073100 kB" -> 5073100 for field "MemTotal:".
std::optional<std::uint64_t> node_meminfo_value(std::string_view meminfo, std::string_view field) {
  std::size_t at = meminfo.find(std::string(" ") + std::string(field));
  if (at == std::string_view::npos) return std::nullopt;
  auto value = parse_integer(meminfo.substr(at + 1 + field.size()));
  if (!value) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

std::optional<std::vector<std::byte>> numa_topology_payload(const std::string& node_root) {
  auto nodes = read_cpu_list(node_root + "online");  // node lists use the CPU-list syntax
  if (!nodes || nodes->empty()) return std::nullopt;
  perf_data::feature_encoder out;
  out.u32(static_cast<std::uint32_t>(nodes->size()));
  for (int node : *nodes) {
    std::string dir = node_root + "node" + std::to_string(node) + "/";
    auto meminfo = read_text(dir + "meminfo");
    auto cpulist = read_line(dir + "cpulist");
    if (!meminfo || !cpulist) return std::nullopt;
    auto total = node_meminfo_value(*meminfo, "MemTotal:");
    auto free = node_meminfo_value(*meminfo, "MemFree:");
    if (!total || !free) return std::nullopt;
    out.u32(static_cast<std::uint32_t>(node));
    out.u64(*total);
    out.u64(*free);
    out.string(*cpulist);
  }
  return out.take();
}

// sysfs attributes are at most a page long, so one buffer of this size holds any of them.
constexpr std::size_t attribute_size = 4096;

std::string_view skip_blanks(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  return text;
}

// The number a name such as "node12" or "memory7" ends in after `prefix`, as perf's
// sscanf("node%u") takes it (trailing characters ignored); nullopt when no digit follows.
std::optional<std::uint32_t> numbered_name(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

// fscanf("%u") of a small sysfs file: leading blanks, then digits.
std::optional<std::uint32_t> read_unsigned(int dir_fd, const char* path) {
  char buffer[64];
  auto text = io::read_small_file(dir_fd, path, buffer);
  if (!text) return std::nullopt;
  std::string_view digits = skip_blanks(*text);
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

// PMU_MAPPINGS: u32 count, then per PMU u32 type and its name as a perf string, in the order
// perf's first scan of /sys/bus/event_source/devices meets them (directory order). perf skips
// an entry without a readable numeric `type`, and a "cpu_*" entry that is not a hybrid core
// PMU (no `cpus` file starting with a CPU number).
std::optional<std::vector<std::byte>> pmu_mappings_payload(const std::string& sysfs_root) {
  std::string root = sysfs_root + "/bus/event_source/devices";
  io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, root.c_str());
  if (!directory) return std::nullopt;
  io::dir_reader entries{std::move(directory)};
  perf_data::feature_encoder body;
  std::uint32_t count = 0;
  std::string path;  // reused: no allocation per entry once it has grown
  while (auto entry = entries.next()) {
    if (entry->name.starts_with("cpu_")) {
      path.assign(entry->name).append("/cpus");
      if (!read_unsigned(entries.fd(), path.c_str())) continue;
    }
    path.assign(entry->name).append("/type");
    auto type = read_unsigned(entries.fd(), path.c_str());
    if (!type) continue;
    body.u32(*type);
    body.string(entry->name);
    ++count;
  }
  perf_data::feature_encoder out;
  out.u32(count);
  out.bytes(body.take());
  return out.take();
}

// The last number of a sysfs list such as "0-7,16-23", as perf's get_max_num reads it: the
// highest CPU even beyond what parse_cpu_list accepts.
std::optional<int> highest_listed(const std::string& path) {
  char buffer[attribute_size];
  auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  if (!text) return std::nullopt;
  std::string_view list = *text;
  std::size_t separator = list.find_last_of(",-");
  if (separator != std::string_view::npos) list.remove_prefix(separator + 1);
  list = skip_blanks(list);
  int value = 0;
  auto [end, ec] = std::from_chars(list.data(), list.data() + list.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

// One distinct cache as perf's cpu_cache_level keeps it.
struct cache_level {
  std::uint32_t level = 0;
  std::uint32_t line_size = 0;
  std::uint32_t sets = 0;
  std::uint32_t ways = 0;
  std::string type;
  std::string size;
  std::string map;
  friend bool operator==(const cache_level&, const cache_level&) = default;
};

// sysfs__read_int(): atoi of the file's text, so text without a number reads as 0; only an
// unreadable or empty file fails.
std::optional<std::uint32_t> read_atoi(int dir_fd, const char* path) {
  char buffer[64];
  auto text = io::read_small_file(dir_fd, path, buffer);
  if (!text || text->empty()) return std::nullopt;
  std::string_view digits = skip_blanks(*text);
  if (digits.starts_with('+')) digits.remove_prefix(1);
  int value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return static_cast<std::uint32_t>(value);
}

std::optional<std::string> read_trimmed(int dir_fd, const char* path) {
  char buffer[attribute_size];
  auto text = io::read_small_file(dir_fd, path, buffer);
  if (!text) return std::nullopt;
  return std::string(base::trimmed(*text));
}

// One cpuN/cache/indexM directory; nullopt when one of its files cannot be read (perf then
// writes no CACHE at all).
std::optional<cache_level> read_cache_level(int index_fd) {
  auto level = read_atoi(index_fd, "level");
  auto line_size = read_atoi(index_fd, "coherency_line_size");
  auto sets = read_atoi(index_fd, "number_of_sets");
  auto ways = read_atoi(index_fd, "ways_of_associativity");
  auto type = read_trimmed(index_fd, "type");
  auto size = read_trimmed(index_fd, "size");
  auto map = read_trimmed(index_fd, "shared_cpu_list");
  if (!level || !line_size || !sets || !ways || !type || !size || !map) return std::nullopt;
  cache_level cache{*level, *line_size, *sets, *ways, {}, {}, {}};
  cache.type = std::move(*type);
  cache.size = std::move(*size);
  cache.map = std::move(*map);
  return cache;
}

// CACHE: u32 version 1, u32 count, then per distinct cache u32 level, line size, sets, ways
// and the strings type, size, shared CPU list. perf walks index0..index3 of every possible
// CPU (cpu__max_cpu: the highest of `possible` + 1, or 4096 without it), stops a CPU at its
// first missing index (offline CPUs have none), keeps the first of equal caches and sorts
// them by level with glibc's qsort, a merge sort that keeps that order within a level. A
// machine without cache directories (many VMs) gets an empty list, as from perf.
std::optional<std::vector<std::byte>> cache_payload(const std::string& cpu_root) {
  constexpr int max_cache_indexes = 4;  // perf's MAX_CACHE_LVL
  int cpu_count = highest_listed(cpu_root + "possible").value_or(host::max_cpus - 1) + 1;
  io::unique_fd cpu_dir = io::open_directory_if_present(AT_FDCWD, cpu_root.c_str());
  if (!cpu_dir) return std::nullopt;
  std::vector<cache_level> caches;
  std::string path;
  for (int cpu = 0; cpu < cpu_count; ++cpu) {
    for (int index = 0; index < max_cache_indexes; ++index) {
      path.assign("cpu").append(std::to_string(cpu)).append("/cache/index");
      path.append(std::to_string(index));
      io::unique_fd index_dir = io::open_directory_if_present(cpu_dir.get(), path.c_str());
      if (!index_dir) break;
      auto cache = read_cache_level(index_dir.get());
      if (!cache) return std::nullopt;
      if (std::find(caches.begin(), caches.end(), *cache) == caches.end())
        caches.push_back(std::move(*cache));
    }
  }
  std::stable_sort(caches.begin(), caches.end(),
                   [](const cache_level& a, const cache_level& b) { return a.level < b.level; });
  perf_data::feature_encoder out;
  out.u32(1);
  out.u32(static_cast<std::uint32_t>(caches.size()));
  for (const cache_level& cache : caches) {
    for (std::uint32_t value : {cache.level, cache.line_size, cache.sets, cache.ways})
      out.u32(value);
    out.string(cache.type);
    out.string(cache.size);
    out.string(cache.map);
  }
  return out.take();
}

// block_size_bytes as perf's sysfs__read_xll reads it: hexadecimal with or without "0x",
// text without digits is 0; an empty file or an overflow fails.
std::optional<std::uint64_t> read_hex(const std::string& path) {
  char buffer[64];
  auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  if (!text || text->empty()) return std::nullopt;
  std::string_view digits = skip_blanks(*text);
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  return value;
}

struct memory_node {
  std::uint64_t node = 0;
  std::uint64_t bits = 0;            // highest memory block + 1; 1 for a node without memory
  std::vector<std::uint64_t> words;  // bit N set: memory block N belongs to the node
};

// The memoryN entries of one nodeN directory, as a bitmap of block numbers.
memory_node read_memory_node(io::unique_fd directory, std::uint32_t node) {
  io::dir_reader entries{std::move(directory)};
  memory_node result{node, 1, {}};
  while (auto entry = entries.next()) {
    auto block = numbered_name(entry->name, "memory");
    if (!block) continue;
    result.bits = std::max<std::uint64_t>(result.bits, std::uint64_t{*block} + 1);
    std::size_t word = *block / 64;
    if (word >= result.words.size()) result.words.resize(word + 1, 0);
    result.words[word] |= std::uint64_t{1} << (*block % 64);
  }
  result.words.resize((result.bits + 63) / 64, 0);
  return result;
}

// MEM_TOPOLOGY: u64 version 1, u64 block size (memory/block_size_bytes), u64 count, then per
// node (ascending) u64 node, u64 bits and perf's bitmap: u64 bits again, then the u64 words.
// perf takes every nodeN directory, online or not, and gives up beyond 2000 nodes.
std::optional<std::vector<std::byte>> mem_topology_payload(const std::string& sysfs_root) {
  constexpr std::size_t max_memory_nodes = 2000;  // perf's MAX_MEMORY_NODES
  auto block_size = read_hex(sysfs_root + "/devices/system/memory/block_size_bytes");
  if (!block_size) return std::nullopt;
  std::string root = sysfs_root + "/devices/system/node";
  io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, root.c_str());
  if (!directory) return std::nullopt;
  io::dir_reader entries{std::move(directory)};
  std::vector<memory_node> nodes;
  while (auto entry = entries.next()) {
    auto node = numbered_name(entry->name, "node");
    if (!node) continue;
    if (nodes.size() >= max_memory_nodes) return std::nullopt;
    io::unique_fd node_dir = io::open_directory_if_present(entries.fd(), entry->name.data());
    if (!node_dir) return std::nullopt;
    nodes.push_back(read_memory_node(std::move(node_dir), *node));
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const memory_node& a, const memory_node& b) { return a.node < b.node; });
  perf_data::feature_encoder out;
  out.u64(1);
  out.u64(*block_size);
  out.u64(nodes.size());
  for (const memory_node& node : nodes) {
    out.u64(node.node);
    out.u64(node.bits);
    out.u64(node.bits);
    for (std::uint64_t word : node.words) out.u64(word);
  }
  return out.take();
}

// Stores what `build` returns. An unexpected sysfs failure (neither absent nor denied) leaves
// the feature out, as perf's failed write does: the header is written after the recording,
// which must not be lost over one odd file.
template <typename Build>
void set_if_readable(perf_data::feature_set& features, perf_data::feature bit, Build build) {
  std::optional<std::vector<std::byte>> payload;
  try {
    payload = build();
  } catch (const std::system_error&) {
    return;
  }
  if (payload) features.set(bit, std::move(*payload));
}

}  // namespace

void add_host_features(perf_data::feature_set& features, std::string_view sysfs_root,
                       std::string_view proc_root) {
  struct utsname host {};
  base::check_syscall(::uname(&host), "uname");
  features.set(perf_data::feature_hostname, string_payload(host.nodename));
  features.set(perf_data::feature_osrelease, string_payload(host.release));
  features.set(perf_data::feature_version, perf_data::version_payload());
  features.set(perf_data::feature_arch, string_payload(host.machine));

  std::string cpu_root = std::string(sysfs_root) + "/devices/system/cpu/";
  if (auto cpus = read_cpu_counts(cpu_root)) {
    perf_data::feature_encoder nrcpus;
    nrcpus.u32(static_cast<std::uint32_t>(cpus->avail));
    nrcpus.u32(static_cast<std::uint32_t>(cpus->online));
    features.set(perf_data::feature_nrcpus, nrcpus.take());
    if (auto topology = cpu_topology_payload(cpu_root, *cpus, host.machine))
      features.set(perf_data::feature_cpu_topology, std::move(*topology));
  }

  std::string proc{proc_root};
  if (auto cpuinfo = read_text(proc + "/cpuinfo")) {
    if (auto model = cpuinfo_value(*cpuinfo, "model name"))
      features.set(perf_data::feature_cpudesc, string_payload(squash_spaces(*model)));
    auto vendor = cpuinfo_value(*cpuinfo, "vendor_id");
    auto family = cpuinfo_value(*cpuinfo, "cpu family");
    auto model = cpuinfo_value(*cpuinfo, "model");
    auto stepping = cpuinfo_value(*cpuinfo, "stepping");
    if (vendor && family && model && stepping)
      features.set(perf_data::feature_cpuid,
                   string_payload(*vendor + "," + *family + "," + *model + "," + *stepping));
  }

  if (auto meminfo = read_text(proc + "/meminfo")) {
    if (auto total = cpuinfo_value(*meminfo, "MemTotal")) {
      if (auto kb = parse_integer(*total)) {
        perf_data::feature_encoder out;
        out.u64(static_cast<std::uint64_t>(*kb));
        features.set(perf_data::feature_total_mem, out.take());
      }
    }
  }

  if (auto numa = numa_topology_payload(std::string(sysfs_root) + "/devices/system/node/"))
    features.set(perf_data::feature_numa_topology, std::move(*numa));

  std::string sysfs{sysfs_root};
  set_if_readable(features, perf_data::feature_pmu_mappings,
                  [&] { return pmu_mappings_payload(sysfs); });
  set_if_readable(features, perf_data::feature_cache, [&] { return cache_payload(cpu_root); });
  set_if_readable(features, perf_data::feature_mem_topology,
                  [&] { return mem_topology_payload(sysfs); });
}

}  // namespace arec::host
