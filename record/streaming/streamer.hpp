// streamer: the work of one streaming thread. Each of its rings is drained by its own coroutine
// when the ring's wakeup watermark fires; a round coroutine periodically asks every ring for
// what it holds and, in single-file mode, then writes a FINISHED_ROUND so that perf's reader
// can flush its ordering queue. All of it runs on the thread's own executor.
// The class is implemented in four units: streamer.cpp (rings, drains, rounds),
// streamer_staging.cpp (small drains coalesced into one write), streamer_snapshots.cpp
// (--overwrite) and streamer_outputs.cpp (--switch-output); streamer_parts.hpp holds the
// private state they share.
#pragma once

#include <atomic>
#include <bitset>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "async/event.hpp"
#include "async/executor_thread.hpp"
#include "async/readiness.hpp"
#include "async/spawn.hpp"
#include "async/timer.hpp"
#include "host/cpu_list.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/events/event_attrs.hpp"
#include "record/events/perf_event.hpp"
#include "record/offcpu/off_cpu_recorder.hpp"
#include "record/streaming/compression_stage.hpp"
#include "record/streaming/data_stream.hpp"
#include "record/streaming/model_feed.hpp"
#include "record/streaming/output_meter.hpp"
#include "record/streaming/record_scan.hpp"
#include "record/streaming/ring_buffer.hpp"
#include "record/streaming/stream_stats.hpp"

namespace arec::record {

struct streamer_config {
  bool write_rounds = true;      // FINISHED_ROUND records (single file only: never in data.N)
  std::uint64_t mmap_flush = 1;  // bytes a ring must hold before a wakeup drains it
  std::chrono::milliseconds round_interval{250};
  int compression_level = 0;        // 0: write ring bytes as they are; 1..22: zstd (-z)
  model::machine* model = nullptr;  // when set, side-band records drained are applied to it
  record_fixups fixups;             // applied to every drained record before it is read
  // Where a SAMPLE's body holds its time: decided by the attrs' shared sample_type.
  std::size_t sample_time_offset = perf_data::sample_time_offset(common_sample_type);
  // --switch-output=SIZE and --max-size: what this thread writes is counted there, with the
  // other streaming threads' (not owned; outlives the streamer).
  output_meter* meter = nullptr;
  // --overwrite: the rings run backward in overwrite mode and are never drained while
  // recording; each switch_output and the stop first write a snapshot of what they hold (the
  // records since the previous one, in time order).
  bool overwrite = false;
  // --overwrite: a snapshot is written in writes of at most this many bytes of whole records,
  // so that on a full disk the file keeps every slice that fit (the durable offset ends on a
  // record boundary) and loses at most the slice that did not.
  std::size_t snapshot_slice_bytes = 128 * 1024;
  // Where a non-SAMPLE record keeps its time: this many bytes before its end (sample_id_all).
  std::size_t trailer_time_from_end = 0;
  // With a model: where samples keep address and thread, so that the dsos they fall in are
  // marked sampled (the build-id cache takes those); none leaves samples alone.
  std::optional<sample_position> samples;
  // A drain of at most `staging_limit` bytes is copied out and its ring space freed at once.
  // Such drains are appended to one of `staging_buffers` buffers of `staging_buffer_bytes`
  // (allocated on first use), which is written as one request when the next drain does not
  // fit, at a round (before its FINISHED_ROUND), a switch or the end; its completion is reaped
  // at a later wake-up, woken by nothing. Each write costs an io-wq hand-off on ext4, so many
  // small drains share one. A larger drain, or one finding every buffer still being written,
  // is written from the ring and waited for. 128 KiB takes in most of dwarf's drains (~130 KB,
  // an 8 KiB stack per sample); 256 KiB drains into 1 MiB buffers lost samples in dwarf where
  // this lost none (docs/performance-log.md, "Deferred completions").
  std::size_t staging_limit = 128 * 1024;
  std::size_t staging_buffer_bytes = 512 * 1024;
  std::size_t staging_buffers = 4;
  // --off-cpu: the switches this thread drains go there (shared by every streaming thread,
  // outlives the streamer), and the off-CPU samples it gives back are written before each
  // round's marker; `thread_index` is this streamer's place among the streaming threads.
  off_cpu_recorder* off_cpu = nullptr;
  std::size_t thread_index = 0;
};

// What one output (a data file the streamer wrote until switch_output) holds in the end.
struct output_cut {
  std::uint64_t data_end = 0;  // the file's end: every write to it finished (the durable prefix)
  std::exception_ptr failure;  // the error of a write to it that failed: data_end is then a cut
  stream_stats stats;          // its samples, for SAMPLE_TIME
  std::uint64_t compressed_in = 0;
  std::uint64_t compressed_out = 0;
};

// What a streaming thread has written so far, for the status line: published by the streaming
// thread with relaxed atomic stores, read from any thread without locks (each number on its own
// may be a moment old; together they need not be from the same instant).
struct streamer_progress {
  std::uint64_t lost = 0;              // samples the kernel dropped (LOST, LOST_SAMPLES)
  std::uint64_t ring_bytes = 0;        // ring bytes written (before compression)
  std::uint64_t file_bytes = 0;        // bytes those became in the file (after -z)
  std::uint32_t fullest_permille = 0;  // the fullest ring's fill in the last round, 0..1000
};

// How a ring tells its streamer that it holds records to drain.
struct ring_wakeup {
  // Readable when the ring passed its wakeup watermark; hung up (POLLHUP) once nothing will
  // wake the ring any more. Not owned: it must stay open while the streamer lives.
  int fd = -1;
  // Takes a wakeup back, for an fd that stays readable until it is read (a test's pipe). Null
  // for a perf event fd: the kernel clears the ring's wakeup when the fd is polled.
  void (*acknowledge)(int fd) = nullptr;
};

class streamer {
 public:
  // `on_failure` runs on the streaming thread when a write fails; the streamer then stops by
  // itself and join() reports the error.
  streamer(async::executor_thread& thread, const streamer_config& config,
           std::function<void()> on_failure = {});
  ~streamer();

