#include "host/container_id.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "io/small_file.hpp"

namespace arec::host {
namespace {

constexpr std::size_t id_length = 64;

bool is_id(std::string_view text) {
  return text.size() == id_length && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// The id in one path component, "" for none.
std::string_view id_in_component(std::string_view name) {
  if (is_id(name)) return name;
  constexpr std::array<std::string_view, 4> prefixes{"docker-", "cri-containerd-", "crio-",
                                                     "libpod-"};
  constexpr std::string_view suffix = ".scope";
  if (!name.ends_with(suffix)) return {};
  name.remove_suffix(suffix.size());
  for (std::string_view prefix : prefixes)
    if (name.starts_with(prefix) && is_id(name.substr(prefix.size())))
      return name.substr(prefix.size());
  return {};
}

}  // namespace

std::string_view container_id_in(std::string_view cgroup_path) {
  while (!cgroup_path.empty()) {
    std::size_t slash = cgroup_path.rfind('/');
    std::string_view last =
        slash == std::string_view::npos ? cgroup_path : cgroup_path.substr(slash + 1);
    if (std::string_view id = id_in_component(last); !id.empty()) return id;
    if (slash == std::string_view::npos) break;
    cgroup_path = cgroup_path.substr(0, slash);
  }
  return {};
}

std::string_view container_id_in_proc_cgroup(std::string_view text) {
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    std::size_t path = line.find(':', line.find(':') + 1);  // after "ID:CONTROLLERS:"
    if (path == std::string_view::npos) continue;
    if (std::string_view id = container_id_in(line.substr(path + 1)); !id.empty()) return id;
  }
  return {};
}

std::string container_id_of_process(pid_t pid, const proc_root& proc) {
  std::array<char, 16384> buffer;  // v1 lists every hierarchy: a few KiB with long paths
  std::string path = proc.path + "/" + std::to_string(pid) + "/cgroup";
  std::optional<std::string_view> text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  return text ? std::string{container_id_in_proc_cgroup(*text)} : std::string{};
}

}  // namespace arec::host
