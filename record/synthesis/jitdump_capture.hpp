// jitdump_capture: the jitdumps of the recorded processes (host/jitdump), opened through the
// marker mapping their runtime makes of them (machine::on_jitdump_mapped) while the process
// lives, kept open, and read whole record by whole record at each finished file of the
// recording and at the process's exit: the runtime appends while it runs, and the fd keeps the
// dump readable after the process, its file, or its container is gone. Bounded per process and
// per recording; what a bound leaves out is counted, stored and said. docs/symbols.md, "JIT
// code: jitdumps".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "host/jitdump.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/jitdumps_feature.hpp"

namespace arec::record {

// The most of one process's dump kept, and of all the dumps kept at once (what one file's
// feature may hold: its reader accepts no more).
struct jitdump_limits {
  std::uint64_t per_process = std::uint64_t{64} << 20;
  std::uint64_t total = perf_data::max_perf_map_bytes;
};

class jitdump_capture {
 public:
  using message_sink = std::function<void(const std::string&)>;
  explicit jitdump_capture(message_sink say = {}, jitdump_limits limits = {},
                           host::proc_root proc = {})
      : say_(std::move(say)), limits_(limits), proc_(std::move(proc)) {}

  // Opens the dump `place.pid` maps at [place.start, place.end) as `path`, once per process,
  // and reads what it holds so far. Safe from any thread; call it off the streaming threads.
  void open(const host::mapping_place& place, const std::string& path) AREC_EXCLUDES(mutex_);
  // Reads what the dump of `pid` appended since the last look (it is exiting). Safe from any
  // thread.
  void read_new(pid_t pid) AREC_EXCLUDES(mutex_);
  // Every kept dump as it is now (read to its current end first), compressed once per change:
  // each finished file of the recording holds the dumps' state at its end.
  std::vector<perf_data::stored_jitdump> dumps() AREC_EXCLUDES(mutex_);
  // Forgets the dumps of processes that are gone, once a finished file holds them.
  void forget_gone_processes() AREC_EXCLUDES(mutex_);

 private:
  struct kept_dump {
    pid_t pid = 0;
    std::uint64_t started = 0;  // the process's start time: a reused pid is another process
    std::string name;           // "pid 7's /tmp/jit-7.dump", for messages
    io::unique_fd fd;
    host::jitdump_cursor cursor;
    std::string bytes;           // the header and the whole records read so far
    std::uint64_t left_out = 0;  // bytes of the file after them that a bound left out
    bool problem_said = false;
    perf_data::stored_jitdump stored;
    bool stored_current = false;
  };
  void read_more(kept_dump& dump) AREC_REQUIRES(mutex_);
  void say(const std::string& line) const {
    if (say_) say_("arec: warning: " + line);
  }

  const message_sink say_;
  const jitdump_limits limits_;
  const host::proc_root proc_;
  base::mutex mutex_;
  std::vector<kept_dump> dumps_ AREC_GUARDED_BY(mutex_);
  std::uint64_t total_bytes_ AREC_GUARDED_BY(mutex_) = 0;  // of every dump kept
  static constexpr std::size_t max_dumps = 1024;
  std::size_t dumps_left_out_ AREC_GUARDED_BY(mutex_) = 0;
};

}  // namespace arec::record
