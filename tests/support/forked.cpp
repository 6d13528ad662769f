#include "support/forked.hpp"

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

#include "base/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::test {

forked_result run_forked(const std::function<int(std::string& report)>& body) {
  int fds[2];
  base::check_syscall(::pipe2(fds, O_CLOEXEC), "pipe2");
  io::unique_fd read_end{fds[0]}, write_end{fds[1]};
  pid_t child = base::check_syscall(::fork(), "fork");
  if (child == 0) {
    std::string report;
    int status = 1;
    try {
      status = body(report);
    } catch (const std::exception& error) {
      report += error.what();
    }
    (void)!::write(write_end.get(), report.data(), report.size());
    ::_exit(status);
  }
  write_end.reset();
  forked_result result;
  char buffer[512];
  for (ssize_t n; (n = base::retry_on_eintr(
                       [&] { return ::read(read_end.get(), buffer, sizeof buffer); })) > 0;)
    result.text.append(buffer, static_cast<std::size_t>(n));
  int status = 0;
  base::check_syscall(base::retry_on_eintr([&] { return ::waitpid(child, &status, 0); }),
                      "waitpid");
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string hide_tracefs() {
  if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare: ") + std::strerror(errno);
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return std::string("mount --make-rprivate /: ") + std::strerror(errno);
  for (const char* path : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing", "/sys/kernel/debug"})
    ::umount2(path, MNT_DETACH);  // whichever of them is mounted on this machine
  ::unsetenv("TRACEFS_PATH");
  if (mount_table().find(" - tracefs ") != std::string::npos)
    return "a tracefs is still mounted:\n" + mount_table();
  return {};
}

std::string mount_table() {
  std::ifstream in("/proc/self/mountinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace arec::test
