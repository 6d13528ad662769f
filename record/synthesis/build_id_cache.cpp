#include "record/synthesis/build_id_cache.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <optional>
#include <system_error>

#include "io/build_id_cache_layout.hpp"
#include "io/elf_build_id.hpp"
#include "io/file_copy.hpp"
#include "io/system_error.hpp"
#include "io/vdso_image.hpp"
#include "model/machine.hpp"

namespace arec::record {
namespace {

// The mapping named a device and inode and the path now holds another inode of that device:
// rebuilt since. (Another device says nothing: overlayfs maps the lower file's inode.)
bool replaced_since_mapped(const model::dso& object) {
  const model::dso_id& id = object.id();
  struct stat status {};
  if (id.inode == 0 || ::stat(object.name().c_str(), &status) == -1) return false;
  return major(status.st_dev) == id.major && minor(status.st_dev) == id.minor &&
         status.st_ino != id.inode;
}

bool exists(const std::string& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0;
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

// The .build-id link: <root>/.build-id/ab/cdef... -> ../../<name>/<hex>.
void link_build_id(const std::string& root, const std::string& name, const std::string& hex) {
  std::string link = io::build_id_link_path(root, hex);
  io::make_directories(link.substr(0, link.rfind('/')));
  std::string target = io::build_id_link_target(name, hex);
  if (::symlink(target.c_str(), link.c_str()) == -1 && errno != EEXIST)
    io::throw_errno("symlink", link);
}

}  // namespace

build_id_cache::build_id_cache(std::string root, warn_function warn)
    : root_(std::move(root)), warn_(std::move(warn)) {}

void build_id_cache::add(const model::dso& object) {
  io::build_id id = object.build_id();
  if (id.empty() || leaf_name(object).empty()) return;
  std::string hex = id.hex();
  try {
    if (store(object, hex)) link_build_id(root_, object.name(), hex);
  } catch (const std::system_error& error) {
    if (failure_reported_) return;
    failure_reported_ = true;
    warn_("arec: warning: cannot add " + object.name() + " to the build-id cache: " + error.what());
  }
}

// Puts the object's file in place (through a temporary name, so a reader never sees half a
// file); false when it must not be cached.
bool build_id_cache::store(const model::dso& object, const std::string& hex) {
  const std::string& name = object.name();
  std::string leaf = leaf_name(object);
  std::string dir = io::build_id_object_dir(root_, name, hex);
  std::string path = dir + "/" + leaf;
  if (exists(path)) return true;
  io::make_directories(dir);
  std::string temporary = dir + "/." + leaf + ".arec." + std::to_string(::getpid());
  ::unlink(temporary.c_str());  // left by a killed recording with the same pid
  if (object.kind() == model::dso_kind::kernel) {
    io::link_or_copy("/proc/kallsyms", temporary);
  } else if (leaf == "vdso") {
    std::span<const std::byte> image = io::own_vdso_image();
    if (io::elf_image_build_id(image) != object.build_id()) return false;  // not our vdso
    io::write_new_file(temporary, image, 0600);
  } else {
    std::optional<io::build_id> now;
    bool replaced = replaced_since_mapped(object);
    if (!replaced) {
      io::link_or_copy(name, temporary);
      // Checked on what was stored: a file replaced since the build-id was read is not it.
      now = io::read_elf_build_id(temporary.c_str());
    }
    if (replaced || !now || *now != object.build_id()) {
      ::unlink(temporary.c_str());
      warn_("arec: warning: " + name + " changed on disk since it was mapped (build-id " + hex +
            " is gone): not added to the build-id cache");
      return false;
    }
  }
  io::check_syscall(::rename(temporary.c_str(), path.c_str()), "rename", path);
  return true;
}

}  // namespace arec::record
