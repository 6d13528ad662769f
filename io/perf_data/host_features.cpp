#include "io/perf_data/host_features.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "io/cpu_list.hpp"
#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::io::perf {
namespace {

// The whole text of a small /proc or sysfs file, or nullopt when it cannot be read (absent on
// this kernel, an offline CPU's topology): callers then leave the feature out, as perf does.
std::optional<std::string> read_text(const std::string& path) {
  unique_fd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!fd) return std::nullopt;
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = retry_on_eintr([&] { return ::read(fd.get(), buffer, sizeof buffer); });
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
    if (!space) out += c;
    else if (!in_space) out += ' ';
    in_space = space;
  }
  return out;
}

std::vector<std::byte> string_payload(std::string_view text) {
  feature_encoder out;
  out.string(text);
  return out.take();
}

// CPU numbers from a sysfs list file; nullopt when absent or malformed.
std::optional<std::vector<int>> read_cpu_list(const std::string& path) {
  auto text = read_text(path);
  if (!text) return std::nullopt;
  try {
    return parse_cpu_list(*text);
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
  feature_encoder out;
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
  feature_encoder out;
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

}  // namespace

void add_host_features(feature_set& features, std::string_view sysfs_root,
                       std::string_view proc_root) {
  struct utsname host {};
  check_syscall(::uname(&host), "uname");
  features.set(feature_hostname, string_payload(host.nodename));
  features.set(feature_osrelease, string_payload(host.release));
  features.set(feature_version, version_payload());
  features.set(feature_arch, string_payload(host.machine));

  std::string cpu_root = std::string(sysfs_root) + "/devices/system/cpu/";
  if (auto cpus = read_cpu_counts(cpu_root)) {
    feature_encoder nrcpus;
    nrcpus.u32(static_cast<std::uint32_t>(cpus->avail));
    nrcpus.u32(static_cast<std::uint32_t>(cpus->online));
    features.set(feature_nrcpus, nrcpus.take());
    if (auto topology = cpu_topology_payload(cpu_root, *cpus, host.machine))
      features.set(feature_cpu_topology, std::move(*topology));
  }

  std::string proc{proc_root};
  if (auto cpuinfo = read_text(proc + "/cpuinfo")) {
    if (auto model = cpuinfo_value(*cpuinfo, "model name"))
      features.set(feature_cpudesc, string_payload(squash_spaces(*model)));
    auto vendor = cpuinfo_value(*cpuinfo, "vendor_id");
    auto family = cpuinfo_value(*cpuinfo, "cpu family");
    auto model = cpuinfo_value(*cpuinfo, "model");
    auto stepping = cpuinfo_value(*cpuinfo, "stepping");
    if (vendor && family && model && stepping)
      features.set(feature_cpuid,
                   string_payload(*vendor + "," + *family + "," + *model + "," + *stepping));
  }

  if (auto meminfo = read_text(proc + "/meminfo")) {
    if (auto total = cpuinfo_value(*meminfo, "MemTotal")) {
      if (auto kb = parse_integer(*total)) {
        feature_encoder out;
        out.u64(static_cast<std::uint64_t>(*kb));
        features.set(feature_total_mem, out.take());
      }
    }
  }

  if (auto numa = numa_topology_payload(std::string(sysfs_root) + "/devices/system/node/"))
    features.set(feature_numa_topology, std::move(*numa));
}

}  // namespace arec::io::perf
