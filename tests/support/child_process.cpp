#include "support/child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "base/system_error.hpp"

extern char** environ;

namespace arec::test {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// posix_spawn's C attribute and file-action objects, destroyed on every path.
struct spawn_attributes {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  spawn_attributes() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~spawn_attributes() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  spawn_attributes(const spawn_attributes&) = delete;
  spawn_attributes& operator=(const spawn_attributes&) = delete;
};

struct pipe_ends {
  io::unique_fd read;
  io::unique_fd write;
};

pipe_ends make_pipe() {
  int fds[2];
  base::check_syscall(::pipe2(fds, O_CLOEXEC), "pipe2");
  return {io::unique_fd{fds[0]}, io::unique_fd{fds[1]}};
}

void check_spawn_call(int error, std::string_view call) {
  if (error != 0) base::throw_system_error(error, call);
}

std::string text_of(const std::string& path) {
  std::ifstream in{path};
  return {std::istreambuf_iterator<char>{in}, {}};
}

// Every thread of `pid`: "TID COMM STATE wchan=WCHAN" and its kernel stack (root may read it).
std::string threads_of(pid_t pid) {
  std::string snapshot;
  std::error_code error;
  std::string task = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(task, error)) {
    std::string stat = text_of(entry.path() / "stat");
    std::size_t name_end = stat.rfind(')');
    std::string state = name_end == std::string::npos ? "?" : stat.substr(name_end + 2, 1);
    std::string comm = text_of(entry.path() / "comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    snapshot += entry.path().filename().string() + " " + comm + " " + state +
                " wchan=" + text_of(entry.path() / "wchan") + "\n" +
                text_of(entry.path() / "stack");
  }
  return snapshot;
}

milliseconds remaining_until(steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
  return std::max(left, milliseconds{0});
}

}  // namespace

std::string command_result::describe() const {
  std::string text;
  if (timed_out) {
    text = "timed out";
  } else if (term_signal != 0) {
    text = "signal " + std::to_string(term_signal) + " (" + ::strsignal(term_signal) + ")";
  } else {
    text = "exit " + std::to_string(exit_code);
  }
  text += " after " + std::to_string(elapsed.count()) + " ms; stderr:\n" + err;
  if (!hang_snapshot.empty()) text += "\nits threads when it timed out:\n" + hang_snapshot;
  return text;
}

child_process::child_process(pid_t pid, io::unique_fd out, io::unique_fd err)
    : pid_(pid), started_(steady_clock::now()), out_fd_(std::move(out)), err_fd_(std::move(err)) {}

child_process::child_process(child_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(other.reaped_),
      status_(other.status_),
      started_(other.started_),
      out_fd_(std::move(other.out_fd_)),
      err_fd_(std::move(other.err_fd_)),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)),
      out_consumed_(other.out_consumed_) {}

child_process::~child_process() {
  if (pid_ < 0 || reaped_) return;
  kill_group();
  int status = 0;
  base::retry_on_eintr([&] { return ::waitpid(pid_, &status, 0); });
}

child_process child_process::spawn(const std::vector<std::string>& argv) {
  return spawn(argv, {});
}

child_process child_process::spawn(const std::vector<std::string>& argv,
                                   const std::vector<int>& inherited) {
  if (argv.empty()) throw std::invalid_argument("child_process::spawn: empty command");
  pipe_ends out = make_pipe();
  pipe_ends err = make_pipe();
  // stdin is an empty file of its own, not /dev/null: on some machines (containers) /dev/null is
  // a regular file holding whatever was written to it. Not a pipe either: perf (and arec) read a
  // stream from a FIFO on stdin when no input file is named.
  io::unique_fd in{base::check_syscall(::memfd_create("empty-stdin", MFD_CLOEXEC), "memfd_create",
                                       "an empty stdin")};

  spawn_attributes spawn;
  // The test runner may have inherited ignored or blocked signals (a shell's background job
  // ignores SIGINT); the recorder under test must see the defaults, as from a terminal.
  sigset_t defaults;
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  sigset_t empty;
  sigemptyset(&empty);
  check_spawn_call(posix_spawnattr_setsigdefault(&spawn.attr, &defaults), "posix_spawnattr");
  check_spawn_call(posix_spawnattr_setsigmask(&spawn.attr, &empty), "posix_spawnattr");
  // Its own process group lets us kill leftovers (a recorder's workload) all at once.
  check_spawn_call(posix_spawnattr_setpgroup(&spawn.attr, 0), "posix_spawnattr");
  check_spawn_call(
      posix_spawnattr_setflags(
          &spawn.attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP),
      "posix_spawnattr");
  check_spawn_call(posix_spawn_file_actions_adddup2(&spawn.actions, in.get(), STDIN_FILENO),
                   "posix_spawn_file_actions");
  check_spawn_call(posix_spawn_file_actions_adddup2(&spawn.actions, out.write.get(), STDOUT_FILENO),
                   "posix_spawn_file_actions");
  check_spawn_call(posix_spawn_file_actions_adddup2(&spawn.actions, err.write.get(), STDERR_FILENO),
                   "posix_spawn_file_actions");
  // A dup2 onto itself clears close-on-exec in the child (POSIX 2024; glibc since 2.29).
  for (int fd : inherited)
    check_spawn_call(posix_spawn_file_actions_adddup2(&spawn.actions, fd, fd),
                     "posix_spawn_file_actions");

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  check_spawn_call(posix_spawnp(&pid, args[0], &spawn.actions, &spawn.attr, args.data(), environ),
                   "posix_spawnp " + argv[0]);
  // Our copies of the write ends must close, or the read ends never see end-of-file.
  return child_process(pid, std::move(out.read), std::move(err.read));
}

