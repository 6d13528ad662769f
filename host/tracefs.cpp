#include "host/tracefs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <system_error>
#include <variant>

#include "base/system_error.hpp"
#include "io/dir_reader.hpp"
#include "io/small_file.hpp"

namespace arec::host::tracefs {
namespace {

constexpr long tracefs_magic = 0x74726163;
constexpr const char* standard_root = "/sys/kernel/tracing";

bool is_tracefs(const char* path) {
  struct statfs fs {};
  return ::statfs(path, &fs) == 0 && fs.f_type == tracefs_magic;
}

// Where fsopen is missing (Linux < 5.2) a private instance cannot be made: mount on the standard
// path as perf does, the only case in which arec changes the host's mount table.
std::optional<std::string> mount_as_perf_does() {
  if (::mount("nodev", standard_root, "tracefs", 0, nullptr) != 0) return std::nullopt;
  return standard_root;
}

std::variant<std::string, private_mount> find_or_mount() {
  if (auto mounted = find_mounted_root()) return *mounted;
  try {
    return private_mount::create();
  } catch (const std::system_error& error) {
    if (error.code().value() == ENOSYS)
      if (auto mounted = mount_as_perf_does()) return *mounted;
    throw std::runtime_error(std::string("tracefs is not mounted and arec cannot mount it (") +
                             error.what() + "); mount it with: mount -t tracefs nodev " +
                             standard_root);
  }
}

}  // namespace

std::optional<std::string> find_mounted_root() {
  if (const char* env = std::getenv("TRACEFS_PATH"); env && is_tracefs(env)) return env;
  for (const char* candidate : {standard_root, "/sys/kernel/debug/tracing"})
    if (is_tracefs(candidate)) return candidate;
  return std::nullopt;
}

private_mount private_mount::create() {
  io::unique_fd context{
      base::check_syscall(::fsopen("tracefs", FSOPEN_CLOEXEC), "fsopen", "tracefs")};
  base::check_syscall(::fsconfig(context.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0),
                      "fsconfig", "tracefs");
  int mount =
      base::check_syscall(::fsmount(context.get(), FSMOUNT_CLOEXEC,
                                    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC),
                          "fsmount", "tracefs");
  return private_mount{io::unique_fd{mount}};
}

private_mount::private_mount(io::unique_fd mount)
    : mount_(std::move(mount)), root_("/proc/self/fd/" + std::to_string(mount_.get())) {}

const std::string& root() {
  // The instance must outlive every reader in the process, so it is made once and kept: the
  // one process-wide object here, immutable once made. A failure is not kept, so a caller
  // that can fix it (a test) may try again.
  static const std::variant<std::string, private_mount> found = find_or_mount();
  if (const auto* mounted = std::get_if<std::string>(&found)) return *mounted;
  return std::get<private_mount>(found).root();
}

std::string read_file(std::string_view root, std::string_view relative_path) {
  std::string path{root};
  path += '/';
  path += relative_path;
  std::optional<std::string> text = io::read_text_if_exists(path);
  if (!text) base::throw_system_error(ENOENT, "open", path);
  return std::move(*text);
}

std::vector<std::string> list_directories(std::string_view root, std::string_view relative_path) {
  std::string path{root};
  path += '/';
  path += relative_path;
  std::vector<std::string> names;
  io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, path.c_str());
  if (!directory) return names;
  io::dir_reader reader{std::move(directory)};
  while (std::optional<io::dir_entry> entry = reader.next()) {
    bool is_directory = entry->type == DT_DIR;
    if (entry->type == DT_UNKNOWN) {  // a file system that leaves the type out: ask
      struct stat status {};
      is_directory =
          ::fstatat(reader.fd(), entry->name.data(), &status, 0) == 0 && S_ISDIR(status.st_mode);
    }
    if (is_directory) names.emplace_back(entry->name);
  }
  return names;
}

std::uint64_t read_tracepoint_id(std::string_view root, std::string_view system,
                                 std::string_view event) {
  std::string relative = "events/";
  relative += system;
  relative += '/';
  relative += event;
  relative += "/id";
  std::string text = read_file(root, relative);
  std::uint64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end == text.data())
    throw std::runtime_error("unreadable tracepoint id in " + std::string(root) + "/" + relative);
  return id;
}

}  // namespace arec::host::tracefs
