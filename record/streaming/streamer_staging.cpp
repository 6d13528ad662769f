// The streamer's staged writes: small drains copied out of their rings and coalesced into one
// write request per buffer.
#include <array>

#include "record/streaming/streamer.hpp"
#include "record/streaming/streamer_parts.hpp"

namespace arec::record {

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

}  // namespace arec::record
