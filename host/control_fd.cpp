#include "host/control_fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>

#include "base/system_error.hpp"

namespace arec::host {

io::unique_fd open_control_fifo(const std::string& path) {
  return io::unique_fd::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

bool is_open_fd(int fd) {
  return fd >= 0 && ::fcntl(fd, F_GETFD) != -1;
}

bool read_available(int fd, std::string& into, const std::string& name) {
  std::array<char, 512> buffer;
  for (;;) {
    // A zero-timeout poll before each read: a blocking fd is read only when it has bytes.
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    int polled = base::retry_on_eintr([&] { return ::poll(&ready, 1, 0); });
    base::check_syscall(polled, "poll", name);
    if (polled == 0) return true;
    if (ready.revents & POLLNVAL) base::throw_system_error(EBADF, "poll", name);
    if (!(ready.revents & POLLIN)) return false;  // hung up with nothing left to read
    ssize_t got = base::retry_on_eintr([&] { return ::read(fd, buffer.data(), buffer.size()); });
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    base::check_syscall(got, "read", name);
    if (got == 0) return false;
    into.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace arec::host
