#include "support/pseudo_terminal.hpp"

#include <pty.h>
#include <sys/select.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace arec::test {

pseudo_terminal::pseudo_terminal() {
  int m = -1;
  int s = -1;
  winsize size{};
  size.ws_col = 60;
  size.ws_row = 24;
  if (::openpty(&m, &s, nullptr, nullptr, &size) != 0) {
    error = std::strerror(errno);
    return;
  }
  master = io::unique_fd(m);
  slave = io::unique_fd(s);
}

std::string drain(int master) {
  std::string text;
  char buffer[4096];
  for (;;) {
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(master, &readable);
    timeval timeout{0, 100'000};
    if (::select(master + 1, &readable, nullptr, nullptr, &timeout) <= 0) break;
    ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace arec::test
