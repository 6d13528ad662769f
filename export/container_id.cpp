#include "export/container_id.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace arec::exporting {
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

}  // namespace arec::exporting
