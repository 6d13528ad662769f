// push_spool: the windows waiting to be sent, oldest first, in two bounded tiers: memory, then
// (with a spool directory) one file per window on disk. When memory is over its bound the
// oldest windows move to disk; when disk is over its bound (or there is no disk) the oldest
// are dropped, counted, and reported once per burst. A directory left by an earlier run is
// indexed at start, so its windows go first. Each window file is named by its destination
// (window-KEY-SEQUENCE.pb, KEY from spool_bounds::destination): a run sends only the windows of
// its own destination, and counts and reports the others, which stay. Lock order: mutex_ is the
// only lock, a leaf; the sender never holds it across the network.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/annotated_mutex.hpp"
#include "fleet/push_window.hpp"
#include "io/unique_fd.hpp"

namespace arec::fleet {

// Where messages go: one line each, without a trailing newline ("push: ..."). The spool may
// call it with its lock held, so a reporter must not call back into the spool.
using reporter = std::function<void(const std::string&)>;

struct spool_bounds {
  std::uint64_t memory_bytes = 8 << 20;
  std::uint64_t disk_bytes = 256 << 20;
  std::string dir;  // empty: memory only
  // Where the windows go, as spool_destination says (URL, format, tenant, user; never a secret):
  // the first 16 hex digits of its SHA-1 are in every window file's name.
  std::string destination;
};

// One waiting window: in memory (window set) or on disk (path set).
struct spool_entry {
  std::uint64_t sequence = 0;
  std::shared_ptr<const push_window> window;
  std::string path;
  std::uint64_t bytes = 0;
};

struct spool_counts {
  std::size_t in_memory = 0;
  std::size_t on_disk = 0;
  std::uint64_t dropped_full = 0;       // the oldest, dropped at the bound
  std::uint64_t dropped_refused = 0;    // refused for good (by the server or its limits)
  std::uint64_t delivered = 0;          // of the windows added in this run
  std::uint64_t delivered_earlier = 0;  // of those an earlier run left in the spool directory
  std::size_t for_elsewhere = 0;  // window files of another destination, left in the directory
  std::size_t undirected = 0;     // window files of an arec that did not name the destination
};

enum class spool_result { delivered, refused, kept };

class push_spool {
 public:
  // Creates `bounds.dir` (0700) if needed, removes half-written files a kill left there, and
  // indexes the windows it holds. A directory that is a symbolic link, that another user owns or
  // that group or others may write is refused (std::runtime_error saying how to fix it): whoever
  // controls it could plant windows sent with our credentials. Window files that are not regular
  // files owned by the running user are skipped, counted and reported, never sent. Throws
  // std::system_error when the directory cannot be made or read. All later file operations are
  // relative to the directory's fd, so a path swapped afterwards is never followed.
  push_spool(spool_bounds bounds, reporter report);

  // Queues a window behind all others; may move older ones to disk or drop the oldest. Never
  // waits for the network.
  void add(push_window window) AREC_EXCLUDES(mutex_);

  // The oldest window, now "in flight" (never dropped by the bound) until finish(); nullopt
  // when none waits.
  std::optional<spool_entry> take_oldest() AREC_EXCLUDES(mutex_);
  // The window of `entry`, read from disk if needed; nullopt when its file is unreadable.
  std::optional<push_window> load(const spool_entry& entry) const;
  // Ends the flight of `entry`: kept (to retry), or removed as delivered or refused.
  void finish(const spool_entry& entry, spool_result result) AREC_EXCLUDES(mutex_);

  // Waiting on the sender's thread: returns when `generation` is no longer current (wake_all),
  // when a window waits and `for_work`, or at `until`.
  std::uint64_t generation() const AREC_EXCLUDES(mutex_);
  void wait(std::uint64_t generation, std::chrono::steady_clock::time_point until, bool for_work)
      AREC_EXCLUDES(mutex_);
  void wake_all() AREC_EXCLUDES(mutex_);

  // At shutdown: moves every window still in memory to disk. Returns how many windows are on
  // disk then; windows that could not be written (no directory, a write error) are lost and
  // counted in lost.
  struct leftover {
    std::size_t on_disk = 0;
    std::size_t lost = 0;
  };
  leftover persist_remaining() AREC_EXCLUDES(mutex_);

  // Ends a burst of drops: reports how many were dropped in it, if any.
  void end_drop_burst() AREC_EXCLUDES(mutex_);

  spool_counts counts() const AREC_EXCLUDES(mutex_);
  // The name of the window file of `sequence`: window-KEY-SEQUENCE.pb.
  std::string file_name(std::uint64_t sequence) const;
  const std::string& dir() const noexcept { return bounds_.dir; }
  // The spool directory did not exist before this spool made it.
  bool made_directory() const noexcept { return made_directory_; }

 private:
  void index_directory();
  bool spill_oldest() AREC_REQUIRES(mutex_);
  void drop_oldest(std::deque<spool_entry>& tier, std::uint64_t& bytes) AREC_REQUIRES(mutex_);
  void enforce_bounds() AREC_REQUIRES(mutex_);
  void report_burst() AREC_REQUIRES(mutex_);
  // What a file's name says of it: a window of which destination, with which sequence.
  struct file_kind {
    enum { none, own, elsewhere, undirected } kind = none;
    std::uint64_t sequence = 0;
  };
  file_kind kind_of(std::string_view name) const;
  void report_left_alone(std::size_t foreign) const AREC_REQUIRES(mutex_);
  std::string shown_path(const std::string& name) const { return bounds_.dir + "/" + name; }
  std::string name_of(const spool_entry& entry) const {
    return entry.path.substr(bounds_.dir.size() + 1);
  }

  spool_bounds bounds_;
  reporter report_;
  std::string key_;              // 16 hex digits of the destination's SHA-1
  bool made_directory_ = false;  // set before the sender's thread starts, then read only
  io::unique_fd dir_fd_;         // the spool directory, opened once (O_NOFOLLOW): never a path
  bool spill_failing_ AREC_GUARDED_BY(mutex_) = false;  // said once per streak of failed writes
  mutable base::mutex mutex_;
  std::condition_variable_any changed_;
  std::deque<spool_entry> disk_ AREC_GUARDED_BY(mutex_);  // each tier sorted by sequence
  std::deque<spool_entry> memory_ AREC_GUARDED_BY(mutex_);
  std::uint64_t disk_bytes_ AREC_GUARDED_BY(mutex_) = 0;
  std::uint64_t memory_bytes_ AREC_GUARDED_BY(mutex_) = 0;
  std::uint64_t next_sequence_ AREC_GUARDED_BY(mutex_) = 1;
  // Sequences below it are an earlier run's windows, counted apart: this run's summary says
  // "N of M window(s) delivered" of its own M.
  std::uint64_t first_own_sequence_ AREC_GUARDED_BY(mutex_) = 1;
  std::optional<std::uint64_t> in_flight_ AREC_GUARDED_BY(mutex_);
  std::uint64_t generation_ AREC_GUARDED_BY(mutex_) = 0;
  spool_counts counts_ AREC_GUARDED_BY(mutex_);
  std::uint64_t burst_dropped_ AREC_GUARDED_BY(mutex_) = 0;
};

}  // namespace arec::fleet
