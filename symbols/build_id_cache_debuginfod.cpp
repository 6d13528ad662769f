// build_id_cache::fetch_debug_files: the recording side of debuginfod. perf 6.1 names a stripped
// object's functions from the `debug` entry beside its `elf` in the build-id cache; this fills
// that entry, at the recording's end, for the sampled objects that nothing on this machine names.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "io/file_status.hpp"
#include "io/trusted_dir.hpp"
#include "symbols/build_id_cache.hpp"
#include "symbols/build_id_cache_layout.hpp"
#include "symbols/elf_symbols.hpp"

namespace arec::symbols {
namespace {

// Where a distribution's debug package puts the object's symbols; perf looks there itself.
bool has_system_debug_file(const std::string& hex) {
  std::string path =
      "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  try {
    std::optional<struct stat> status = io::status_at(AT_FDCWD, path, true);
    return status && S_ISREG(status->st_mode);
  } catch (const std::system_error&) {
    return false;  // unreadable (EACCES...): perf cannot read it either
  }
}

}  // namespace

std::optional<debug_fetch_totals> build_id_cache::fetch_debug_files(std::chrono::seconds deadline) {
  if (!debuginfod_fetcher::configured()) return std::nullopt;
  std::uint64_t room = limits_.recording_bytes - std::min(copied_, limits_.recording_bytes);
  debuginfod_fetcher fetcher({.bytes = room, .time = deadline});
  debug_fetch_totals totals;
  std::vector<std::string> done;  // hex of the objects looked at: one entry per build-id
  for (const sampled_object& object : sampled_) {
    std::string hex = object.id.hex();
    if (failed_ || std::find(done.begin(), done.end(), hex) != done.end()) continue;
    done.push_back(hex);
    try {
      std::string relative = build_id_object_dir("", object.name, hex).substr(1);
      io::unique_fd dir = io::open_below(root_fd(), relative, root_);
      if (named_locally(dir.get(), object)) continue;
      ++totals.asked;
      std::optional<std::string> fetched = fetcher.debuginfo(object.id);
      if (!fetched || !store_debug_file(dir.get(), object, *fetched)) ++totals.unnamed;
    } catch (const io::untrusted_directory& refused) {
      failed_ = true;
      warn_("arec: warning: the build-id cache is not used: " + std::string(refused.what()));
    } catch (const std::system_error& error) {
      failed_ = true;
      warn_("arec: warning: cannot add the debug file of " + object.name +
            " to the build-id cache: " + error.what());
    }
  }
  totals.files = fetcher.fetched_files();
  totals.bytes = fetcher.fetched_bytes();
  if (std::string warning = fetcher.take_warning(); !warning.empty())
    warn_("arec: warning: " + warning);
  return totals;
}

// Whether perf names the object's functions without a fetch: its `debug` entry (MiniDebugInfo,
// an earlier recording's fetch), a distribution's debug file, or the .symtab of its own file.
bool build_id_cache::named_locally(int dir, const sampled_object& object) {
  if (io::status_at(dir, "debug", false) || has_system_debug_file(object.id.hex())) return true;
  io::unique_fd elf = io::unique_fd::open_at(dir, "elf", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  return has_symbol_table(elf.get());
}

}  // namespace arec::symbols
