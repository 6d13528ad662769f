// build_id_cache: perf's build-id cache (~/.debug), filled while recording with each object
// that got a sample (every mapped one with --buildid-all), so that a file keeps resolving after
// the binaries it sampled are rebuilt or removed. The layout is perf's
// (build_id_cache_layout):
//   <root>/<path>/<build-id>/elf            the file (a hard link where safe, else a copy)
//   <root>/[kernel.kallsyms]/<build-id>/kallsyms   a copy of /proc/kallsyms
//   <root>/[vdso]/<build-id>/vdso           the vdso image
//   <root>/<path>/<build-id>/debug          its symbols: MiniDebugInfo, or fetched from debuginfod
//   <root>/.build-id/<2 hex>/<38 hex>  ->  ../../<path>/<build-id>
// arec often runs as root while other users map files: what a recording may add is bounded
// (build_id_cache_limits), holes stay holes, a file another user can change is copied, not
// linked, and the cache is walked without following symlinks (docs/security.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"
#include "model/dso.hpp"
#include "symbols/debuginfod_fetcher.hpp"

namespace arec::symbols {

struct build_id_cache_limits {
  // The data one copied object may hold (a hard link copies nothing and is not counted).
  std::uint64_t object_bytes = std::uint64_t{512} << 20;
  // The data all the copies of one recording may hold together.
  std::uint64_t recording_bytes = std::uint64_t{1} << 30;
};

// What the end of a recording fetched from debuginfod (build_id_cache::fetch_debug_files).
struct debug_fetch_totals {
  std::uint64_t asked = 0;    // sampled objects that no local file names
  std::uint64_t files = 0;    // debug files fetched
  std::uint64_t bytes = 0;    // their size
  std::uint64_t unnamed = 0;  // asked, and left without a `debug` entry
};

class build_id_cache {
 public:
  using warn_function = std::function<void(const std::string&)>;
  build_id_cache(std::string root, warn_function warn, build_id_cache_limits limits = {});

  // Stores `object` under its build-id unless it is stored already. Does nothing for a dso
  // without a build-id or one perf does not cache (modules, [heap], ...). An object left out
  // (changed on disk since it was mapped, over a limit, not a regular file) is named in a
  // warning, up to a few; a failure of the cache itself (full disk, a root not safe to write
  // into) is reported once and ends caching.
  // `file`, when not -1, is the object's file already open (kept from its build-id read), used
  // instead of opening it through its mapping.
  void add(const model::dso& object, int file = -1);
  // Says how many objects were left out beyond those named; call once, at the end.
  void finish();
  // Once every object is added (the recording's end, never while rings are drained): the debug
  // file of each sampled object stored that no local file names (no .symtab, no
  // /usr/lib/debug/.build-id/xx/yyy.debug, no `debug` entry from MiniDebugInfo), fetched from
  // the servers DEBUGINFOD_URLS names within `deadline` in all, stored as perf's `debug` entry.
  // nullopt when DEBUGINFOD_URLS names no server. What went wrong is one warning.
  std::optional<debug_fetch_totals> fetch_debug_files(std::chrono::seconds deadline);

  const std::string& root() const noexcept { return root_; }
  // The data the copies of this recording wrote.
  std::uint64_t copied_bytes() const noexcept { return copied_; }

 private:
  bool store(const model::dso& object, const std::string& hex, int file);
  bool store_file(const model::dso& object, int dir, const std::string& leaf,
                  const std::string& shown, int file);
  void store_mini_debuginfo(const model::dso& object, int dir, int file,
                            const std::string& shown_elf);
  bool still_has_build_id(const model::dso& object, int file);
  // A sampled object stored as `elf`, which a debug file may name (build_id_cache_debuginfod).
  struct sampled_object {
    std::string name;
    perf_data::build_id id;
  };
  bool named_locally(int dir, const sampled_object& object);
  bool store_debug_file(int dir, const sampled_object& object, const std::string& fetched);
  void link_build_id(const std::string& name, const std::string& hex);
  void leave_out(const std::string& name, const std::string& why);
  int root_fd();

  const std::string root_;
  const warn_function warn_;
  const build_id_cache_limits limits_;
  io::unique_fd root_fd_;  // opened, and checked, at the first add
  bool failed_ = false;    // reported once; nothing more is tried
  std::uint64_t copied_ = 0;
  std::size_t left_out_ = 0;
  std::vector<sampled_object> sampled_;
};

}  // namespace arec::symbols