  // Maps the ring of `owner` (the event owning cpu's ring) from the streaming thread, so the
  // mapping's pages are first touched on the thread's own CPUs. With config.overwrite the
  // mapping is read-only and a snapshot pauses the ring through `owner`.
  void add_ring(int cpu, const perf_event& owner, std::size_t data_pages);
  // Adds a ring the caller mapped (ring_buffer::adopt) and wakes through `wakeup`: how tests
  // drain a ring they write themselves (never paused for a snapshot).
  void add_ring(int cpu, ring_buffer ring, ring_wakeup wakeup);
  // Starts the coroutines writing through `writer`; the thread then runs until stop() and the
  // final drain. The rings must be mapped before anything they record is lost, so they are
  // added first and the writer comes when the file's position is known.
  void start(std::unique_ptr<io::append_writer> writer);
  // On the streaming thread as it ends: waits until the kernel holds none of the current
  // output's writes (after a failure or a halt), since no other thread may wait for them.
  void settle() noexcept;
  // Asks for the final drain; callable from any thread.
  void stop();
  // Appends `bytes` (whole records) to this thread's data file, between drains; callable from
  // any thread once started. `bytes` must stay valid until the future is ready; the future
  // carries the write's error. Used to write synthesized records while the rings drain.
  std::future<void> write_records(std::span<const std::byte> bytes);
  // --overwrite: pauses every ring, copies what each wrote since the previous snapshot and
  // resumes them, at once; the copy is written by the next switch_output or the stop, so that
  // records written meanwhile (the tasks described again) come before it. Callable from any
  // thread once started; the future carries a pause's error.
  std::future<void> take_snapshot();
  // --overwrite: writes the snapshot taken into the current output now, before anything else
  // happens to that output (a switch), so that a write failure leaves the output current and
  // the recording ends there; the next switch_output then writes no snapshot of its own. The
  // future carries the write's error (the stream has failed then).
  std::future<void> write_taken_snapshot();
  // Samples of snapshots taken whose records did not all reach the file (a failed write): the
  // newest of them are lost. Valid after the thread was joined.
  std::uint64_t unwritten_snapshot_samples() const { return unwritten_snapshot_samples_; }
  // --overwrite with several streaming threads: pauses every ring of this streamer now, from
  // the calling thread, so that the control thread can pause all threads' rings before any of
  // them copies: the snapshots of one request are then of one instant, not one per thread.
  // take_snapshot() copies and resumes them (pausing a paused ring again is harmless).
  // resume_rings() undoes a pause when another streamer's failed. Callable from any thread
  // once started (the rings and their fds do not change then).
  void pause_rings();
  void resume_rings() noexcept;
  // Lets FINISHED_ROUND records be written (held back while synthesized records still come:
  // perf applies those as it reads them, samples only at a round). Callable from any thread.
  void release_rounds();
  // --switch-output: from the next drain on, records go through `writer` (a fresh file); the
  // drains already started finish on the old one (with --overwrite, the snapshot goes there
  // first, unless write_taken_snapshot wrote it). Holds rounds back again (the new file needs
  // its synthesized records first: release_rounds). The future is ready once nothing more goes
  // to the old file; when a write to it failed, its `failure` says why and `data_end` is the
  // end of what is on the file. `prelude` runs on the streaming thread at the cut (it sees the
  // model as the old file left it) and returns records the new file gets before anything
  // drained.
  std::future<output_cut> switch_output(std::unique_ptr<io::append_writer> writer,
                                        std::function<std::vector<std::byte>()> prelude = {});

