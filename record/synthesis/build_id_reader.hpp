// build_id_reader: reads the build-id of every dso from its file as soon as the recording
// first sees it mapped, on a thread of its own: the streaming threads never wait for a file,
// the end of the recording has (almost) nothing left to read, and the build-id is the one of
// the file as it was when it was mapped, not after a later upgrade replaced it. With a cache it
// also stores in perf's build-id cache each dso that got a sample (enqueue_sampled), as perf
// does, or with --buildid-all every dso mapped, right after reading its build-id. It also
// captures the perf map of each process whose JIT code got a sample (enqueue_perf_map): opened
// while the process lives, read whenever a file of the recording is finished (perf_maps); and
// the container of each sampled process (enqueue_container_of), from its /proc/PID/cgroup.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "host/process_perf_map.hpp"
#include "io/unique_fd.hpp"
#include "model/dso.hpp"
#include "perf_data/container_ids_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "record/synthesis/build_id_table.hpp"
#include "symbols/build_id_cache.hpp"

namespace arec::record {

// Which dsos go into the cache: those sampled (perf's default), or every one mapped
// (--buildid-all).
enum class cache_scope { sampled, mapped };

class build_id_reader {
 public:
  using message_sink = std::function<void(const std::string&)>;

  // No cache: -N or -B. `say` hears why a perf map was not captured.
  explicit build_id_reader(build_id_sources sources = {},
                           std::unique_ptr<symbols::build_id_cache> cache = nullptr,
                           cache_scope scope = cache_scope::sampled, message_sink say = {});
  ~build_id_reader();  // stop()
  build_id_reader(const build_id_reader&) = delete;
  build_id_reader& operator=(const build_id_reader&) = delete;

  // Queues `object` for reading; cheap, and safe from any thread (a dso is created once).
  void enqueue(const std::shared_ptr<model::dso>& object) AREC_EXCLUDES(mutex_);
  // Queues `object`, whose file was unreachable, for another read through the mapping a
  // process just made of it; a sampled object is cached once read. Safe from any thread.
  void enqueue_again(const std::shared_ptr<model::dso>& object) AREC_EXCLUDES(mutex_);
  // Queues `object`, which just got its first sample, for the cache (its build-id is read
  // first if it is not known yet). Safe from any thread.
  void enqueue_sampled(const std::shared_ptr<model::dso>& object) AREC_EXCLUDES(mutex_);
  // Queues the capture of the perf map of process `pid`, whose JIT code just got its first
  // sample: it is opened through the process (host::open_process_perf_map) on the reader's
  // thread, and kept open. Safe from any thread.
  void enqueue_perf_map(pid_t pid) AREC_EXCLUDES(mutex_);
  // Queues another look for the perf map of process `pid`, whose JIT code got samples, as it
  // exits: a runtime may write its map only then (a JVM's -XX:+DumpPerfMapAtExit). Found
  // through the /tmp kept open since its first JIT sample, so a process gone, or a container,
  // has it read all the same. Safe from any thread.
  void enqueue_late_perf_map(pid_t pid) AREC_EXCLUDES(mutex_);
  // Every captured map as it is now, compressed: the maps grow while their runtimes run, so
  // each finished file of the recording gets the state at its end. A map unchanged since the
  // last call (same size and modification time) is not read again. A map not there at the
  // first JIT sample is looked for again here (and at the process's exit). A refused map is an
  // empty one (no reader then reads the process's /tmp map instead); maps beyond the feature's room
  // (perf_data::perf_maps_room) are left out and said. Safe from any thread.
  std::vector<perf_data::stored_perf_map> perf_maps() AREC_EXCLUDES(maps_mutex_);
  // Queues reading the container of process `pid`, which just got its first sample (while it
  // lives: a process gone by then gets no container label). Safe from any thread.
  void enqueue_container_of(pid_t pid) AREC_EXCLUDES(mutex_);
  // Queues `call` to run on the reader's thread, in turn with the rest: work on a process's
  // files that must not hold up the streaming threads (opening a jitdump, jitdump_capture).
  // Run even after a stop without a cache, as the processes' jobs are. Safe from any thread.
  void enqueue_call(std::function<void()> call) AREC_EXCLUDES(mutex_);
  // The sampled processes found in a container so far. Safe from any thread.
  std::vector<perf_data::process_container> containers() const AREC_EXCLUDES(maps_mutex_);
  // Forgets the perf maps and containers of processes that are gone (or whose pid another
  // process has now), once a finished file holds them: a long recording (--push for weeks)
  // carries only its live processes' into each next file, and a new JIT process is captured
  // however many came and went before it. Safe from any thread.
  void forget_gone_processes() AREC_EXCLUDES(maps_mutex_);
  // Ends the thread once the file it reads now is read; what is still queued stays unread
  // (collect_build_ids reads it), unless there is a cache: then what is queued (what was mapped
  // in the last moments, usually nothing) is read and cached first, so the cache holds every
  // dso of the recording. Idempotent.
  void stop() AREC_EXCLUDES(mutex_);
  // The cache it filled, nullptr without one: only after stop(), the thread adds to it until then.
  symbols::build_id_cache* cache() const noexcept { return cache_.get(); }

