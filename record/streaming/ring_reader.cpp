#include "record/streaming/ring_reader.hpp"

#include <atomic>
#include <cassert>
#include <cstring>

namespace arec::record {

void ring_chunk::copy_out(std::size_t offset, std::span<std::byte> out) const {
  // An empty span may have no storage at all (an empty vector's): memcpy must not see it.
  if (out.empty()) return;
  std::size_t done = 0;
  for (auto piece : pieces) {
    if (offset >= piece.size()) {
      offset -= piece.size();
      continue;
    }
    std::size_t n = std::min(piece.size() - offset, out.size() - done);
    std::memcpy(out.data() + done, piece.data() + offset, n);
    done += n;
    offset = 0;
    if (done == out.size()) return;
  }
  assert(done == out.size() && "copy_out past the end of the chunk");
}

ring_reader::ring_reader(perf_event_mmap_page* control, std::span<std::byte> data)
    : control_(control), data_(data), tail_(control->data_tail) {
  assert(!data.empty() && (data.size() & (data.size() - 1)) == 0);
}

std::uint64_t ring_reader::load_head() const {
  // Pairs with the kernel's smp_wmb() between writing a record and publishing data_head
  // (perf_output_put_handle): after this acquire load the bytes before head are complete.
  return std::atomic_ref<__u64>(control_->data_head).load(std::memory_order_acquire);
}

std::uint64_t ring_reader::unread_bytes() const { return load_head() - tail_; }

ring_chunk ring_reader::unread() const {
  std::uint64_t head = load_head();
  std::size_t mask = data_.size() - 1;
  std::size_t start = tail_ & mask;
  std::size_t length = head - tail_;
  ring_chunk chunk;
  chunk.end_position = head;
  std::size_t first = std::min(length, data_.size() - start);
  chunk.pieces[0] = {data_.data() + start, first};
  chunk.pieces[1] = {data_.data(), length - first};
  return chunk;
}

void ring_reader::consume(std::uint64_t position) {
  tail_ = position;
  // Pairs with the kernel's smp_mb() before it reads data_tail in perf_output_begin: our reads
  // of the records happen before the kernel may reuse their space.
  std::atomic_ref<__u64>(control_->data_tail).store(position, std::memory_order_release);
}

}  // namespace arec::record