  async::executor_thread& thread() { return thread_; }
  // Valid after the thread was joined.
  stream_stats stats() const;
  // Each ring's own counters, by cpu; valid after the thread was joined.
  std::vector<std::pair<int, stream_stats>> stats_by_cpu() const;
  // How far the data file is completely written; readable from any thread once started.
  // With --switch-output: of the current file.
  std::uint64_t durable_offset() const;
  // Samples within that prefix (and in the outputs before); readable from any thread once
  // started.
  std::uint64_t durable_samples() const;
  // The current output's end and counts (the only output without --switch-output); valid
  // after the thread was joined.
  output_cut last_output() const;
  // Live counters; readable from any thread at any time, without locks.
  streamer_progress progress() const;
  std::size_t ring_count() const { return rings_.size(); }
  std::vector<int> cpus() const;
  // Bytes given to and produced by the compressor (both 0 without -z); valid after join.
  std::pair<std::uint64_t, std::uint64_t> compression_totals() const;
  // The cpus the thread was seen running on while draining (valid after the thread was joined).
  std::vector<int> ran_on() const;

 private:
  struct ring_state;
  struct output;
  struct snapshot;
  class output_use;
  struct staged_write;

  void adopt_ring(int cpu, ring_buffer ring, ring_wakeup wakeup, int pause_fd = -1);
  async::task<void> drain_ring(ring_state& ring);
  async::task<void> hold_ring(ring_state& ring);
  async::task<void> write_snapshot();
  async::task<void> compress_snapshot(output& out, const snapshot& taken);
  std::vector<std::vector<std::byte>> copy_rings();
  static void resume_ring(ring_state& ring) noexcept;
  void take_snapshot_now();
  async::task<void> drain_once(ring_state& ring, std::uint64_t min_bytes);
  async::task<void> drain_compressed(ring_state& ring, std::uint64_t min_bytes);
  bool fits_filling(const output& out, std::size_t bytes) const;
  staged_write* take_staging(output& out);
  void stage(ring_state& ring, staged_write& staged, const ring_chunk& chunk,
             const stream_stats& drained);
  async::task<void> flush_staging();
  void submit_staged(staged_write& staged);
  async::task<void> finish_staged(staged_write& staged);
  void note_cpu();
  stream_stats note_drain(ring_state& ring, ring_chunk& chunk);
  ring_chunk mend(ring_state& ring, const ring_chunk& chunk);
  // `round_counted`: bytes_since_round_ already has them (a staged write counts at submission).
  void count_written(ring_state& ring, output& out, stream_stats& drained, std::size_t bytes,
                     bool round_counted = false);
  void count_segment(output& out, std::span<const stream_stats> by_ring, std::uint64_t file_bytes);
  async::task<void> finish_stream();
  std::unique_ptr<output> make_output(std::unique_ptr<io::append_writer> writer);
  async::task<void> pump(output& out);
  async::task<void> cut(std::unique_ptr<output> old, std::shared_ptr<std::promise<output_cut>>);
  async::task<void> switch_when_drained(std::unique_ptr<io::append_writer> writer,
                                        std::function<std::vector<std::byte>()> prelude,
                                        std::shared_ptr<std::promise<output_cut>> promise);
  void count_output_bytes(std::uint64_t bytes);
  async::task<void> run_rounds();
  async::task<void> write_external(std::span<const std::byte> bytes);
  async::task<void> write_owned(std::shared_ptr<std::vector<std::byte>> bytes);
  async::task<void> write_off_cpu_samples();
  async::task<void> wait_for_round_acks(std::uint64_t round);
  void request_drain(ring_state& ring);
  void on_stop();
  void note_fill(std::uint64_t unread, std::size_t capacity);
  void publish_fill();

