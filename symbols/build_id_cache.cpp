#include "symbols/build_id_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <system_error>

#include "io/file_copy.hpp"
#include "io/mapped_file.hpp"
#include "io/output_path.hpp"
#include "io/system_error.hpp"
#include "io/trusted_dir.hpp"
#include "model/machine.hpp"
#include "symbols/build_id_cache_layout.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::symbols {
namespace {

// Objects named in their own warning; the rest are counted by finish().
constexpr std::size_t named_left_out = 4;

bool exists_in(int dir, const std::string& name) {
  struct stat status {};
  return ::fstatat(dir, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0;
}

// What the cache calls the object's file inside its build-id directory, "" for none.
std::string leaf_name(const model::dso& object) {
  switch (object.kind()) {
    case model::dso_kind::kernel:
      return "kallsyms";
    case model::dso_kind::kernel_module:
      return "";  // perf caches modules only from a kernel build tree: not on this path
    case model::dso_kind::user:
      if (object.name() == "[vdso]") return "vdso";
      return object.name().starts_with('/') ? "elf" : "";
  }
  return "";
}

// A hard link shares the file: only one that no other user can change is linked, so that
// what the cache holds stays what was sampled.
bool safe_to_link(const struct stat& status) {
  return (status.st_uid == ::geteuid() || status.st_uid == 0) &&
         (status.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

std::string mebibytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

io::unique_fd create_in(int dir, const std::string& name, mode_t mode) {
  return io::unique_fd::open_at(dir, name.c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

}  // namespace

build_id_cache::build_id_cache(std::string root, warn_function warn, build_id_cache_limits limits)
    : root_(std::move(root)), warn_(std::move(warn)), limits_(limits) {}

int build_id_cache::root_fd() {
  if (!root_fd_) root_fd_ = io::open_trusted_root(root_);
  return root_fd_.get();
}

void build_id_cache::add(const model::dso& object, int file) {
  io::build_id id = object.build_id();
  if (failed_ || id.empty() || leaf_name(object).empty()) return;
  std::string hex = id.hex();
  try {
    if (store(object, hex, file)) link_build_id(object.name(), hex);
  } catch (const io::untrusted_directory& refused) {
    failed_ = true;
    warn_("arec: warning: the build-id cache is not used: " + std::string(refused.what()));
  } catch (const std::system_error& error) {
    failed_ = true;
    warn_("arec: warning: cannot add " + object.name() + " to the build-id cache: " + error.what());
  }
}

void build_id_cache::finish() {
  if (left_out_ <= named_left_out) return;
  warn_("arec: warning: " + std::to_string(left_out_ - named_left_out) +
        " more sampled objects were not added to the build-id cache");
}

void build_id_cache::leave_out(const std::string& name, const std::string& why) {
  if (++left_out_ <= named_left_out)
    warn_("arec: warning: " + name + " not added to the build-id cache: " + why);
}

// The .build-id link: <root>/.build-id/ab/cdef... -> ../../<name>/<hex>.
void build_id_cache::link_build_id(const std::string& name, const std::string& hex) {
  std::string link = build_id_link_name(hex);
  std::size_t slash = link.rfind('/');
  io::unique_fd dir = io::open_below(root_fd(), link.substr(0, slash), root_);
  std::string target = build_id_link_target(name, hex);
  if (::symlinkat(target.c_str(), dir.get(), link.substr(slash + 1).c_str()) == -1 &&
      errno != EEXIST)
    io::throw_errno("symlink", root_ + "/" + link);
}

// Puts the object's file in place (through a temporary name, so a reader never sees half a
// file); false when it must not be cached.
bool build_id_cache::store(const model::dso& object, const std::string& hex, int file) {
  std::string leaf = leaf_name(object);
  std::string relative = build_id_object_dir("", object.name(), hex).substr(1);
  io::unique_fd dir = io::open_below(root_fd(), relative, root_);
  if (exists_in(dir.get(), leaf)) return true;
  std::string shown = root_ + "/" + relative + "/" + leaf;
  std::string temporary = "." + leaf + ".arec." + std::to_string(::getpid());
  ::unlinkat(dir.get(), temporary.c_str(), 0);  // left by a killed recording with the same pid
  bool stored = false;
  try {
    if (object.kind() == model::dso_kind::kernel) {
      io::unique_fd from = io::unique_fd::open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
      io::unique_fd to = create_in(dir.get(), temporary, 0644);
      io::copy_to_end(from.get(), "/proc/kallsyms", to.get(), shown);
      stored = true;
    } else if (leaf == "vdso") {
      std::span<const std::byte> image = own_vdso_image();
      if (elf_image_build_id(image) == object.build_id()) {  // else: not our vdso
        io::unique_fd to = create_in(dir.get(), temporary, 0600);
        io::write_all(to.get(), image, shown);
        stored = true;
      }
    } else {
      stored = store_file(object, dir.get(), temporary, file);
    }
  } catch (...) {
    ::unlinkat(dir.get(), temporary.c_str(), 0);
    throw;
  }
  if (!stored) {
    ::unlinkat(dir.get(), temporary.c_str(), 0);
    return false;
  }
  io::check_syscall(::renameat(dir.get(), temporary.c_str(), dir.get(), leaf.c_str()), "rename",
                    shown);
  return true;
}

// A mapped file: linked when that is safe and possible, else copied within the limits; what
// was stored must still have the build-id the recording saw.
bool build_id_cache::store_file(const model::dso& object, int dir, const std::string& temporary,
                                int file) {
  const std::string& name = object.name();
  // Kept open since its build-id was read, or opened now through the process that maps it:
  // the mapped file, not whatever the path holds now.
  io::unique_fd opened;
  if (file < 0) {
    opened = io::open_mapped_file(name, object.place(), object.identity());
    file = opened.get();
  }
  if (file < 0) {
    leave_out(name, "the mapped file can no longer be opened (removed or replaced, and no "
                    "process that maps it is left)");
    return false;
  }
  struct stat status {};
  io::check_syscall(::fstat(file, &status), "fstat", name);
  bool linked = false;
  // Linked through the open file, so it is the file opened whatever its path holds now.
  std::string through = "/proc/self/fd/" + std::to_string(file);
  if (safe_to_link(status) &&
      ::linkat(AT_FDCWD, through.c_str(), dir, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0) {
    struct stat stored {};
    linked = ::fstatat(dir, temporary.c_str(), &stored, AT_SYMLINK_NOFOLLOW) == 0 &&
             same_file(stored, status);
    if (!linked) ::unlinkat(dir, temporary.c_str(), 0);
  }
  if (!linked) {
    std::uint64_t allocated = static_cast<std::uint64_t>(status.st_blocks) * 512;
    std::uint64_t room = limits_.recording_bytes - std::min(copied_, limits_.recording_bytes);
    if (allocated > limits_.object_bytes) {
      leave_out(name, "it holds " + mebibytes(allocated) + " of data, over the " +
                          mebibytes(limits_.object_bytes) + " arec copies per object");
      return false;
    }
    io::unique_fd target = create_in(dir, temporary, status.st_mode & 0755);
    std::optional<std::uint64_t> copied =
        io::copy_sparse(file, name, target.get(), root_ + "/" + temporary,
                        std::min(room, limits_.object_bytes));
    if (!copied) {
      leave_out(name, "the " + mebibytes(limits_.recording_bytes) +
                          " a recording copies into the cache are used up");
      return false;
    }
    copied_ += *copied;
  }
  // Checked on what was stored: a file replaced since the build-id was read is not it.
  io::unique_fd stored = io::unique_fd::open_at(dir, temporary.c_str(),
                                                O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (read_elf_build_id(stored.get()) != object.build_id()) {
    leave_out(name, "changed on disk since it was mapped (build-id " + object.build_id().hex() +
                        " is gone)");
    return false;
  }
  return true;
}

}  // namespace arec::symbols
