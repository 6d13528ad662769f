#include "record/session/workload.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/system_error.hpp"
#include "host/stop_signals.hpp"

namespace arec::record {
namespace {

// The forked child until its exec. `go_write` is the child's copy of arec's end of the start
// pipe: closed here, so that arec's death (by any signal, kill -9 included) reads as EOF.
[[noreturn]] void run_child(std::span<const std::string> argv, int go, io::unique_fd go_write,
                            int exec_error, pid_t recorder) {
  go_write.reset();
  // Belt and braces for a recorder that dies between fork and here, and for a pipe end that
  // a stray fork of arec's could still hold: the kernel ends a held child with its parent.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != recorder) ::_exit(127);
  char byte;
  // EOF here means arec died before starting us: do not run unrecorded.
  if (base::retry_on_eintr([&] { return ::read(go, &byte, 1); }) != 1) ::_exit(127);
  ::prctl(PR_SET_PDEATHSIG, 0);  // once released, it runs on its own, as under perf
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  int err = errno;
  [[maybe_unused]] auto ignored = ::write(exec_error, &err, sizeof err);
  ::_exit(127);
}

std::pair<io::unique_fd, io::unique_fd> make_pipe() {
  int fds[2];
  base::check_syscall(::pipe2(fds, O_CLOEXEC), "pipe2");
  return {io::unique_fd{fds[0]}, io::unique_fd{fds[1]}};
}

// Finds `command` as execvp will, so that a command that cannot run is reported before
// anything is opened or created. Returns 0 or the errno execvp would fail with.
int find_executable(const std::string& command) {
  if (command.find('/') != std::string::npos)
    return ::access(command.c_str(), X_OK) == 0 ? 0 : errno;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  int error = ENOENT;
  while (true) {
    auto colon = dirs.find(':');
    std::string candidate{dirs.substr(0, colon)};
    candidate += candidate.empty() ? "./" : "/";
    candidate += command;
    if (::access(candidate.c_str(), X_OK) == 0) return 0;
    if (errno == EACCES) error = EACCES;
    if (colon == std::string_view::npos) return error;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace

workload workload::prepare(std::span<const std::string> argv, bool stdout_to_stderr) {
  if (int error = find_executable(argv[0]); error != 0)
    throw workload_error("cannot run '" + argv[0] + "': " + std::strerror(error));
  auto [go_read, go_write] = make_pipe();
  auto [error_read, error_write] = make_pipe();
  pid_t recorder = ::getpid();
  pid_t pid = base::check_syscall(host::stop_signals::fork_with_default_signals(), "fork", argv[0]);
  if (pid == 0) {
    // As perf in pipe mode: the workload must not write into the recording's stream.
    if (stdout_to_stderr && ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) ::_exit(127);
    run_child(argv, go_read.get(), std::move(go_write), error_write.get(), recorder);
  }
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    int err = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    base::throw_system_error(err, "pidfd_open", argv[0]);
  }
  return workload{pid, std::move(go_write), std::move(error_read), io::unique_fd{pidfd}, argv[0]};
}

workload::workload(workload&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      go_(std::move(other.go_)),
      exec_error_(std::move(other.exec_error_)),
      exit_fd_(std::move(other.exit_fd_)),
      command_(std::move(other.command_)),
      reaped_(std::exchange(other.reaped_, true)) {}

workload::~workload() {
  if (pid_ > 0 && !reaped_) {
    if (go_) ::kill(pid_, SIGKILL);  // never started: it must not run unrecorded
    ::waitpid(pid_, nullptr, 0);
  }
}

void workload::start() {
  char byte = 1;
  ssize_t written = base::retry_on_eintr([&] { return ::write(go_.get(), &byte, 1); });
  // EPIPE: the child died before its release (a Ctrl-C to the process group): it never ran,
  // and wait() reports how it ended.
  if (written < 0 && errno != EPIPE) base::check_syscall(written, "write", "workload start pipe");
  go_.reset();
  int err = 0;
  ssize_t n = base::retry_on_eintr([&] { return ::read(exec_error_.get(), &err, sizeof err); });
  exec_error_.reset();
  if (n == sizeof err) throw workload_error("cannot run '" + command_ + "': " + std::strerror(err));
}

void workload::terminate() const {
  if (pid_ > 0 && !reaped_) ::kill(pid_, SIGTERM);
}

bool workload::exits_within(std::chrono::milliseconds timeout) const {
  pollfd exit{exit_fd_.get(), POLLIN, 0};
  // A signal caught meanwhile (a second Ctrl-C) must not read as "still running".
  return base::retry_on_eintr(
             [&] { return ::poll(&exit, 1, static_cast<int>(timeout.count())); }) == 1;
}

bool workload::exits_before(int wake_fd) const {
  std::array<pollfd, 2> fds{pollfd{exit_fd_.get(), POLLIN, 0}, pollfd{wake_fd, POLLIN, 0}};
  base::check_syscall(base::retry_on_eintr([&] { return ::poll(fds.data(), fds.size(), -1); }),
                      "poll", command_);
  return fds[0].revents != 0;
}

int workload::wait() {
  int status = 0;
  base::check_syscall(base::retry_on_eintr([&] { return ::waitpid(pid_, &status, 0); }), "waitpid",
                      command_);
  reaped_ = true;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace arec::record
