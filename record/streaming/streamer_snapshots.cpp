// The streamer's --overwrite snapshots: pausing the rings, copying what they hold since the last
// snapshot, and writing it in slices of whole records.
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "perf_data/perf_abi.hpp"
#include "record/streaming/backward_ring.hpp"
#include "record/streaming/streamer.hpp"
#include "record/streaming/streamer_parts.hpp"

namespace arec::record {
namespace {

// The bytes of the whole records at the start of `records` that fit in `limit` (at least the
// first record).
std::size_t whole_records_within(std::span<const std::byte> records, std::size_t limit) {
  std::size_t size = 0;
  while (size + sizeof(perf_data::record_header) <= records.size()) {
    perf_data::record_header header;
    std::memcpy(&header, records.data() + size, sizeof header);
    if (header.size == 0 || (size > 0 && size + header.size > limit)) break;
    size += header.size;
  }
  return size > 0 ? size : records.size();
}

}  // namespace

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
  if (mending) taken->records.resize(mend_records(taken->records, config_.fixups));
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

}  // namespace arec::record