 private:
  enum class task { read_build_id, capture_perf_map, late_perf_map, read_container, call };
  struct job {
    std::shared_ptr<model::dso> object;  // for read_build_id
    bool store = false;                  // into the cache
    pid_t pid = 0;                       // for the others
    task what = task::read_build_id;
    std::function<void()> call;  // for call
  };
  void push(job next) AREC_EXCLUDES(mutex_);
  void run() AREC_EXCLUDES(mutex_);

  void handle(const job& next);
  void capture_perf_map(pid_t pid) AREC_EXCLUDES(maps_mutex_);
  void look_for_late_perf_map(pid_t pid) AREC_EXCLUDES(maps_mutex_);
  void read_container(pid_t pid) AREC_EXCLUDES(maps_mutex_);
  // After a stop without a cache: the processes' jobs still queued are done all the same.
  void finish_queued_process_jobs() AREC_EXCLUDES(mutex_);
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
  const message_sink say_;
  struct kept_perf_map {
    pid_t pid = 0;
    std::string path;  // as the process names it, for messages
    io::unique_fd fd;  // empty: refused, kept as an empty map so that no reader names its frames
    // Until the map is there: the process's /tmp, where it is looked for again (no fd then).
    std::optional<host::perf_map_place> place;
    std::uint64_t started = 0;  // the process's start time: a reused pid is another process
    // What perf_maps() last read of it, and the size and time it had then.
    perf_data::stored_perf_map stored;
    off_t size = -1;
    timespec modified{};
  };
  // Opens the map of `map.place`, once there; false while it is not (`map` stays pending).
  bool open_late(kept_perf_map& map) AREC_REQUIRES(maps_mutex_);
  void say_refused(pid_t pid, const std::string& path, const std::string& problem) const;
  // `map` as it is now: what it stored when unchanged, else read again. nullopt when it cannot
  // be read (said once).
  std::optional<perf_data::stored_perf_map> current(kept_perf_map& map) AREC_REQUIRES(maps_mutex_);
  // The perf maps captured, one per process, read by any thread that finishes a file.
  mutable base::mutex maps_mutex_;
  std::vector<kept_perf_map> perf_maps_ AREC_GUARDED_BY(maps_mutex_);
  static constexpr std::size_t max_perf_maps = 1024;
  std::size_t perf_maps_left_out_ AREC_GUARDED_BY(maps_mutex_) = 0;
  // Maps left out of the last file as its feature had no room left (perf_maps_room).
  std::size_t perf_maps_too_large_ AREC_GUARDED_BY(maps_mutex_) = 0;
  struct noted_container {
    perf_data::process_container process;
    std::uint64_t started = 0;
  };
  std::vector<noted_container> containers_ AREC_GUARDED_BY(maps_mutex_);
  base::mutex mutex_;
  std::condition_variable_any queued_;
  std::vector<job> queue_ AREC_GUARDED_BY(mutex_);
  bool stopping_ AREC_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // last: it starts once everything above is ready
};

}  // namespace arec::record
