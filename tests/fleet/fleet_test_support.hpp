// What the fleet tests share: windows to push, a reporter that keeps its lines, options aimed
// at the stand-in server.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "fleet/push_options.hpp"
#include "fleet/push_spool.hpp"
#include "fleet/push_window.hpp"

namespace arec::test {

// Window `index`: its profile is "profile-<index>" padded to `size` bytes; it ended a second ago.
inline fleet::push_window numbered_window(int index, std::size_t size = 64) {
  fleet::push_window window;
  window.profile = "profile-" + std::to_string(index);
  window.profile.resize(std::max(size, window.profile.size()), '.');
  window.uncompressed_size = window.profile.size() * 3;
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  window.end_ns = now - 1'000'000'000;
  window.start_ns = window.end_ns - 15'000'000'000;
  window.labels = {{"window", std::to_string(index)}};
  return window;
}

// The index numbered_window gave a received profile.
inline int window_index(const std::string& profile) {
  return std::stoi(profile.substr(8, profile.find('.') - 8));
}

class captured_reports {
 public:
  fleet::reporter reporter() {
    return [this](const std::string& line) {
      std::lock_guard lock{mutex_};
      lines_.push_back(line);
      added_.notify_all();
    };
  }
  // Waits, at most `limit`, for a line containing `text`; true once there is one.
  bool wait_for(const std::string& text, std::chrono::seconds limit = std::chrono::seconds(60)) {
    std::unique_lock lock{mutex_};
    return added_.wait_for(lock, limit, [&] {
      for (const std::string& line : lines_) {
        if (line.find(text) != std::string::npos) return true;
      }
      return false;
    });
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock{mutex_};
    return lines_;
  }
  // The lines that contain `text`, joined by newlines.
  std::string matching(const std::string& text) const {
    std::string found;
    for (const std::string& line : lines()) {
      if (line.find(text) != std::string::npos) found += line + "\n";
    }
    return found;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable added_;
  std::vector<std::string> lines_;
};

// Options for the stand-in at `url`: quick retries, so a test that waits for a recovery does not
// wait long; the bounded waits themselves are on the server's state.
inline fleet::push_options stand_in_options(const std::string& url) {
  fleet::push_options options;
  fleet::set_push_url(options, url);
  options.service_name = "arec-test";
  options.first_retry = std::chrono::milliseconds(20);
  options.max_retry = std::chrono::milliseconds(200);
  options.connect_timeout = std::chrono::milliseconds(2'000);
  options.request_timeout = std::chrono::milliseconds(20'000);
  options.flush_timeout = std::chrono::milliseconds(20'000);
  return options;
}

}  // namespace arec::test
