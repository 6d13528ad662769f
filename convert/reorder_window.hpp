// reorder_window: the records of one input stream held back until they can leave in time
// order — a min-heap by (time, arrival) over copies kept in reusable fixed-size blocks, with a
// byte budget that bounds its memory whatever the input size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace arec::convert {

class reorder_window {
 public:
  // Holds about `budget_bytes` (record copies plus bookkeeping) before over_budget() says so.
  // Throws std::invalid_argument when the budget cannot hold one largest record.
  explicit reorder_window(std::size_t budget_bytes);

  // Copies `record` (at most 65535 bytes) in. Records of equal time leave in arrival order.
  // Allocates only while the window grows past its largest size so far.
  void push(std::uint64_t time, std::span<const std::byte> record);

  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  // The earliest record and its time. Precondition: !empty().
  std::uint64_t top_time() const noexcept { return heap_.front().time; }
  std::span<const std::byte> top() const noexcept;
  // Drops the earliest record (its span from top() dies). Precondition: !empty().
  void pop() noexcept;

  // Bytes in use: blocks holding live records plus the heap's entries.
  std::size_t memory() const noexcept;
  bool over_budget() const noexcept { return memory() > budget_; }
  // The most bytes memory() ever reached, for the benchmark and tests.
  std::size_t peak_memory() const noexcept { return peak_; }

 private:
  struct entry {
    std::uint64_t time;
    std::uint64_t order;
    std::uint32_t block;
    std::uint32_t offset;
  };
  struct later {
    bool operator()(const entry& a, const entry& b) const noexcept {
      return a.time != b.time ? a.time > b.time : a.order > b.order;
    }
  };
  struct block {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t live = 0;
  };

  std::uint32_t block_for(std::size_t size);

  std::size_t budget_;
  std::vector<entry> heap_;
  std::vector<block> blocks_;
  std::vector<std::uint32_t> free_blocks_;
  std::uint32_t current_ = 0;      // the block new records go to
  std::size_t current_fill_ = 0;   // bytes used in it
  std::size_t blocks_in_use_ = 0;  // blocks not on the free list
  std::uint64_t next_order_ = 0;
  std::size_t peak_ = 0;
};

}  // namespace arec::convert
