// output_meter: the bytes every streaming thread wrote, summed for --switch-output=SIZE and
// --max-size. With --threads the limits are the whole output's (a directory), not one data.N's:
// each thread adds what it writes and the one whose write crosses a limit reports it, once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace arec::record {

class output_meter {
 public:
  // output_size: the current output's size that asks for a switch (0: never); size_limit: all
  // outputs' size that ends the recording (0: never). The callbacks run on the thread that
  // crossed the limit.
  output_meter(std::uint64_t output_size, std::function<void()> on_output_full,
               std::uint64_t size_limit, std::function<void(std::uint64_t)> on_size_limit)
      : output_size_(output_size),
        size_limit_(size_limit),
        on_output_full_(std::move(on_output_full)),
        on_size_limit_(std::move(on_size_limit)) {}
  output_meter(const output_meter&) = delete;
  output_meter& operator=(const output_meter&) = delete;

  // Counts `bytes` written to the current output; callable from any thread.
  void add(std::uint64_t bytes);
  // A new output starts: its size counts from zero and may ask for a switch again. Called
  // before the streaming threads cut, so a drain into an old output may count towards the new
  // one: off by at most a drain, as perf, which counts after each drain, is.
  void start_output();
  std::uint64_t total() const { return total_.load(std::memory_order_relaxed); }

 private:
  const std::uint64_t output_size_;
  const std::uint64_t size_limit_;
  const std::function<void()> on_output_full_;
  const std::function<void(std::uint64_t)> on_size_limit_;
  std::atomic<std::uint64_t> current_{0};
  std::atomic<std::uint64_t> total_{0};
  std::atomic<bool> full_reported_{false};
  std::atomic<bool> limit_reported_{false};
};

}  // namespace arec::record
