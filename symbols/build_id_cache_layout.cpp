#include "symbols/build_id_cache_layout.hpp"

#include <cstdlib>
#include <optional>
#include <sstream>
#include <system_error>

#include "base/trimmed.hpp"
#include "io/small_file.hpp"

namespace arec::symbols {
namespace {

// The "dir" key of the [buildid] section of a perfconfig file (git-config syntax, as perf reads
// it: a value may be quoted; '#' and ';' start comments).
std::optional<std::string> perfconfig_buildid_dir(const std::string& path) {
  std::optional<std::string> text;
  try {
    text = io::read_text_if_exists(path);
  } catch (const std::system_error&) {
    return std::nullopt;  // unreadable: perf goes on without it too
  }
  if (!text) return std::nullopt;
  std::istringstream lines{*text};
  std::optional<std::string> dir;
  bool in_section = false;
  for (std::string line; std::getline(lines, line);) {
    line = std::string(base::trimmed(line.substr(0, line.find_first_of("#;"))));
    if (line.starts_with('[')) {
      in_section = base::trimmed(line.substr(1, line.find(']') - 1)) == "buildid";
      continue;
    }
    auto equals = line.find('=');
    if (!in_section || equals == std::string::npos ||
        base::trimmed(line.substr(0, equals)) != "dir")
      continue;
    std::string value{base::trimmed(line.substr(equals + 1))};
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    dir = value;
  }
  return dir;
}

// "usr/bin/ls" for "/usr/bin/ls", "[vdso]" for "[vdso]".
std::string relative_name(const std::string& name) {
  return name.substr(name.starts_with('/') ? 1 : 0);
}

}  // namespace

std::string default_build_id_dir() {
  const char* home = std::getenv("HOME");
  std::string user_config = std::string{home ? home : ""} + "/.perfconfig";
  if (auto dir = perfconfig_buildid_dir(user_config)) return *dir;
  if (auto dir = perfconfig_buildid_dir("/etc/perfconfig")) return *dir;
  return std::string{home ? home : ""} + "/.debug";
}

std::string build_id_link_name(const std::string& hex) {
  return ".build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
}

std::string build_id_link_path(const std::string& root, const std::string& hex) {
  return root + "/" + build_id_link_name(hex);
}

std::string build_id_object_dir(const std::string& root, const std::string& name,
                                const std::string& hex) {
  return root + "/" + relative_name(name) + "/" + hex;
}

std::string build_id_link_target(const std::string& name, const std::string& hex) {
  return "../../" + relative_name(name) + "/" + hex;
}

}  // namespace arec::symbols