std::size_t child_process::pump(milliseconds max_wait) {
  std::array<pollfd, 2> fds{};
  std::array<std::pair<io::unique_fd*, std::string*>, 2> sources{};
  nfds_t count = 0;
  for (auto [fd, buffer] : {std::pair{&out_fd_, &out_}, std::pair{&err_fd_, &err_}}) {
    if (!*fd) continue;
    fds[count] = pollfd{fd->get(), POLLIN, 0};
    sources[count] = {fd, buffer};
    ++count;
  }
  int ready = ::poll(count ? fds.data() : nullptr, count, static_cast<int>(max_wait.count()));
  if (ready < 0 && errno == EINTR) return 0;
  base::check_syscall(ready, "poll", "child output");

  std::size_t total = 0;
  std::array<char, 65536> chunk;
  for (nfds_t i = 0; i < count; ++i) {
    if (fds[i].revents == 0) continue;
    ssize_t got =
        base::retry_on_eintr([&] { return ::read(fds[i].fd, chunk.data(), chunk.size()); });
    base::check_syscall(got, "read", "child output");
    if (got == 0) {
      sources[i].first->reset();  // end of file: the child and its heirs closed this pipe
    } else {
      sources[i].second->append(chunk.data(), static_cast<std::size_t>(got));
      total += static_cast<std::size_t>(got);
    }
  }
  return total;
}

bool child_process::try_reap(bool block) {
  if (reaped_) return true;
  pid_t got = base::retry_on_eintr([&] { return ::waitpid(pid_, &status_, block ? 0 : WNOHANG); });
  base::check_syscall(got, "waitpid", std::to_string(pid_));
  reaped_ = got == pid_;
  return reaped_;
}

void child_process::kill_group() const noexcept {
  // ESRCH (the group is already gone) is the expected, harmless outcome.
  ::kill(-pid_, SIGKILL);
}

std::optional<std::string> child_process::read_stdout_line(milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  for (;;) {
    auto newline = out_.find('\n', out_consumed_);
    if (newline != std::string::npos) {
      std::string line = out_.substr(out_consumed_, newline + 1 - out_consumed_);
      out_consumed_ = newline + 1;
      return line;
    }
    if (!out_fd_ || steady_clock::now() >= deadline) return std::nullopt;
    pump(std::min(remaining_until(deadline), milliseconds{50}));
  }
}

bool child_process::wait_for_stderr(const std::string& text, milliseconds timeout,
                                    std::size_t from) {
  const auto deadline = steady_clock::now() + timeout;
  for (;;) {
    if (err_.find(text, from) != std::string::npos) return true;
    if (!err_fd_ || steady_clock::now() >= deadline) return false;
    pump(std::min(remaining_until(deadline), milliseconds{50}));
  }
}

void child_process::send_signal(int signal) const {
  base::check_syscall(::kill(pid_, signal), "kill", std::to_string(pid_));
}

void child_process::send_signal_to_group(int signal) const {
  base::check_syscall(::kill(-pid_, signal), "kill", "process group " + std::to_string(pid_));
}

command_result child_process::wait(milliseconds timeout) {
  return wait(timeout, true);
}

command_result child_process::wait_without_group_kill(milliseconds timeout) {
  return wait(timeout, false);
}

command_result child_process::wait(milliseconds timeout, bool kill_group_after) {
  const auto deadline = steady_clock::now() + timeout;
  command_result result;
  for (;;) {
    pump(std::min(remaining_until(deadline), milliseconds{20}));
    if (try_reap(false)) {
      // Whatever the child wrote before exiting is already in the pipes; a grandchild that
      // still holds them open must not make us wait.
      while (pump(milliseconds{0}) > 0) {
      }
      break;
    }
    if (steady_clock::now() >= deadline) {
      result.timed_out = true;
      result.hang_snapshot = threads_of(pid_);
      kill_group();
      try_reap(true);
      break;
    }
  }
  result.elapsed = std::chrono::duration_cast<milliseconds>(steady_clock::now() - started_);
  if (kill_group_after) kill_group();
  out_fd_.reset();
  err_fd_.reset();
  if (WIFEXITED(status_)) {
    result.exit_code = WEXITSTATUS(status_);
  } else if (WIFSIGNALED(status_)) {
    result.term_signal = WTERMSIG(status_);
  }
  result.out = std::move(out_);
  result.err = std::move(err_);
  return result;
}

command_result run_command(const std::vector<std::string>& argv, milliseconds timeout) {
  return child_process::spawn(argv).wait(timeout);
}

bool perf_installed() {
  try {
    return run_command({"perf", "--version"}, std::chrono::seconds(30)).exit_code == 0;
  } catch (const std::system_error&) {
    return false;  // no perf in PATH: the spawn itself fails
  }
}

}  // namespace arec::test
