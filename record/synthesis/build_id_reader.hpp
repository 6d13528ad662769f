// build_id_reader: reads the build-id of every dso from its file as soon as the recording
// first sees it mapped, on a thread of its own: the streaming threads never wait for a file,
// the end of the recording has (almost) nothing left to read, and the build-id is the one of
// the file as it was when it was mapped, not after a later upgrade replaced it. With a cache it
// also stores in perf's build-id cache each dso that got a sample (enqueue_sampled), as perf
// does, or with --buildid-all every dso mapped, right after reading its build-id.
#pragma once

#include <condition_variable>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/annotated_mutex.hpp"
#include "io/unique_fd.hpp"
#include "model/dso.hpp"
#include "record/synthesis/build_id_table.hpp"
#include "symbols/build_id_cache.hpp"

namespace arec::record {

// Which dsos go into the cache: those sampled (perf's default), or every one mapped
// (--buildid-all).
enum class cache_scope { sampled, mapped };

class build_id_reader {
 public:
  // No cache: -N or -B.
  explicit build_id_reader(build_id_sources sources = {},
                           std::unique_ptr<symbols::build_id_cache> cache = nullptr,
                           cache_scope scope = cache_scope::sampled);
  ~build_id_reader();  // stop()
  build_id_reader(const build_id_reader&) = delete;
  build_id_reader& operator=(const build_id_reader&) = delete;

  // Queues `object` for reading; cheap, and safe from any thread (a dso is created once).
  void enqueue(const std::shared_ptr<model::dso>& object) AREC_EXCLUDES(mutex_);
  // Queues `object`, which just got its first sample, for the cache (its build-id is read
  // first if it is not known yet). Safe from any thread.
  void enqueue_sampled(const std::shared_ptr<model::dso>& object) AREC_EXCLUDES(mutex_);
  // Ends the thread once the file it reads now is read; what is still queued stays unread
  // (collect_build_ids reads it), unless there is a cache: then what is queued (what was mapped
  // in the last moments, usually nothing) is read and cached first, so the cache holds every
  // dso of the recording. Idempotent.
  void stop() AREC_EXCLUDES(mutex_);

 private:
  struct job {
    std::shared_ptr<model::dso> object;
    bool store = false;  // into the cache
  };
  void push(job next) AREC_EXCLUDES(mutex_);
  void run() AREC_EXCLUDES(mutex_);

  void handle(const job& next);
  // True when the thread must end now; called with the lock held.
  bool must_end() const AREC_REQUIRES(mutex_) { return stopping_ && (!cache_ || queue_.empty()); }

  const build_id_sources sources_;
  const std::unique_ptr<symbols::build_id_cache> cache_;
  const cache_scope scope_;
  // Files whose path no longer leads to them (a container's, one replaced since), kept open
  // from the build-id read until they are cached or the recording ends, so a process gone by
  // its first sample's turn still has its file cached. Only the reader's thread touches it.
  std::unordered_map<const model::dso*, io::unique_fd> kept_files_;
  static constexpr std::size_t max_kept_files = 1024;
  io::mutex mutex_;
  std::condition_variable_any queued_;
  std::vector<job> queue_ AREC_GUARDED_BY(mutex_);
  bool stopping_ AREC_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // last: it starts once everything above is ready
};

}  // namespace arec::record
