#include "host/cgroup_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/limits.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>

#include "base/system_error.hpp"
#include "io/dir_reader.hpp"
#include "io/small_file.hpp"

namespace arec::host {
namespace {

// The next whitespace-separated field of a /proc/mounts line.
std::string_view next_field(std::string_view& line) {
  std::size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  std::string_view field = line.substr(0, line.find(' '));
  line.remove_prefix(field.size());
  return field;
}

bool names_option(std::string_view options, std::string_view wanted) {
  while (!options.empty()) {
    std::string_view option = options.substr(0, options.find(','));
    if (option == wanted) return true;
    options.remove_prefix(std::min(options.size(), option.size() + 1));
  }
  return false;
}

// Returns false when the cgroup is gone (removed since it was listed).
bool try_cgroup_id(const char* path, std::uint64_t& id) {
  // A file_handle followed by room for the 8 bytes of a cgroup's handle.
  alignas(file_handle) std::byte storage[sizeof(file_handle) + sizeof id]{};
  auto* handle = reinterpret_cast<file_handle*>(storage);
  handle->handle_bytes = sizeof id;
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, path, handle, &mount_id, 0) != 0) {
    if (errno == ENOENT) return false;
    base::throw_errno("name_to_handle_at", path);
  }
  std::memcpy(&id, storage + sizeof(file_handle), sizeof id);
  return true;
}

void walk_below(std::string& path, std::size_t mount_length,
                const std::function<void(std::uint64_t, std::string_view)>& visit) {
  std::uint64_t id = 0;
  if (!try_cgroup_id(path.c_str(), id)) return;
  visit(id, std::string_view(path).substr(mount_length));
  io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, path.c_str());
  if (!directory) return;
  // One listing buffer per directory level (cgroups are few), none per entry.
  auto children = std::make_unique<io::dir_reader>(std::move(directory));
  std::size_t length = path.size();
  while (auto entry = children->next()) {
    if (entry->type != DT_DIR) continue;
    std::size_t separator = path.back() == '/' ? 0 : 1;
    if (length + separator + entry->name.size() >= PATH_MAX) continue;
    if (separator) path += '/';
    path += entry->name;
    walk_below(path, mount_length, visit);
    path.resize(length);
  }
}

}  // namespace

std::optional<std::string> perf_event_cgroup_mount(std::string_view proc_mounts) {
  std::optional<std::string> version2;
  while (!proc_mounts.empty()) {
    std::size_t end = proc_mounts.find('\n');
    std::string_view line = proc_mounts.substr(0, end);
    proc_mounts.remove_prefix(end == std::string_view::npos ? proc_mounts.size() : end + 1);
    next_field(line);  // the device
    std::string_view mount = next_field(line);
    std::string_view type = next_field(line);
    std::string_view options = next_field(line);
    if (type == "cgroup" && names_option(options, "perf_event")) return std::string(mount);
    if (type == "cgroup2") version2 = std::string(mount);
  }
  return version2;
}

std::optional<std::string> perf_event_cgroup_mount() {
  std::optional<std::string> mounts = io::read_text_if_exists("/proc/mounts");
  if (!mounts) base::throw_system_error(ENOENT, "open", "/proc/mounts");
  return perf_event_cgroup_mount(*mounts);
}

io::unique_fd open_cgroup(const std::string& mount, std::string_view name) {
  std::string path = mount + "/" + std::string(name);
  int fd = base::retry_on_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
  if (fd < 0) base::throw_errno("open", path);
  return io::unique_fd{fd};
}

std::uint64_t cgroup_id(const char* path) {
  std::uint64_t id = 0;
  if (!try_cgroup_id(path, id)) base::throw_system_error(ENOENT, "name_to_handle_at", path);
  return id;
}

void walk_cgroups(const std::string& mount,
                  const std::function<void(std::uint64_t id, std::string_view path)>& visit) {
  std::string path = mount;
  path.reserve(PATH_MAX);
  std::size_t mount_length = path.size();
  path += '/';              // the root's own path is "/"
  cgroup_id(path.c_str());  // a mount that is not there is an error, not an empty walk
  walk_below(path, mount_length, visit);
}

}  // namespace arec::host
