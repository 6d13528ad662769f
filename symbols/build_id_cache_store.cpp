#include "symbols/build_id_cache_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/output_path.hpp"
#include "io/system_error.hpp"
#include "io/trusted_dir.hpp"
#include "io/unique_fd.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::symbols {
namespace {

constexpr const char* leaf = "elf";

bool exists_in(int dir, const char* name) {
  struct stat status {};
  return ::fstatat(dir, name, &status, AT_SYMLINK_NOFOLLOW) == 0;
}

void write_object(int dir, const std::string& shown, std::span<const std::byte> image) {
  std::string temporary = std::string{"."} + leaf + ".arec." + std::to_string(::getpid());
  ::unlinkat(dir, temporary.c_str(), 0);  // left by a killed run with the same pid
  try {
    io::unique_fd file = io::unique_fd::open_at(
        dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    io::write_all(file.get(), image, shown);
    io::check_syscall(::renameat(dir, temporary.c_str(), dir, leaf), "rename", shown);
  } catch (...) {
    ::unlinkat(dir, temporary.c_str(), 0);
    throw;
  }
}

}  // namespace

void store_in_build_id_cache(const std::string& root, const std::string& name,
                             const io::build_id& id, std::span<const std::byte> image) {
  io::unique_fd root_fd = io::open_trusted_root(root);
  std::string hex = id.hex();
  std::string relative = build_id_object_dir("", name, hex).substr(1);
  io::unique_fd dir = io::open_below(root_fd.get(), relative, root);
  if (!exists_in(dir.get(), leaf))
    write_object(dir.get(), root + "/" + relative + "/" + leaf, image);

  std::string link = build_id_link_name(hex);
  std::size_t slash = link.rfind('/');
  io::unique_fd link_dir = io::open_below(root_fd.get(), link.substr(0, slash), root);
  std::string target = build_id_link_target(name, hex);
  if (::symlinkat(target.c_str(), link_dir.get(), link.substr(slash + 1).c_str()) == -1 &&
      errno != EEXIST)
    io::throw_errno("symlink", root + "/" + link);
}

}  // namespace arec::symbols
