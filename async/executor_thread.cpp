#include "async/executor_thread.hpp"

#include "async/thread_signals.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cstring>
#include <system_error>

namespace arec::async {

executor_thread::executor_thread(std::vector<int> affinity, std::string name)
    : keep_alive_(asio::make_work_guard(context_)),
      affinity_(std::move(affinity)),
      name_(std::move(name)) {
  auto pinned = pinned_.get_future();
  thread_ = std::thread([this] { run(); });
  pinned.wait();  // nothing is posted to the thread before it is on its CPUs
}

executor_thread::~executor_thread() { halt(); }

void executor_thread::halt() noexcept {
  if (thread_.joinable()) {
    keep_alive_.reset();
    context_.stop();
    thread_.join();
  }
}

void executor_thread::run() {
  block_signals_in_this_thread();
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  if (!affinity_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : affinity_) CPU_SET(cpu, &set);
    if (int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set); err != 0)
      pin_error_ = std::string("sched_setaffinity: ") + std::strerror(err);
  }
  pinned_.set_value();
  for (;;) {
    try {
      context_.run();
      break;
    } catch (...) {  // a handler threw: keep the others running, report at join()
      record_failure(std::current_exception());
    }
  }
  if (at_exit_) at_exit_();
  timespec used{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
  cpu_seconds_ = static_cast<double>(used.tv_sec) + static_cast<double>(used.tv_nsec) * 1e-9;
}

void executor_thread::set_realtime_priority(int priority) {
  sched_param param{};
  param.sched_priority = priority;
  int err = pthread_setschedparam(thread_.native_handle(), SCHED_FIFO, &param);
  if (err != 0)
    throw std::system_error(err, std::generic_category(), "sched_setscheduler SCHED_FIFO " + name_);
}

void executor_thread::record_failure(std::exception_ptr failure) {
  if (!failure_) failure_ = failure;
}

void executor_thread::join() {
  keep_alive_.reset();
  if (thread_.joinable()) thread_.join();
  if (failure_) std::rethrow_exception(failure_);
}

}  // namespace arec::async
