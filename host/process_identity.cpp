#include "host/process_identity.hpp"

#include <fcntl.h>

#include <array>
#include <charconv>
#include <string>

#include "io/small_file.hpp"

namespace arec::host {

std::optional<std::uint64_t> start_time_in_stat(std::string_view stat) {
  std::size_t name_end = stat.rfind(')');
  if (name_end == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(name_end + 1);
  // Fields 3 (state) to 21 come first: 19 of them, each after a space.
  for (int field = 3; field <= 22; ++field) {
    std::size_t space = rest.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(space + 1);
  }
  std::uint64_t start = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), start);
  if (error != std::errc{} || end == rest.data()) return std::nullopt;
  return start;
}

std::optional<std::uint64_t> process_start_time(pid_t pid, const proc_root& proc) {
  std::array<char, 1024> buffer;
  std::string path = proc.path + "/" + std::to_string(pid) + "/stat";
  std::optional<std::string_view> text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  return text ? start_time_in_stat(*text) : std::nullopt;
}

}  // namespace arec::host
