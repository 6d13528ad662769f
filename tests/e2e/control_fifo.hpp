// control_fifo: the test side of perf's --control fifo:CTL,ACK channel (and of any fifo a test
// drives a workload with): make the fifos, send a command, read what comes back.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "io/unique_fd.hpp"

namespace arec::e2e {

inline const std::string perf_ack("ack\n\0", 5);

inline void make_fifo(const std::string& path) {
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << "mkfifo " << path;
}

inline io::unique_fd open_read_write(const std::string& path) {
  return io::unique_fd::open(path.c_str(), O_RDWR);
}

// Reads exactly `size` bytes from `fd`, giving up after 60 s without any: "" then.
inline std::string read_bytes(int fd, std::size_t size) {
  std::string got;
  while (got.size() < size) {
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 60'000) != 1) return got;
    char buffer[64];
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, size - got.size()));
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
  return got;
}

inline void write_line(int fd, const std::string& line) {
  std::string text = line + "\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

}  // namespace arec::e2e
