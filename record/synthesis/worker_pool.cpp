#include "record/synthesis/worker_pool.hpp"

#include <exception>
#include <thread>
#include <vector>

#include "async/thread_signals.hpp"

namespace arec::record {

void run_workers(unsigned count, const std::function<void(unsigned worker)>& body) {
  if (count == 0) count = 1;
  std::vector<std::exception_ptr> failures(count);
  auto run = [&](unsigned worker) {
    try {
      body(worker);
    } catch (...) {
      failures[worker] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(count - 1);
    for (unsigned worker = 1; worker < count; ++worker)
      threads.emplace_back(
          [&run](unsigned index) {
            async::block_signals_in_this_thread();  // the caller's thread handles them
            run(index);
          },
          worker);
    run(0);
  }  // joined here
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace arec::record
