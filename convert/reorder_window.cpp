#include "convert/reorder_window.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "perf_data/perf_abi.hpp"

namespace arec::convert {
namespace {

// Large enough for a few of the largest records, small enough that a nearly sorted stream
// frees blocks soon after filling them.
constexpr std::size_t block_size = 256 * 1024;

std::uint16_t record_size(const std::byte* record) {
  std::uint16_t size = 0;
  std::memcpy(&size, record + offsetof(perf_data::record_header, size), sizeof size);
  return size;
}

}  // namespace

reorder_window::reorder_window(std::size_t budget_bytes) : budget_(budget_bytes) {
  if (budget_bytes < 2 * block_size)
    throw std::invalid_argument("reorder_window: a budget of " + std::to_string(budget_bytes) +
                                " bytes is below two blocks of " + std::to_string(block_size));
}

std::uint32_t reorder_window::block_for(std::size_t size) {
  if (!blocks_.empty() && current_fill_ + size <= block_size) return current_;
  // The full block stays alive while it holds records; it is recycled by pop().
  if (!blocks_.empty() && blocks_[current_].live == 0) {
    current_fill_ = 0;
    return current_;
  }
  if (free_blocks_.empty()) {
    blocks_.push_back(block{std::make_unique<std::byte[]>(block_size), 0});
    current_ = static_cast<std::uint32_t>(blocks_.size() - 1);
  } else {
    current_ = free_blocks_.back();
    free_blocks_.pop_back();
  }
  ++blocks_in_use_;
  current_fill_ = 0;
  return current_;
}

void reorder_window::push(std::uint64_t time, std::span<const std::byte> record) {
  std::uint32_t index = block_for(record.size());
  block& target = blocks_[index];
  std::memcpy(target.bytes.get() + current_fill_, record.data(), record.size());
  ++target.live;
  heap_.push_back(entry{time, next_order_++, index, static_cast<std::uint32_t>(current_fill_)});
  std::push_heap(heap_.begin(), heap_.end(), later{});
  // Records stay 8-aligned in the block so copies out of it are aligned too.
  current_fill_ += (record.size() + 7) & ~std::size_t{7};
  peak_ = std::max(peak_, memory());
}

std::span<const std::byte> reorder_window::top() const noexcept {
  const entry& first = heap_.front();
  const std::byte* record = blocks_[first.block].bytes.get() + first.offset;
  return {record, record_size(record)};
}

void reorder_window::pop() noexcept {
  std::uint32_t index = heap_.front().block;
  std::pop_heap(heap_.begin(), heap_.end(), later{});
  heap_.pop_back();
  block& source = blocks_[index];
  if (--source.live == 0 && index != current_) {
    free_blocks_.push_back(index);
    --blocks_in_use_;
  }
}

std::size_t reorder_window::memory() const noexcept {
  return blocks_in_use_ * block_size + heap_.size() * sizeof(entry);
}

}  // namespace arec::convert
