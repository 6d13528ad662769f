#include "record/streaming/streamer.hpp"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <system_error>
#include <utility>

#include "io/perf_data/perf_abi.hpp"
#include "record/streaming/backward_ring.hpp"
#include "record/streaming/record_scan.hpp"

namespace arec::record {
namespace {

constexpr io::perf::record_header finished_round_record{io::perf::record_finished_round, 0, 8};

// A per-task event whose tasks all exited stays readable forever (POLLHUP): waiting on it would
// spin, so such a ring is then drained by rounds and the final drain only.
bool hung_up(int fd) {
  pollfd entry{fd, POLLIN, 0};
  return ::poll(&entry, 1, 0) == 1 && (entry.revents & POLLHUP);
}

// The bytes of the whole records at the start of `records` that fit in `limit` (at least the
// first record).
std::size_t whole_records_within(std::span<const std::byte> records, std::size_t limit) {
  std::size_t size = 0;
  while (size + sizeof(io::perf::record_header) <= records.size()) {
    io::perf::record_header header;
    std::memcpy(&header, records.data() + size, sizeof header);
    if (header.size == 0 || (size > 0 && size + header.size > limit)) break;
    size += header.size;
  }
  return size > 0 ? size : records.size();
}

}  // namespace

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

std::unique_ptr<streamer::output> streamer::make_output(std::unique_ptr<io::append_writer> writer) {
  auto executor = thread_.executor();
  auto out = std::make_unique<output>(executor);
  out->stream = std::make_unique<data_stream>(executor, std::move(writer), [this] {
    on_stop();
    if (on_failure_) on_failure_();
  });
  if (config_.compression_level > 0) {
    // A drain takes at most a ring's capacity: sealing at that much input bounds each record.
    std::size_t largest_ring = 0;
    for (const auto& ring : rings_)
      largest_ring = std::max(largest_ring, ring->ring.reader().capacity());
    output* target = out.get();
    out->compression.emplace(
        executor, config_.compression_level, largest_ring, rings_.size(),
        [this, target](std::span<const stream_stats> by_ring, std::uint64_t bytes) {
          count_segment(*target, by_ring, bytes);
        });
  }
  async::spawn(executor, pump(*out), thread_.completion());
  return out;
}

async::task<void> streamer::pump(output& out) {
  co_await out.stream->pump();
  out.pumping = false;
  out.idle.set();
  co_return;
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

std::uint64_t streamer::durable_offset() const {
  return published_.load(std::memory_order_acquire)->stream->durable_offset();
}

std::uint64_t streamer::durable_samples() const {
  return samples_in_cut_outputs_.load(std::memory_order_relaxed) +
         published_.load(std::memory_order_acquire)->stream->durable_samples();
}

output_cut streamer::last_output() const {
  output_cut result;
  result.data_end = current_->stream->durable_offset();
  result.stats = current_->stats;
  if (current_->compression) {
    result.compressed_in = current_->compression->totals().bytes_in();
    result.compressed_out = current_->compression->totals().bytes_out();
  }
  return result;
}

std::future<output_cut> streamer::switch_output(std::unique_ptr<io::append_writer> writer,
                                                std::function<std::vector<std::byte>()> prelude) {
  auto promise = std::make_shared<std::promise<output_cut>>();
  std::future<output_cut> result = promise->get_future();
  auto next = std::make_shared<std::unique_ptr<io::append_writer>>(std::move(writer));
  async::post(thread_.executor(), [this, next, promise, prelude = std::move(prelude)]() mutable {
    async::spawn(thread_.executor(),
                 switch_when_drained(std::move(*next), std::move(prelude), promise),
                 thread_.completion());
  });
  return result;
}

// Every ring is drained first, all in one pass: the old file then holds each ring up to about
// the same instant, so a sample there finds the MMAP or COMM another cpu's ring recorded just
// before it (a ring waiting for its watermark could otherwise hold such a record back, for the
// new file, for as long as a round).
async::task<void> streamer::switch_when_drained(std::unique_ptr<io::append_writer> writer,
                                                std::function<std::vector<std::byte>()> prelude,
                                                std::shared_ptr<std::promise<output_cut>> promise) {
  std::uint64_t round = ++round_;
  for (auto& ring : rings_) request_drain(*ring);
  co_await wait_for_round_acks(round);
  if (feed_) feed_->apply_queued();  // the old file's records, before the prelude reads the model
  if (config_.overwrite && !std::exchange(snapshot_written_early_, false)) {
    try {
      co_await write_snapshot();
    } catch (const std::system_error&) {
      // The old stream failed: cut() hands its error to the caller.
    }
  }
  // Taken before any drain into the new file: the model holds what the old file made.
  auto first = std::make_shared<std::vector<std::byte>>();
  if (prelude) *first = prelude();
  // The cut: a drain that chose the old output before this point writes there, every drain
  // after it goes to the new one. A ring's bytes are consumed only once written, so each
  // record lands in exactly one file.
  std::unique_ptr<output> old = std::move(current_);
  current_ = make_output(std::move(writer));
  published_.store(current_.get(), std::memory_order_release);
  rounds_held_ = true;
  bytes_since_round_ = 0;
  if (!first->empty()) async::spawn(thread_.executor(), write_owned(first), thread_.completion());
  // After the last ring's final drain nothing would close the new stream (finish_stream did).
  if (rings_running_ == 0) current_->stream->close();
  co_await cut(std::move(old), promise);
  co_return;
}

// Ends the old output once the writes that chose it finished; the rings meanwhile drain into
// the new one.
async::task<void> streamer::cut(std::unique_ptr<output> old,
                                std::shared_ptr<std::promise<output_cut>> promise) {
  std::exception_ptr failure;
  try {
    if (old->compression && !old->stream->failed()) {
      output_use use(*old);
      co_await old->compression->seal(*old->stream);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // Staged drains to it still count as active until written and reaped: write what is
  // filling, and reap the rest as it comes.
  co_await flush_staging();
  old->stream->expedite();
  while (old->active > 0) {
    old->idle.reset();
    co_await old->idle.wait();
  }
  old->stream->close();
  while (old->pumping) {
    old->idle.reset();
    co_await old->idle.wait();
  }
  output_cut result;
  result.data_end = old->stream->durable_offset();
  result.stats = old->stats;
  if (old->compression) {
    result.compressed_in = old->compression->totals().bytes_in();
    result.compressed_out = old->compression->totals().bytes_out();
    cut_compressed_in_ += result.compressed_in;
    cut_compressed_out_ += result.compressed_out;
  }
  samples_in_cut_outputs_.fetch_add(old->stream->durable_samples(), std::memory_order_relaxed);
  try {
    old->stream->throw_if_failed();
  } catch (...) {
    failure = std::current_exception();
  }
  result.failure = failure;
  promise->set_value(result);
  co_return;
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
  use.get().stream->close();
  if (failure) std::rethrow_exception(failure);
  // A write that failed before (a snapshot written early, whose caller got the error) ends the
  // thread with that error too: join() is where the session learns that the file was cut.
  use.get().stream->throw_if_failed();
}

// --overwrite: a ring is never drained while recording; rounds and switches only need it to
// say it saw their request.
async::task<void> streamer::hold_ring(ring_state& ring) {
  while (!stopping_) {
    if (ring.round_wanted > ring.round_done) {
      ring.round_done = ring.round_wanted;
      round_acked_.set();
      continue;
    }
    ring.wake.reset();
    co_await ring.wake.wait();
  }
  ring.finished = true;
  round_acked_.set();
  if (--rings_running_ == 0) co_await finish_stream();
  co_return;
}

void streamer::pause_rings() {
  std::size_t paused = 0;
  try {
    for (; paused < rings_.size(); ++paused)
      if (rings_[paused]->pause_fd >= 0) perf_event::pause_output(rings_[paused]->pause_fd, true);
  } catch (...) {
    resume_rings();  // also those a caller paused before: none may stay paused
    throw;
  }
}

void streamer::resume_rings() noexcept {
  for (auto& ring : rings_) resume_ring(*ring);
}

// Best effort: when a resume fails the pause's or the copy's error is the one to report.
void streamer::resume_ring(ring_state& ring) noexcept {
  try {
    if (ring.pause_fd >= 0) perf_event::pause_output(ring.pause_fd, false);
  } catch (const std::system_error&) {
  }
}

// Every ring paused at once (unless the session paused them already), as perf pauses them, so
// the snapshot is of one instant and the kernel overwrites nothing being copied; what each
// holds since the previous snapshot is copied out and the rings resume.
std::vector<std::vector<std::byte>> streamer::copy_rings() {
  pause_rings();
  std::vector<std::vector<std::byte>> copies(rings_.size());
  try {
    for (std::size_t i = 0; i < rings_.size(); ++i) {
      ring_chunk chunk = rings_[i]->ring.backward().take();
      copies[i].resize(chunk.size());
      chunk.copy_out(0, copies[i]);
    }
  } catch (...) {
    resume_rings();
    throw;
  }
  for (auto& ring : rings_)
    if (ring->pause_fd >= 0) perf_event::pause_output(ring->pause_fd, false);
  return copies;
}

// One snapshot of every ring: its records in time order, counted per ring.
struct streamer::snapshot {
  std::vector<std::byte> records;
  std::vector<stream_stats> by_ring;
  std::vector<std::size_t> ring_bytes;
  std::uint64_t samples = 0;
};

std::future<void> streamer::take_snapshot() {
  auto taken = std::make_shared<std::promise<void>>();
  std::future<void> result = taken->get_future();
  async::post(thread_.executor(), [this, taken] {
    try {
      take_snapshot_now();
      taken->set_value();
    } catch (...) {
      taken->set_exception(std::current_exception());
    }
  });
  return result;
}

// The records are scanned and fed to the model as drained records are, when taken: the model
// then knows the tasks they describe before the next file's prelude is made.
void streamer::take_snapshot_now() {
  note_cpu();
  std::vector<std::vector<std::byte>> copies = copy_rings();
  auto taken = std::make_unique<snapshot>();
  taken->by_ring.resize(rings_.size());
  bool mending = false;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    ring_chunk chunk{.pieces = {std::span<const std::byte>(copies[i]), {}}};
    mending |= scan_records(chunk, taken->by_ring[i], config_.sample_time_offset, config_.fixups);
    taken->samples += taken->by_ring[i].samples;
    taken->ring_bytes.push_back(copies[i].size());
  }
  taken->records =
      order_by_time(copies, {config_.sample_time_offset, config_.trailer_time_from_end});
  if (mending) mend_records(taken->records, config_.fixups);
  if (feed_) {
    feed_->scan(ring_chunk{.pieces = {std::span<const std::byte>(taken->records), {}}});
    feed_->apply_queued();  // every ring's records up to the pause are in
  }
  pending_snapshot_ = std::move(taken);
}

std::future<void> streamer::write_taken_snapshot() {
  auto written = std::make_shared<std::promise<void>>();
  std::future<void> result = written->get_future();
  async::post(thread_.executor(), [this, written] {
    snapshot_written_early_ = true;
    async::spawn(thread_.executor(), write_snapshot(), [written](std::exception_ptr failure) {
      if (failure)
        written->set_exception(failure);
      else
        written->set_value();
    });
  });
  return result;
}

// The snapshot taken (or one taken now, when none is pending) goes to the current output in
// slices of whole records. Its counts go to its rings once all of it is on the file; when a
// slice fails, the slices before it are counted for the stream alone (a slice mixes rings).
async::task<void> streamer::write_snapshot() {
  if (!pending_snapshot_) take_snapshot_now();
  std::unique_ptr<snapshot> taken = std::move(pending_snapshot_);
  if (taken->records.empty()) co_return;
  output_use use(*current_);
  if (use.get().compression) {
    co_await compress_snapshot(use.get(), *taken);
    co_return;
  }
  std::span<const std::byte> rest = taken->records;
  stream_stats written;
  try {
    while (!rest.empty()) {
      std::span<const std::byte> slice =
          rest.first(whole_records_within(rest, config_.snapshot_slice_bytes));
      stream_stats in_slice;
      scan_records(ring_chunk{.pieces = {slice, {}}}, in_slice, config_.sample_time_offset);
      std::array<std::span<const std::byte>, 1> pieces{slice};
      co_await use.get().stream->write(pieces, snapshot_written_, in_slice.samples);
      in_slice.bytes_in = in_slice.bytes_out = slice.size();
      written.merge(in_slice);
      rest = rest.subspan(slice.size());
    }
  } catch (const std::system_error&) {
    unwritten_snapshot_samples_ += taken->samples - written.samples;
    partial_snapshots_.merge(written);
    use.get().stats.merge(written);
    count_output_bytes(written.bytes_out);
    lost_.fetch_add(written.lost, std::memory_order_relaxed);
    ring_bytes_.fetch_add(written.bytes_in, std::memory_order_relaxed);
    file_bytes_.fetch_add(written.bytes_out, std::memory_order_relaxed);
    throw;
  }
  for (std::size_t i = 0; i < rings_.size(); ++i)
    count_written(*rings_[i], use.get(), taken->by_ring[i], taken->ring_bytes[i]);
  co_return;
}

// -z: the snapshot goes through the compression stage in slices of at most a ring's capacity,
// cut between records, as drains are: no COMPRESSED record then decodes to more than perf's
// reader was told (mmap_len). Its counts ride with the first slice.
async::task<void> streamer::compress_snapshot(output& out, const snapshot& taken) {
  std::size_t limit = 0;
  for (const auto& ring : rings_) limit = std::max(limit, ring->ring.reader().capacity());
  std::span<const std::byte> rest = taken.records;
  bool counted = false;
  while (!rest.empty()) {
    std::size_t slice = whole_records_within(rest, limit);
    co_await out.compression->ready(*out.stream);
    std::array<std::span<const std::byte>, 1> pieces{rest.first(slice)};
    out.compression->add(pieces, 0, {});
    for (std::size_t i = 0; !counted && i < rings_.size(); ++i)
      out.compression->add({}, i, taken.by_ring[i]);
    counted = true;
    rest = rest.subspan(slice);
    if (out.compression->full()) co_await out.compression->seal(*out.stream);
  }
  co_return;
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
  co_await use.get().stream->write(chunk.pieces, ring.written, drained.samples);
  reader.consume(chunk.end_position);  // only now may the kernel reuse the space
  count_written(ring, use.get(), drained, chunk.size());
}

bool streamer::fits_filling(const output& out, std::size_t bytes) const {
  return &filling_->use->get() == &out && filling_->size + bytes <= config_.staging_buffer_bytes &&
         filling_->parts.size() < staged_write::max_parts;
}

streamer::staged_write* streamer::take_staging(output& out) {
  for (auto& staged : staging_) {
    if (staged->busy) continue;
    if (!staged->bytes)
      staged->bytes = std::make_unique_for_overwrite<std::byte[]>(config_.staging_buffer_bytes);
    staged->busy = true;
    staged->size = 0;
    staged->parts.clear();
    staged->use.emplace(out);
    return staged.get();
  }
  return nullptr;
}

// The chunk is copied and its ring space given back at once; the bytes reach the file with the
// buffer's write, in the order the drains came.
void streamer::stage(ring_state& ring, staged_write& staged, const ring_chunk& chunk,
                     const stream_stats& drained) {
  staged.use->get().stream->throw_if_failed();
  chunk.copy_out(0, std::span<std::byte>{staged.bytes.get() + staged.size, chunk.size()});
  ring.ring.reader().consume(chunk.end_position);
  staged.size += chunk.size();
  staged.parts.push_back({&ring, drained, chunk.size()});
}

// Starts the filling buffer's write: its offset is reserved when this returns. On a failed
// stream the buffer's drains are dropped with it (the failure is the stream's to report).
async::task<void> streamer::flush_staging() {
  while (filling_ != nullptr) {
    data_stream& stream = *filling_->use->get().stream;
    co_await stream.wait_for_slot();
    // With no suspension from here to the submission: its offset follows every earlier one.
    if (filling_ != nullptr && filling_->use->get().stream.get() == &stream)
      submit_staged(*std::exchange(filling_, nullptr));
  }
  co_return;
}

void streamer::submit_staged(staged_write& staged) {
  data_stream& stream = *staged.use->get().stream;
  if (stream.failed()) {
    staged.use.reset();
    staged.busy = false;
    return;
  }
  std::uint64_t samples = 0;
  for (const staged_write::part& part : staged.parts) samples += part.drained.samples;
  std::array<std::span<const std::byte>, 1> pieces{
      std::span<const std::byte>{staged.bytes.get(), staged.size}};
  stream.start_write(pieces, staged.written, samples);
  // Its offset is taken: the next round's marker must follow it (the completion comes later).
  bytes_since_round_ += staged.size;
  async::spawn(thread_.executor(), finish_staged(staged), thread_.completion());
}

// Counted once the bytes are on the file, as drains written from the ring are.
async::task<void> streamer::finish_staged(staged_write& staged) {
  co_await staged.written.wait();
  output& out = staged.use->get();
  struct release_use {
    staged_write& staged;
    ~release_use() { staged.use.reset(); }
  } release{staged};
  // A failed stream may still have the write in the kernel: the buffer stays taken.
  out.stream->throw_if_failed();
  staged.busy = false;
  for (staged_write::part& part : staged.parts)
    count_written(*part.ring, out, part.drained, part.bytes, true);
  co_return;
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
  if (int cpu = sched_getcpu(); cpu >= 0 && cpu < io::max_cpus)
    ran_on_.set(static_cast<std::size_t>(cpu));
}

stream_stats streamer::note_drain(ring_state& ring, ring_chunk& chunk) {
  note_cpu();
  stream_stats drained{.drains = 1};
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
  mend_records(copy, config_.fixups);
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
    for (auto& ring : rings_) request_drain(*ring);
    co_await wait_for_round_acks(round_);
    if (stopping_) break;
    if (feed_) feed_->round_finished();
    output_use use(*current_);
    output& out = use.get();
    co_await flush_staging();  // the round's staged drains go before its marker
    if (stopping_) break;      // the end writes what is left, then closes the stream
    if (out.compression) {
      // The round's drains must be on the file before its marker.
      co_await out.compression->seal(*out.stream);
      if (stopping_) break;
    }
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
  for (int cpu = 0; cpu < io::max_cpus; ++cpu)
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
