#include "push/live_push.hpp"

#include <exception>
#include <utility>

#include "async/thread_signals.hpp"
#include "io/output_path.hpp"

namespace arec::push {

live_push::live_push(fleet::push_options options, bool keep_outputs, fleet::reporter report)
    : report_(std::move(report)),
      keep_outputs_(keep_outputs),
      sender_(std::move(options), report_),
      thread_([this] { run(); }) {}

live_push::~live_push() {
  stop();
}

void live_push::output_finished(window_output window) {
  io::exclusive_lock lock{mutex_};
  waiting_.push_back(std::move(window));
  queued_.notify_one();
}

void live_push::stop() {
  {
    io::exclusive_lock lock{mutex_};
    stopping_ = true;
    queued_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  sender_.stop();
}

push_totals live_push::totals() const {
  push_totals totals;
  {
    io::exclusive_lock lock{mutex_};
    totals = totals_;
  }
  totals.delivered = sender_.counts().delivered;  // after the lock: mutex_ stays a leaf
  return totals;
}

void live_push::run() {
  async::block_signals_in_this_thread();  // the recorder's control thread handles them
  for (;;) {
    window_output next;
    {
      io::exclusive_lock lock{mutex_};
      while (waiting_.empty() && !stopping_) queued_.wait(mutex_);
      if (waiting_.empty()) return;  // stopping, and everything was exported
      next = std::move(waiting_.front());
      waiting_.pop_front();
    }
    export_and_push(next);
  }
}

void live_push::export_and_push(const window_output& window) {
  fleet::push_window pushed{.start_ns = window.start_ns, .end_ns = window.end_ns};
  std::uint64_t samples = 0;
  try {
    exporting::window_profile profile =
        exporter_.export_window(window.path, window.start_ns, window.end_ns);
    samples = profile.samples;
    pushed.uncompressed_size = profile.uncompressed_size;
    pushed.profile.assign(reinterpret_cast<const char*>(profile.gzipped.data()),
                          profile.gzipped.size());
  } catch (const std::exception& error) {
    report_(std::string("push: cannot export the window in ") + window.path + ": " + error.what() +
            (keep_outputs_ ? "" : "; it is kept there"));
    io::exclusive_lock lock{mutex_};
    ++totals_.failed;
    return;
  }
  sender_.push(std::move(pushed));
  {
    io::exclusive_lock lock{mutex_};
    ++totals_.windows;
    totals_.samples += samples;
  }
  if (keep_outputs_) return;
  try {
    io::remove_output(window.path);
  } catch (const std::exception& error) {
    report_(std::string("push: cannot remove a pushed window: ") + error.what());
  }
}

}  // namespace arec::push
