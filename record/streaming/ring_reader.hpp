// ring_reader: the consumer side of one perf ring buffer (perf_event_mmap_page + data area).
// Only this class touches data_head and data_tail. It works on any memory, so tests drive it
// with a fake ring.
#pragma once

#include <linux/perf_event.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace arec::record {

// The unread bytes of a ring: one piece, or two when they wrap past the end of the data area.
struct ring_chunk {
  std::array<std::span<const std::byte>, 2> pieces;
  std::uint64_t end_position = 0;  // the head this chunk ends at, to pass to consume()

  std::size_t size() const { return pieces[0].size() + pieces[1].size(); }
  bool empty() const { return size() == 0; }
  // Copies `out.size()` bytes starting `offset` bytes into the chunk (which may straddle the wrap).
  void copy_out(std::size_t offset, std::span<std::byte> out) const;
  // The 8 bytes at an 8-aligned `offset`. The wrap point is 8-aligned too (records are 8-byte
  // multiples in a power-of-two ring), so they lie in one piece: a fixed-size copy, not
  // copy_out's general one (the scans' main cost when they used it).
  template <typename T>
  T load_aligned(std::size_t offset) const {
    static_assert(sizeof(T) == 8 && std::is_trivially_copyable_v<T>);
    std::size_t first = pieces[0].size();
    const std::byte* at =
        offset < first ? pieces[0].data() + offset : pieces[1].data() + (offset - first);
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
  }
};

class ring_reader {
 public:
  // `data` is the data area; its size must be a power of two.
  ring_reader(perf_event_mmap_page* control, std::span<std::byte> data);

  // Everything the kernel has published and arec has not consumed.
  ring_chunk unread() const;
  // Bytes published and not consumed, without building a chunk.
  std::uint64_t unread_bytes() const;
  // Hands [tail, position) back to the kernel. Call only after the bytes were written out or
  // copied: the kernel may overwrite them as soon as it sees the new tail.
  void consume(std::uint64_t position);
  std::size_t capacity() const { return data_.size(); }

 private:
  std::uint64_t load_head() const;

  perf_event_mmap_page* control_;
  std::span<std::byte> data_;
  std::uint64_t tail_;  // our copy: the kernel never writes data_tail
};

}  // namespace arec::record
