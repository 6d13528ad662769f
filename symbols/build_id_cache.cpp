#include "symbols/build_id_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <system_error>

#include "base/system_error.hpp"
#include "host/mapped_file.hpp"
#include "io/file_copy.hpp"
#include "io/file_status.hpp"
#include "io/output_path.hpp"
#include "io/published_file.hpp"
#include "io/trusted_dir.hpp"
#include "model/machine.hpp"
#include "symbols/build_id_cache_layout.hpp"
#include "symbols/build_id_cache_store.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/elf_symbols.hpp"
#include "symbols/mini_debuginfo.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::symbols {
namespace {

// Objects named in their own warning; the rest are counted by finish().
constexpr std::size_t named_left_out = 4;

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

std::string mebibytes(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// Publishes new-only: another recording may have stored the object since it was looked for,
// and equal build-ids name equal contents, so its file is as good as ours.
template <typename Publish>
void unless_stored_meanwhile(Publish publish) {
  try {
    publish();
  } catch (const std::system_error& error) {
    if (error.code() != std::errc::file_exists) throw;
  }
}

}  // namespace

build_id_cache::build_id_cache(std::string root, warn_function warn, build_id_cache_limits limits)
    : root_(std::move(root)), warn_(std::move(warn)), limits_(limits) {}

int build_id_cache::root_fd() {
  if (!root_fd_) root_fd_ = io::open_trusted_root(root_);
  return root_fd_.get();
}

void build_id_cache::add(const model::dso& object, int file) {
  perf_data::build_id id = object.build_id();
  if (failed_ || id.empty() || leaf_name(object).empty()) return;
  std::string hex = id.hex();
  try {
    if (!store(object, hex, file)) return;
    link_build_id(object.name(), hex);
    if (object.sampled() && leaf_name(object) == "elf") sampled_.push_back({object.name(), id});
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

void build_id_cache::link_build_id(const std::string& name, const std::string& hex) {
  symbols::link_build_id(root_fd(), root_, name, hex);
}

// Puts the object's file in place (new-only, io/published_file: a reader never sees half a
// file); false when it must not be cached.
bool build_id_cache::store(const model::dso& object, const std::string& hex, int file) {
  std::string leaf = leaf_name(object);
  std::string relative = build_id_object_dir("", object.name(), hex).substr(1);
  io::unique_fd dir = io::open_below(root_fd(), relative, root_);
  if (io::status_at(dir.get(), leaf, false)) return true;
  std::string shown = root_ + "/" + relative + "/" + leaf;
  if (object.kind() == model::dso_kind::kernel) {
    io::unique_fd from = io::unique_fd::open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
    io::published_file to(dir.get(), leaf, shown, io::publish_policy::new_only, 0644);
    io::copy_to_end(from.get(), "/proc/kallsyms", to.fd(), shown);
    unless_stored_meanwhile([&] { to.commit(); });
    return true;
  }
  if (leaf == "vdso") {
    std::span<const std::byte> image = own_vdso_image();
    if (elf_image_build_id(image) != object.build_id()) return false;  // not our vdso
    io::published_file to(dir.get(), leaf, shown, io::publish_policy::new_only, 0600);
    io::write_all(to.fd(), image, shown);
    unless_stored_meanwhile([&] { to.commit(); });
    return true;
  }
  return store_file(object, dir.get(), leaf, shown, file);
}

// A mapped file: linked when that is safe and possible, else copied within the limits; what
// is stored must still have the build-id the recording saw.
bool build_id_cache::store_file(const model::dso& object, int dir, const std::string& leaf,
                                const std::string& shown, int file) {
  const std::string& name = object.name();
  // Kept open since its build-id was read, or opened now through the process that maps it:
  // the mapped file, not whatever the path holds now.
  io::unique_fd opened;
  if (file < 0) {
    opened = host::open_mapped_file(name, object.place(), object.identity());
    file = opened.get();
  }
  if (file < 0) {
    leave_out(name,
              "the mapped file can no longer be opened (removed or replaced, and no "
              "process that maps it is left)");
    return false;
  }
  struct stat status {};
  base::check_syscall(::fstat(file, &status), "fstat", name);
  if (safe_to_link(status)) {
    // A link shares the file: checked before it gets the name, as a copy is.
    if (!still_has_build_id(object, file)) return false;
    bool linked = true;  // stays true when another recording stored it meanwhile
    unless_stored_meanwhile(
        [&] { linked = io::published_file::link_existing(file, dir, leaf, shown); });
    if (linked) {
      store_mini_debuginfo(object, dir, file, shown);
      return true;
    }
  }
  std::uint64_t allocated = static_cast<std::uint64_t>(status.st_blocks) * 512;
  std::uint64_t room = limits_.recording_bytes - std::min(copied_, limits_.recording_bytes);
  if (allocated > limits_.object_bytes) {
    leave_out(name, "it holds " + mebibytes(allocated) + " of data, over the " +
                        mebibytes(limits_.object_bytes) + " arec copies per object");
    return false;
  }
  io::published_file target(dir, leaf, shown, io::publish_policy::new_only, status.st_mode & 0755);
  std::optional<std::uint64_t> copied =
      io::copy_sparse(file, name, target.fd(), shown, std::min(room, limits_.object_bytes));
  if (!copied) {
    leave_out(name, "the " + mebibytes(limits_.recording_bytes) +
                        " a recording copies into the cache are used up");
    return false;
  }
  copied_ += *copied;
  // Checked on the copy: a file replaced since the build-id was read is not it.
  if (!still_has_build_id(object, target.fd())) return false;
  unless_stored_meanwhile([&] { target.commit(); });
  store_mini_debuginfo(object, dir, file, shown);
  return true;
}

// An object's MiniDebugInfo (.gnu_debugdata) as perf's `debug` entry beside its `elf`: the
// decompressed ELF is symbols only (.symtab of the functions .dynsym lacks), and perf 6.1, which
// does not read .gnu_debugdata, names them from it as from a distribution's debug file.
void build_id_cache::store_mini_debuginfo(const model::dso& object, int dir, int file,
                                          const std::string& shown_elf) {
  if (io::status_at(dir, "debug", false)) return;
  std::optional<std::vector<std::byte>> image = read_mini_debuginfo(file);
  if (!image || !has_build_id(*image, object.build_id())) return;
  if (copied_ + image->size() > limits_.recording_bytes) return;  // the limit warns for objects
  std::string shown = shown_elf.substr(0, shown_elf.rfind('/') + 1) + "debug";
  io::published_file to(dir, "debug", shown, io::publish_policy::new_only, 0644);
  io::write_all(to.fd(), std::span<const std::byte>(*image), shown);
  copied_ += image->size();
  unless_stored_meanwhile([&] { to.commit(); });
}

// A debug file fetched from debuginfod (in libdebuginfod's cache, which may be cleaned at any
// time) copied in as `debug`, within the recording's copy limits; only a file of the object's
// build-id that has the symbols is stored, as perf requires of a debug file.
bool build_id_cache::store_debug_file(int dir, const sampled_object& object,
                                      const std::string& fetched) {
  io::unique_fd from = io::unique_fd::open(fetched.c_str(), O_RDONLY | O_CLOEXEC);
  if (read_elf_build_id(from.get()) != object.id || !has_symbol_table(from.get())) return false;
  std::string shown = build_id_object_dir(root_, object.name, object.id.hex()) + "/debug";
  std::uint64_t room = limits_.recording_bytes - std::min(copied_, limits_.recording_bytes);
  io::published_file to(dir, "debug", shown, io::publish_policy::new_only, 0644);
  std::optional<std::uint64_t> copied =
      io::copy_sparse(from.get(), fetched, to.fd(), shown, std::min(room, limits_.object_bytes));
  if (!copied) {
    leave_out(shown, "the " + mebibytes(limits_.recording_bytes) +
                         " a recording copies into the cache are used up");
    return false;
  }
  copied_ += *copied;
  unless_stored_meanwhile([&] { to.commit(); });
  return true;
}

bool build_id_cache::still_has_build_id(const model::dso& object, int file) {
  if (read_elf_build_id(file) == object.build_id()) return true;
  leave_out(object.name(), "changed on disk since it was mapped (build-id " +
                               object.build_id().hex() + " is gone)");
  return false;
}

}  // namespace arec::symbols