  async::executor_thread& thread_;
  streamer_config config_;
  std::function<void()> on_failure_;
  // Rings before the stream: the stream (its writer) dies first, and it waits for writes that
  // still read from the ring mappings.
  std::vector<std::unique_ptr<ring_state>> rings_;
  // Before the outputs for the same reason: a failed stream's writer waits for them.
  std::vector<std::unique_ptr<staged_write>> staging_;
  staged_write* filling_ = nullptr;  // the staging buffer drains are appended to, not yet written
  // The output records go to now; `published_` is the same, for readers on other threads.
  std::unique_ptr<output> current_;
  std::atomic<output*> published_{nullptr};
  std::atomic<std::uint64_t> samples_in_cut_outputs_{0};
  async::timer round_timer_;
  async::event round_acked_;
  async::event round_record_written_;
  async::event snapshot_written_;
  std::unique_ptr<snapshot> pending_snapshot_;  // taken, not written yet
  bool snapshot_written_early_ = false;         // by write_taken_snapshot, for the next switch
  std::uint64_t unwritten_snapshot_samples_ = 0;
  stream_stats partial_snapshots_;  // what reached the file of snapshots that failed part way
  std::uint64_t round_ = 0;
  std::uint64_t bytes_since_round_ = 0;
  std::size_t rings_running_ = 0;
  bool stopping_ = false;
  bool rounds_held_ = true;
  std::bitset<host::max_cpus> ran_on_;
  std::uint64_t compressed_file_bytes_ = 0;  // what the compressed segments took on the files
  std::uint64_t cut_compressed_in_ = 0;      // compressor totals of the outputs switched from
  std::uint64_t cut_compressed_out_ = 0;
  std::optional<model_feed> feed_;          // this thread's view into the shared model
  std::vector<std::byte> off_cpu_samples_;  // encoded, not written yet; storage reused
  // Written only by the streaming thread, read by anyone (progress()).
  std::atomic<std::uint64_t> lost_{0};
  std::atomic<std::uint64_t> ring_bytes_{0};
  std::atomic<std::uint64_t> file_bytes_{0};
  std::atomic<std::uint32_t> fullest_permille_{0};
  std::uint32_t round_fullest_permille_ = 0;  // the streaming thread's own, until published
};

}  // namespace arec::record
