#include "record/session/rotated_files.hpp"

#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>

#include "base/system_error.hpp"
#include "io/output_path.hpp"

namespace arec::record {

std::string output_timestamp(long seconds, long nanoseconds) {
  time_t when = seconds;
  tm local{};
  if (::localtime_r(&when, &local) == nullptr) base::throw_errno("localtime_r", "the time");
  std::array<char, 32> text{};
  std::size_t length = std::strftime(text.data(), text.size(), "%Y%m%d%H%M%S", &local);
  std::snprintf(text.data() + length, text.size() - length, "%02ld", nanoseconds / 10'000'000);
  return text.data();
}

rotated_files::rotated_files(std::string path, std::size_t keep,
                             std::function<void(const std::string&)> warn)
    : path_(std::move(path)), keep_(keep), warn_(std::move(warn)) {}

std::string rotated_files::next_name() {
  for (;;) {
    timespec now{};
    base::check_syscall(::clock_gettime(CLOCK_REALTIME, &now), "clock_gettime", "CLOCK_REALTIME");
    std::string stamp = output_timestamp(now.tv_sec, now.tv_nsec);
    if (stamp > last_timestamp_) {
      last_timestamp_ = stamp;
      return path_ + "." + stamp;
    }
    ::usleep(1000);  // at most a centisecond, and only for switches that close together
  }
}

void rotated_files::keep(const std::string& finished) {
  kept_.push_back(finished);
  if (keep_ == 0) return;
  while (kept_.size() > keep_) {
    try {
      io::remove_output(kept_.front());  // a --threads output is a directory
    } catch (const std::system_error& error) {
      warn_(std::string("arec: warning: cannot remove an old output: ") + error.what());
    }
    kept_.pop_front();
  }
}

}  // namespace arec::record
