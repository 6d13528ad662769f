// executor_thread: one io_context run by one thread pinned to a CPU set. The thread pins itself
// before it runs anything, so every ring it maps and every buffer it touches is placed from
// its own CPUs.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace arec::async {

class executor_thread {
 public:
  // Starts the thread, pinned to `affinity` (empty: not pinned). It runs until stop_when_idle()
  // and then until its last coroutine returns.
  executor_thread(std::vector<int> affinity, std::string name);
  ~executor_thread();
  executor_thread(const executor_thread&) = delete;
  executor_thread& operator=(const executor_thread&) = delete;

  asio::io_context& context() { return context_; }
  asio::any_io_executor executor() { return context_.get_executor(); }

  // Runs `fn` on this thread and returns its result; rethrows what it threw.
  template <typename Fn>
  auto run_sync(Fn fn) -> decltype(fn()) {
    std::packaged_task<decltype(fn())()> job(std::move(fn));
    auto result = job.get_future();
    asio::post(context_, [&job] { job(); });
    return result.get();
  }

  // Lets the thread finish once no work is left, and waits for it. Rethrows the first
  // exception a coroutine on this thread ended with.
  void join();
  // Stops the thread at once, abandoning its pending work; for unwinding after a failure.
  void halt() noexcept;
  // Called by coroutines spawned with `completion()` when they end with an exception.
  void record_failure(std::exception_ptr failure);
  // A completion token for co_spawn that records a failure instead of losing it.
  auto completion() {
    return [this](std::exception_ptr failure) {
      if (failure) record_failure(failure);
    };
  }
  // The thread's CPU time, sampled at the end of its run.
  double cpu_seconds() const { return cpu_seconds_; }
  const std::vector<int>& affinity() const { return affinity_; }
  // Runs the thread at SCHED_FIFO `priority` (perf record -r). Throws std::system_error
  // "sched_setscheduler SCHED_FIFO NAME: <strerror>" when the kernel refuses (EPERM without
  // CAP_SYS_NICE or an RLIMIT_RTPRIO, EINVAL for a priority outside 1..99).
  void set_realtime_priority(int priority);
  // Runs `fn` on this thread after its last handler, whether it finished or was halted: for
  // what only this thread may do before it ends (wait for its own io_uring requests). Call it
  // on this thread (from run_sync or a handler).
  void at_exit(std::function<void()> fn) { at_exit_ = std::move(fn); }
  // A pinning failure, if any (the thread then runs unpinned); empty when pinned.
  const std::string& pin_error() const { return pin_error_; }

 private:
  void run();

  asio::io_context context_{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_alive_;
  std::vector<int> affinity_;
  std::string name_;
  std::exception_ptr failure_;
  std::string pin_error_;
  std::function<void()> at_exit_;  // touched on the thread only
  double cpu_seconds_ = 0;
  std::promise<void> pinned_;
  std::thread thread_;
};

}  // namespace arec::async
