#include "record/streaming/output_meter.hpp"

namespace arec::record {

void output_meter::add(std::uint64_t bytes) {
  std::uint64_t current = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t total = total_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (output_size_ && current >= output_size_ &&
      !full_reported_.exchange(true, std::memory_order_relaxed) && on_output_full_)
    on_output_full_();
  if (size_limit_ && total >= size_limit_ &&
      !limit_reported_.exchange(true, std::memory_order_relaxed) && on_size_limit_)
    on_size_limit_(total);
}

void output_meter::start_output() {
  current_.store(0, std::memory_order_relaxed);
  full_reported_.store(false, std::memory_order_relaxed);
}

}  // namespace arec::record
