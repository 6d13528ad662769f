#include "record/streaming/streamer.hpp"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <system_error>
#include <utility>

#include "perf_data/perf_abi.hpp"
#include "record/streaming/backward_ring.hpp"
#include "record/streaming/record_scan.hpp"
#include "record/streaming/streamer_parts.hpp"

namespace arec::record {
namespace {

constexpr perf_data::record_header finished_round_record{perf_data::record_finished_round, 0, 8};

// A per-task event whose tasks all exited stays readable forever (POLLHUP): waiting on it would
// spin, so such a ring is then drained by rounds and the final drain only.
bool hung_up(int fd) {
  pollfd entry{fd, POLLIN, 0};
  return ::poll(&entry, 1, 0) == 1 && (entry.revents & POLLHUP);
}

}  // namespace

streamer::streamer(async::executor_thread& thread, const streamer_config& config,
                   std::function<void()> on_failure)
    : thread_(thread),
      config_(config),
      on_failure_(std::move(on_failure)),
      round_timer_(thread.executor()),
      round_acked_(thread.executor()),
      round_record_written_(thread.executor()),
      snapshot_written_(thread.executor()) {
  if (config.model) feed_.emplace(*config.model, config.trailer_time_from_end, config.samples);
  if (config.staging_limit > 0)
    for (std::size_t i = 0; i < config.staging_buffers; ++i)
      staging_.push_back(std::make_unique<staged_write>(thread.executor()));
}

streamer::~streamer() {
  // A staged write whose finisher never ran (its executor stopped first) still holds its
  // output; let go while the outputs exist (members die after this body).
  for (auto& staged : staging_) staged->use.reset();
}

void streamer::add_ring(int cpu, const perf_event& owner, std::size_t data_pages) {
  thread_.run_sync([&] {
    adopt_ring(cpu, ring_buffer::map(owner, data_pages, cpu, config_.overwrite),
               ring_wakeup{owner.fd()}, owner.fd());
  });
}

void streamer::add_ring(int cpu, ring_buffer ring, ring_wakeup wakeup) {
  thread_.run_sync([&] { adopt_ring(cpu, std::move(ring), wakeup); });
}

// On the streaming thread, before start(): the ring's waits belong to its executor.
void streamer::adopt_ring(int cpu, ring_buffer ring, ring_wakeup wakeup, int pause_fd) {
  rings_.push_back(std::make_unique<ring_state>(thread_.executor(), rings_.size(), cpu,
                                                std::move(ring), wakeup, pause_fd));
}

std::vector<int> streamer::cpus() const {
  std::vector<int> cpus;
  for (const auto& ring : rings_) cpus.push_back(ring->cpu);
  return cpus;
}

void streamer::start(std::unique_ptr<io::append_writer> writer) {
  auto executor = thread_.executor();
  current_ = make_output(std::move(writer));
  published_.store(current_.get(), std::memory_order_release);
  rings_running_ = rings_.size();
  for (auto& ring : rings_)
    async::spawn(executor, config_.overwrite ? hold_ring(*ring) : drain_ring(*ring),
                 thread_.completion());
  async::spawn(executor, run_rounds(), thread_.completion());
  if (rings_.empty()) current_->stream->close();
}

void streamer::settle() noexcept {
  if (current_) current_->stream->settle();
}

void streamer::stop() {
  async::post(thread_.executor(), [this] { on_stop(); });
}

std::future<void> streamer::write_records(std::span<const std::byte> bytes) {
  auto written = std::make_shared<std::promise<void>>();
  std::future<void> result = written->get_future();
  async::spawn(thread_.executor(), write_external(bytes), [written](std::exception_ptr failure) {
    if (failure)
      written->set_exception(failure);
    else
      written->set_value();
  });
  return result;
}

async::task<void> streamer::write_external(std::span<const std::byte> bytes) {
  async::event written(thread_.executor());
  std::array<std::span<const std::byte>, 1> pieces{bytes};
  output_use use(*current_);
  co_await use.get().stream->write(pieces, written);
  bytes_since_round_ += bytes.size();
  count_output_bytes(bytes.size());
}

async::task<void> streamer::write_off_cpu_samples() {
  if (off_cpu_samples_.empty()) co_return;
  std::vector<std::byte> samples;
  samples.swap(off_cpu_samples_);  // the recorder may add more while this write waits
  co_await write_external(samples);
  samples.clear();
  if (off_cpu_samples_.empty()) off_cpu_samples_.swap(samples);  // keep the storage
}

async::task<void> streamer::write_owned(std::shared_ptr<std::vector<std::byte>> bytes) {
  co_await write_external(*bytes);
  co_return;
}

// --switch-output=SIZE and --max-size look at what the files took, as perf counts its writes.
void streamer::count_output_bytes(std::uint64_t bytes) {
  if (config_.meter) config_.meter->add(bytes);
}

void streamer::release_rounds() {
  async::post(thread_.executor(), [this] { rounds_held_ = false; });
}

void streamer::on_stop() {
  stopping_ = true;
  for (auto& ring : rings_) request_drain(*ring);
  round_timer_.cancel();
  round_acked_.set();
}

void streamer::request_drain(ring_state& ring) {
  ring.round_wanted = round_;
  ring.ready.cancel();
  ring.wake.set();
}

async::task<void> streamer::drain_ring(ring_state& ring) {
  while (!stopping_) {
    bool forced = ring.round_wanted > ring.round_done;
    if (!forced && ring.hung_up) {
      ring.wake.reset();
      co_await ring.wake.wait();
    } else if (!forced) {
      bool readable = co_await ring.ready.readable();
      if (readable && ring.wakeup.acknowledge) ring.wakeup.acknowledge(ring.wakeup.fd);
      // A wakeup that leaves nothing to drain may be a hang-up: then the fd is readable at once
      // on every wait. Holding less than --mmap-flush is the same as empty here.
      if (readable && ring.ring.reader().unread_bytes() < config_.mmap_flush)
        ring.hung_up = hung_up(ring.wakeup.fd);
    }
    if (stopping_) break;
    std::uint64_t wanted = ring.round_wanted;
    co_await drain_once(ring, wanted > ring.round_done ? 1 : config_.mmap_flush);
    if (wanted > ring.round_done) {
      ring.round_done = wanted;
      round_acked_.set();
    }
  }
  // The final drain takes everything, whatever --mmap-flush says.
  while (!current_->stream->failed() && ring.ring.reader().unread_bytes() > 0)
    co_await drain_once(ring, 1);
  ring.finished = true;
  round_acked_.set();
  if (--rings_running_ == 0) co_await finish_stream();
}

// The last ring is drained: what the compression stage still holds is the end of the stream.
// With --overwrite the end is the rings' last snapshot, as perf writes it at exit.
async::task<void> streamer::finish_stream() {
  if (feed_) feed_->apply_queued();  // every ring's last records are in
  std::exception_ptr failure;
  if (config_.overwrite && !current_->stream->failed()) {
    try {
      co_await write_snapshot();
    } catch (const std::system_error&) {
      failure = std::current_exception();  // reported once the stream is closed
    }
  }
  output_use use(*current_);
  co_await flush_staging();
  if (use.get().compression && !use.get().stream->failed())
    co_await use.get().compression->seal(*use.get().stream);
  // The last thread to end writes the blocks still open and the sums of short ones.
  if (config_.off_cpu && config_.off_cpu->thread_ended(config_.thread_index, off_cpu_samples_) &&
      !use.get().stream->failed())
    co_await write_off_cpu_samples();
  use.get().stream->close();
  if (failure) std::rethrow_exception(failure);
  // A write that failed before (a snapshot written early, whose caller got the error) ends the
  // thread with that error too: join() is where the session learns that the file was cut.
  use.get().stream->throw_if_failed();
}

async::task<void> streamer::drain_once(ring_state& ring, std::uint64_t min_bytes) {
  if (current_->compression) {
    co_await drain_compressed(ring, min_bytes);
    co_return;
  }
  // This wake-up reaps what earlier staged writes finished; their finishers run before this
  // drain takes a buffer (a yield, not a system call), so the buffers are free again.
  if (current_->stream->poll() > 0 && !staging_.empty()) co_await async::yield(thread_.executor());
  ring_reader& reader = ring.ring.reader();
  ring_chunk chunk = reader.unread();
  if (chunk.empty() || chunk.size() < min_bytes) co_return;
  note_fill(chunk.size(), reader.capacity());
  stream_stats drained = note_drain(ring, chunk);
  output_use use(*current_);  // chosen with the chunk, with no suspension between
  if (chunk.empty()) {        // every record was consumed (--off-cpu's switches)
    reader.consume(chunk.end_position);
    count_written(ring, use.get(), drained, 0);
    co_return;
  }
  if (chunk.size() <= config_.staging_limit && !staging_.empty()) {
    for (;;) {
      if (filling_ != nullptr && !fits_filling(use.get(), chunk.size())) {
        co_await flush_staging();  // another drain may fill or flush meanwhile: look again
        continue;
      }
      if (filling_ == nullptr) filling_ = take_staging(use.get());
      if (filling_ == nullptr) break;  // every buffer is being written
      stage(ring, *filling_, chunk, drained);
      co_return;
    }
  }
  // A mended chunk is a copy: the ring's space is free at once, not when the write ends (a
  // switch flood under --off-cpu fills a ring while a write completes).
  bool copied = ring.mended && chunk.pieces[0].data() == ring.mended.get();
  if (copied) reader.consume(chunk.end_position);
  co_await use.get().stream->write(chunk.pieces, ring.written, drained.samples);
  if (!copied) reader.consume(chunk.end_position);  // only now may the kernel reuse the space
  count_written(ring, use.get(), drained, chunk.size());
}

async::task<void> streamer::drain_compressed(ring_state& ring, std::uint64_t min_bytes) {
  // A switch while waiting for a segment: the chunk goes to the output current after it.
  for (;;) {
    output_use use(*current_);
    output& out = use.get();
    co_await out.compression->ready(*out.stream);
    if (&out != current_.get()) continue;
    ring_reader& reader = ring.ring.reader();
    ring_chunk chunk = reader.unread();
    if (chunk.empty() || chunk.size() < min_bytes) co_return;
    note_fill(chunk.size(), reader.capacity());
    stream_stats drained = note_drain(ring, chunk);
    out.compression->add(chunk.pieces, ring.index, drained);
    reader.consume(chunk.end_position);  // zstd took the bytes: the ring space is free
    if (out.compression->full()) co_await out.compression->seal(*out.stream);
    co_return;
  }
}

void streamer::note_cpu() {
  if (int cpu = sched_getcpu(); cpu >= 0 && cpu < host::max_cpus)
    ran_on_.set(static_cast<std::size_t>(cpu));
}

stream_stats streamer::note_drain(ring_state& ring, ring_chunk& chunk) {
  note_cpu();
  stream_stats drained{.drains = 1};
  if (config_.off_cpu) {  // before mending takes its records out
    ring.off_cpu.thread = config_.thread_index;
    config_.off_cpu->scan(chunk, ring.off_cpu);
  }
  if (scan_records(chunk, drained, config_.sample_time_offset, config_.fixups))
    chunk = mend(ring, chunk);
  if (feed_) feed_->scan(chunk);
  return drained;
}

// Rare (another session on the machine asked the kernel for build-ids): the chunk is copied
// once, mended, and written or compressed from the copy, which lives until the next drain.
ring_chunk streamer::mend(ring_state& ring, const ring_chunk& chunk) {
  std::size_t capacity = ring.ring.reader().capacity();
  if (!ring.mended) ring.mended = std::make_unique_for_overwrite<std::byte[]>(capacity);
  std::span<std::byte> copy{ring.mended.get(), chunk.size()};
  chunk.copy_out(0, copy);
  copy = copy.first(mend_records(copy, config_.fixups));
  return ring_chunk{.pieces = {copy, {}}, .end_position = chunk.end_position};
}

// Counted once on the file, so the summary never claims what a failed write lost.
void streamer::count_written(ring_state& ring, output& out, stream_stats& drained,
                             std::size_t bytes, bool round_counted) {
  drained.bytes_out = bytes;
  ring.stats.merge(drained);
  out.stats.merge(drained);
  count_output_bytes(bytes);
  if (!round_counted) bytes_since_round_ += bytes;
  // Only this thread writes them: a relaxed add is a plain store others may read at any time.
  lost_.fetch_add(drained.lost, std::memory_order_relaxed);
  ring_bytes_.fetch_add(drained.bytes_in, std::memory_order_relaxed);
  file_bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

// A drain sees its ring at its fullest (what it takes is what piled up); so does a round.
void streamer::note_fill(std::uint64_t unread, std::size_t capacity) {
  if (capacity == 0) return;
  auto permille =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(unread * 1000 / capacity, 1000));
  round_fullest_permille_ = std::max(round_fullest_permille_, permille);
}

// Once a round: the fullest fill seen since the previous one becomes what others read.
void streamer::publish_fill() {
  for (auto& ring : rings_) {
    if (config_.overwrite)  // what a snapshot would take now
      note_fill(ring->ring.backward().written_since_take(), ring->ring.reader().capacity());
    else
      note_fill(ring->ring.reader().unread_bytes(), ring->ring.reader().capacity());
  }
  fullest_permille_.store(round_fullest_permille_, std::memory_order_relaxed);
  round_fullest_permille_ = 0;
}

streamer_progress streamer::progress() const {
  return {lost_.load(std::memory_order_relaxed), ring_bytes_.load(std::memory_order_relaxed),
          file_bytes_.load(std::memory_order_relaxed),
          fullest_permille_.load(std::memory_order_relaxed)};
}

// A segment holds several drains of several rings: its samples count per ring, its file bytes
// for the thread only (compressed bytes cannot be told apart by ring).
void streamer::count_segment(output& out, std::span<const stream_stats> by_ring,
                             std::uint64_t file_bytes) {
  count_output_bytes(file_bytes);
  for (std::size_t i = 0; i < by_ring.size(); ++i) {
    rings_[i]->stats.merge(by_ring[i]);
    out.stats.merge(by_ring[i]);
    lost_.fetch_add(by_ring[i].lost, std::memory_order_relaxed);
    ring_bytes_.fetch_add(by_ring[i].bytes_in, std::memory_order_relaxed);
  }
  compressed_file_bytes_ += file_bytes;
  bytes_since_round_ += file_bytes;
  file_bytes_.fetch_add(file_bytes, std::memory_order_relaxed);
}

std::pair<std::uint64_t, std::uint64_t> streamer::compression_totals() const {
  if (!current_ || !current_->compression) return {cut_compressed_in_, cut_compressed_out_};
  return {cut_compressed_in_ + current_->compression->totals().bytes_in(),
          cut_compressed_out_ + current_->compression->totals().bytes_out()};
}

async::task<void> streamer::run_rounds() {
  while (!stopping_) {
    note_cpu();  // a thread with idle rings still shows where it runs
    co_await round_timer_.wait_for(config_.round_interval);  // on_stop() cancels it
    if (stopping_) break;
    publish_fill();
    current_->stream->poll();  // staged writes finished since: counted, their buffers free
    ++round_;
    if (feed_) feed_->round_started();
    if (config_.off_cpu) config_.off_cpu->round_started(config_.thread_index);
    for (auto& ring : rings_) request_drain(*ring);
    co_await wait_for_round_acks(round_);
    if (stopping_) break;
    if (feed_) feed_->round_finished();
    if (config_.off_cpu) config_.off_cpu->round_finished(config_.thread_index, off_cpu_samples_);
    output_use use(*current_);
    output& out = use.get();
    co_await flush_staging();  // the round's staged drains go before its marker
    if (stopping_) break;      // the end writes what is left, then closes the stream
    if (out.compression) {
      // The round's drains must be on the file before its marker.
      co_await out.compression->seal(*out.stream);
      if (stopping_) break;
    }
    co_await write_off_cpu_samples();  // the blocks the round's switches ended
    // The stop may have come while they were written: the end may have closed the stream, and
    // a write started after that is reaped by nobody (arec --off-cpu hung at exit, waiting for
    // this round's marker, in about one run in twenty).
    if (stopping_) break;
    // A switch meanwhile held rounds back: the marker would belong to the new file.
    if (config_.write_rounds && !rounds_held_ && bytes_since_round_ > 0) {
      // Every record written after this marker is newer than all records before the previous
      // one: each ring was drained after the previous marker was written.
      bytes_since_round_ = 0;
      std::array<std::span<const std::byte>, 1> pieces{
          std::as_bytes(std::span{&finished_round_record, 1})};
      co_await out.stream->write(pieces, round_record_written_);
      count_output_bytes(sizeof finished_round_record);
    }
  }
}

async::task<void> streamer::wait_for_round_acks(std::uint64_t round) {
  for (;;) {
    bool all_done = true;
    for (auto& ring : rings_)
      if (!ring->finished && ring->round_done < round) all_done = false;
    if (all_done || stopping_) co_return;
    round_acked_.reset();
    co_await round_acked_.wait();
  }
}

std::vector<int> streamer::ran_on() const {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < host::max_cpus; ++cpu)
    if (ran_on_.test(static_cast<std::size_t>(cpu))) cpus.push_back(cpu);
  return cpus;
}

std::vector<std::pair<int, stream_stats>> streamer::stats_by_cpu() const {
  std::vector<std::pair<int, stream_stats>> by_cpu;
  for (const auto& ring : rings_) by_cpu.emplace_back(ring->cpu, ring->stats);
  return by_cpu;
}

stream_stats streamer::stats() const {
  stream_stats total = partial_snapshots_;
  for (const auto& ring : rings_) total.merge(ring->stats);
  total.bytes_out += compressed_file_bytes_;
  return total;
}

}  // namespace arec::record
