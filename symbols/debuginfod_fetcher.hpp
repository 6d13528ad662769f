// debuginfod_fetcher: separate debug files fetched by build-id from the servers DEBUGINFOD_URLS
// names, through elfutils' libdebuginfod (loaded with dlopen at the first fetch; it reads
// DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT and DEBUGINFOD_MAXSIZE as every
// elfutils client does, and keeps what it fetched in its own cache). Asked only for objects
// that got samples and that no local file names; bounded in bytes and time per export.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "perf_data/build_id.hpp"

namespace arec::symbols {

struct debuginfod_limits {
  std::uint64_t bytes = 1ull << 30;           // fetched in all, per client
  std::chrono::seconds time{60};              // spent fetching in all, per client
};

class debuginfod_fetcher {
 public:
  explicit debuginfod_fetcher(debuginfod_limits limits = {});
  ~debuginfod_fetcher();
  debuginfod_fetcher(const debuginfod_fetcher&) = delete;
  debuginfod_fetcher& operator=(const debuginfod_fetcher&) = delete;

  // Whether DEBUGINFOD_URLS names a server (unset or empty: nothing is ever asked).
  static bool configured();
  // The debug file of `id` (a path in libdebuginfod's cache), fetched if needed; nullopt when
  // no server has it, none answers in time, or the limits are used up. The first failure other
  // than "not found" is kept for take_warning().
  std::optional<std::string> debuginfo(const perf_data::build_id& id);
  // What went wrong, said once ("" when nothing did or it was said already).
  std::string take_warning();
  std::uint64_t fetched_files() const noexcept { return files_; }
  std::uint64_t fetched_bytes() const noexcept { return bytes_; }
  // Whether a transfer at `done` bytes is past the limits (libdebuginfod's progress callback).
  bool over_limits(long done) const;

 private:
  debuginfod_limits limits_;
  void* client_ = nullptr;  // debuginfod_client*, made at the first fetch
  bool failed_ = false;     // libdebuginfod missing or limits reached: nothing more is asked
  std::string warning_;
  bool warned_ = false;
  std::uint64_t files_ = 0, bytes_ = 0;
  std::chrono::steady_clock::duration spent_{};
  std::chrono::steady_clock::time_point fetch_start_;
};

}  // namespace arec::symbols
