#include "fleet/push_sender.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>

#include "base/system_error.hpp"
#include "fleet/backoff.hpp"
#include "fleet/pusher.hpp"
#include "io/file_copy.hpp"
#include "io/unique_fd.hpp"

namespace arec::fleet {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2026-11-23T09:16:36Z": how a window is named in messages.
std::string utc_time(std::int64_t ns) {
  time_t seconds = static_cast<time_t>(ns / 1'000'000'000);
  struct tm parts {};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// "10.0 s": a duration in a message.
std::string seconds_text(std::chrono::steady_clock::duration duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(duration).count());
  return text;
}

spool_bounds bounds_of(const push_options& options) {
  return {options.memory_bound_bytes, options.disk_bound_bytes, options.spool_dir,
          spool_destination(options)};
}

}  // namespace

void report_to_stderr(const std::string& message) {
  std::fprintf(stderr, "arec: %s\n", message.c_str());
}

push_sender::push_sender(push_options options, reporter report)
    : options_(std::move(options)),
      report_(std::move(report)),
      spool_(bounds_of(options_), report_),
      thread_([this] { run(); }) {}

push_sender::~push_sender() {
  stop();
}

void push_sender::push(push_window window) {
  spool_.add(std::move(window));
}

void push_sender::run() {
  try {
    send_until_stopped();
  } catch (const std::exception& error) {
    // Nothing is sent any more; what waits stays in the spool, and stop() keeps it on disk.
    report_(std::string("push: the sender stopped: ") + error.what());
  }
  finished_ = true;
  spool_.wake_all();
}

void push_sender::send_until_stopped() {
  pusher client{options_, abort_};
  backoff delays{options_.first_retry, options_.max_retry, std::random_device{}()};
  while (!abort_) {
    std::uint64_t generation = spool_.generation();
    auto entry = spool_.take_oldest();
    if (!entry) {
      if (stopping_) break;  // flushed
      spool_.wait(generation, std::chrono::steady_clock::time_point::max(), true);
      continue;
    }
    auto window = spool_.load(*entry);
    if (!window) {
      spool_.finish(*entry, spool_result::refused);
      report_("push: dropped a window whose spool file " + entry->path +
              " is unreadable, or not a regular file of the user running arec");
      continue;
    }
    auto sent_at = std::chrono::steady_clock::now();
    push_outcome outcome = client.push(*window, now_ns());
    if (outcome.verdict == push_verdict::delivered) {
      spool_.finish(*entry, spool_result::delivered);
      delays.reset();
      if (failing_) report_("push: delivering to " + options_.url + " again");
      failing_ = false;
      if (!outcome.note.empty())
        report_("push: " + options_.url + " took the window " + utc_time(window->start_ns) +
                " to " + utc_time(window->end_ns) + " in part: " + outcome.note);
    } else if (outcome.verdict == push_verdict::drop) {
      spool_.finish(*entry, spool_result::refused);
      report_("push: dropped the window " + utc_time(window->start_ns) + " to " +
              utc_time(window->end_ns) + ": " + outcome.reason);
    } else {
      spool_.finish(*entry, spool_result::kept);
      if (abort_) {
        // libcurl only says "Callback aborted": the reason is that no answer came in time.
        last_failure_ = interrupted_
                            ? "the flush at exit was interrupted"
                            : "no answer from " + options_.url + " to a request that waited " +
                                  seconds_text(std::chrono::steady_clock::now() - sent_at) +
                                  " when the flush at exit ended";
        break;
      }
      last_failure_ = outcome.reason;
      if (!failing_) {
        report_("push: cannot deliver to " + options_.url + ": " + outcome.reason +
                "; windows wait in the spool and are retried with back-off");
      }
      failing_ = true;
      spool_.wait(generation, std::chrono::steady_clock::now() + delays.next(outcome.retry_after),
                  false);
    }
  }
}

void push_sender::stop(const flush_interrupt& interrupt) {
  if (!thread_.joinable()) return;
  stopping_ = true;
  spool_.wake_all();
  // The watcher waits on the interrupt's fd and on `done`, which ends it once the flush is over.
  io::unique_fd done;
  std::thread watcher;
  if (interrupt.fd >= 0 && interrupt.requested) {
    done = io::unique_fd(base::check_syscall(::eventfd(0, EFD_CLOEXEC), "eventfd", "push flush"));
    watcher =
        std::thread([this, &interrupt, fd = done.get()] { watch_for_interrupt(interrupt, fd); });
  }
  // A flush that is over at once (the usual last window) says nothing; a longer one says what
  // it waits for and how to end it, or Ctrl-C would seem to do nothing.
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + options_.flush_timeout;
  auto announce_at = std::min(deadline, start + std::chrono::seconds(1));
  bool announced = false;
  for (;;) {
    std::uint64_t generation = spool_.generation();
    auto now = std::chrono::steady_clock::now();
    if (finished_ || interrupted_ || now >= deadline) break;
    if (!announced && now >= announce_at) {
      announce_flush();
      announced = true;
    }
    spool_.wait(generation, announced ? deadline : announce_at, false);
  }
  abort_ = true;  // ends a request in progress and the back-off wait
  spool_.wake_all();
  thread_.join();
  if (watcher.joinable()) {
    std::uint64_t one = 1;
    base::check_syscall(::write(done.get(), &one, sizeof one), "write", "push flush eventfd");
    watcher.join();
  }
  report_leftovers();
}

void push_sender::announce_flush() const {
  spool_counts waiting = spool_.counts();
  std::size_t count = waiting.in_memory + waiting.on_disk;
  if (count == 0) return;
  report_("push: delivering the last " + std::to_string(count) + " window(s) to " + options_.url +
          " (the flush at exit lasts at most " + seconds_text(options_.flush_timeout) +
          "); Ctrl-C again stops this and " +
          (spool_.dir().empty() ? std::string("loses them (no spool directory)")
                                : "keeps them in " + spool_.dir() + " for the next run"));
}

void push_sender::watch_for_interrupt(const flush_interrupt& interrupt, int done_fd) {
  for (;;) {
    pollfd fds[2] = {{interrupt.fd, POLLIN, 0}, {done_fd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;  // cannot watch: the flush runs its course
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0 && interrupt.requested()) {
      interrupted_ = true;
      abort_ = true;  // also ends the request in progress now
      spool_.wake_all();
      return;
    }
  }
}

void push_sender::report_leftovers() {
  push_spool::leftover left = spool_.persist_remaining();
  // A spool directory this run made and left empty goes: the machine is as it was.
  if (left.on_disk == 0 && spool_.made_directory()) io::remove_empty_directory(spool_.dir());
  // Why they were not sent: the last failure, said again at the end where it is looked for.
  std::string why = last_failure_.empty() ? "" : " (last failure: " + last_failure_ + ")";
  if (left.on_disk > 0) {
    report_("push: " + std::to_string(left.on_disk) + " window(s) not sent are kept in " +
            spool_.dir() + why + "; a later run with this spool directory sends them first");
  }
  if (left.lost > 0) {
    report_("push: " + std::to_string(left.lost) + " window(s) not sent are lost" +
            (spool_.dir().empty() ? " (no spool directory)" : "") + why);
  }
  spool_counts counts = spool_.counts();
  if (counts.delivered_earlier > 0) {
    report_("push: also delivered " + std::to_string(counts.delivered_earlier) +
            " window(s) an earlier run left in " + spool_.dir());
  }
  if (std::size_t others = counts.for_elsewhere + counts.undirected; others > 0) {
    report_("push: left " + std::to_string(others) + " window(s) of other destinations in " +
            spool_.dir() + " unsent (they were not this run's to send)");
  }
  if (counts.dropped_full + counts.dropped_refused > 0) {
    report_("push: " + std::to_string(counts.delivered) + " window(s) delivered, " +
            std::to_string(counts.dropped_full + counts.dropped_refused) + " dropped (" +
            std::to_string(counts.dropped_full) + " when the spool was full, " +
            std::to_string(counts.dropped_refused) + " refused)");
  }
}

}  // namespace arec::fleet
