// streamer_parts: the streamer's private state types (its rings, outputs, staging buffers and
// snapshots), shared by the units that implement it: streamer.cpp (draining and rounds),
// streamer_staging.cpp (coalesced writes), streamer_snapshots.cpp (--overwrite) and
// streamer_outputs.cpp (--switch-output). Nothing outside those includes it.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "async/event.hpp"
#include "async/readiness.hpp"
#include "record/streaming/streamer.hpp"

namespace arec::record {

struct streamer::ring_state {
  ring_state(const async::executor& executor, std::size_t index, int cpu, ring_buffer mapped,
             ring_wakeup wakeup, int pause_fd)
      : index(index),
        cpu(cpu),
        pause_fd(pause_fd),
        wakeup(wakeup),
        ring(std::move(mapped)),
        ready(executor, wakeup.fd),
        wake(executor),
        written(executor) {}
  std::size_t index;  // in rings_
  int cpu;
  int pause_fd;  // --overwrite: the fd whose ring a snapshot pauses; -1 for none (tests)
  ring_wakeup wakeup;
  ring_buffer ring;
  async::readiness ready;
  async::event wake;     // a round or the stop wants this ring drained
  async::event written;  // this ring's write finished
  stream_stats stats;
  std::uint64_t round_wanted = 0;
  std::uint64_t round_done = 0;
  bool hung_up = false;
  bool finished = false;
  // Where a chunk with records to mend is copied (record_scan.hpp); made on first need.
  std::unique_ptr<std::byte[]> mended;
  off_cpu_recorder::ring_state off_cpu;  // --off-cpu: the switch this ring sampled last
};

// One data file: its stream, its zstd stream (a reader decodes a file's COMPRESSED records as
// one zstd stream, so each file has its own), and what went into it. `active` counts the
// coroutines writing to it: a switch waits for them before the file is handed back.
struct streamer::output {
  explicit output(const async::executor& executor) : idle(executor) {}
  std::unique_ptr<data_stream> stream;
  std::optional<compression_stage> compression;
  stream_stats stats;
  std::size_t active = 0;
  bool pumping = true;
  async::event idle;  // set when `active` drops to 0 or the pump ends
};

// A coroutine's claim on the output it writes to, from choosing it until its write is counted.
class streamer::output_use {
 public:
  explicit output_use(output& out) : out_(out) { ++out_.active; }
  ~output_use() {
    if (--out_.active == 0) out_.idle.set();
  }
  output_use(const output_use&) = delete;
  output_use& operator=(const output_use&) = delete;
  output& get() { return out_; }

 private:
  output& out_;
};

// Drains copied out of their rings, from the first copy until their one write completed. It
// holds its output in use meanwhile, as a drain written from the ring does (a switch waits).
struct streamer::staged_write {
  // A buffer written once this many drains are in it, whatever its room: their counts are kept
  // in `parts`, reserved once, so that staging allocates nothing per drain.
  static constexpr std::size_t max_parts = 64;
  struct part {
    ring_state* ring = nullptr;
    stream_stats drained;
    std::size_t bytes = 0;
  };
  explicit staged_write(const async::executor& executor) : written(executor) {
    parts.reserve(max_parts);
  }
  std::unique_ptr<std::byte[]> bytes;  // config_.staging_buffer_bytes, made on first use
  std::size_t size = 0;                // of the drains in it
  std::vector<part> parts;
  async::event written;
  std::optional<output_use> use;
  bool busy = false;  // filling or being written
};
// One snapshot of every ring: its records in time order, counted per ring.
struct streamer::snapshot {
  std::vector<std::byte> records;
  std::vector<stream_stats> by_ring;
  std::vector<std::size_t> ring_bytes;
  std::uint64_t samples = 0;
};

}  // namespace arec::record
