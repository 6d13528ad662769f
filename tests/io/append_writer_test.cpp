// Specifications of the data-file append writer: request arithmetic, backend choice and
// fallback, short writes and errors from the kernel, identical output of both backends, and
// no allocation in steady state.
#include "io/append_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "io/unique_fd.hpp"
#include "support/allocation_counter.hpp"
#include "support/io_uring_seccomp.h"



namespace {

using arec::io::append_writer;
using arec::io::append_writer_config;
using arec::io::make_append_writer;
using arec::io::request_slots;
using arec::io::unique_fd;
using arec::io::write_request;
using arec::io::writer_backend;
using bytes = std::span<const std::byte>;

std::string backend_name(writer_backend backend) {
  return backend == writer_backend::io_uring ? "io_uring" : "plain";
}

// Sets or unsets an environment variable for one scope.
class environment_guard {
 public:
  environment_guard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  environment_guard(const environment_guard&) = delete;
  environment_guard& operator=(const environment_guard&) = delete;
  ~environment_guard() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh file in the test temporary directory, removed at the end of the test.
class temp_file {
 public:
  explicit temp_file(const std::string& stem, int extra_flags = 0) {
    path_ = testing::TempDir() + "arec_append_writer_" + stem + "_" + std::to_string(::getpid());
    fd_ = unique_fd::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | extra_flags, 0600);
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  ~temp_file() { ::unlink(path_.c_str()); }

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

  // Read through a descriptor of its own: fd() may be O_DIRECT, which wants aligned buffers.
  std::vector<std::byte> contents() const {
    unique_fd reader = unique_fd::open(path_.c_str(), O_RDONLY);
    struct stat st {};
    if (::fstat(reader.get(), &st) != 0) {
      throw std::system_error(errno, std::system_category(), "fstat");
    }
    std::vector<std::byte> data(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n =
          ::pread(reader.get(), data.data() + done, data.size() - done, static_cast<off_t>(done));
      if (n <= 0) throw std::system_error(errno, std::system_category(), "pread");
      done += static_cast<std::size_t>(n);
    }
    return data;
  }

 private:
  std::string path_;
  unique_fd fd_;
};

std::vector<std::byte> pattern(std::size_t size, unsigned seed) {
  std::vector<std::byte> data(size);
  std::mt19937 random(seed);
  for (auto& b : data) b = static_cast<std::byte>(random());
  return data;
}

// Waits for and reaps every request in flight; returns the cookies in completion order.
std::vector<std::uint64_t> drain(append_writer& writer) {
  std::vector<std::uint64_t> cookies;
  std::array<std::uint64_t, 8> done{};
  while (writer.in_flight() > 0) {
    std::size_t n = writer.reap(done);
    if (n == 0) {
      writer.wait_one();
      continue;
    }
    cookies.insert(cookies.end(), done.begin(), done.begin() + static_cast<std::ptrdiff_t>(n));
  }
  return cookies;
}

// --- write_request: the remainder arithmetic behind short writes ---

TEST(WriteRequest, AssignDropsEmptyPiecesAndTotalsTheRest) {
  auto data = pattern(32, 1);
  std::array<bytes, 4> pieces{bytes(data).subspan(0, 3), bytes(), bytes(data).subspan(3, 5),
                              bytes(data).subspan(8, 2)};
  write_request request;
  EXPECT_EQ(request.assign(pieces, 100, 7), 10u);
  ASSERT_EQ(request.remaining().size(), 3u);
  EXPECT_EQ(request.remaining()[1].iov_base, data.data() + 3);
  EXPECT_EQ(request.remaining()[1].iov_len, 5u);
  EXPECT_EQ(request.remaining_bytes(), 10u);
  EXPECT_EQ(request.offset, 100u);
  EXPECT_EQ(request.cookie, 7u);
}

TEST(WriteRequest, ShortWriteInsideALaterPieceLeavesItsTailAtTheNextOffset) {
  auto data = pattern(32, 2);
  std::array<bytes, 3> pieces{bytes(data).subspan(0, 3), bytes(data).subspan(10, 5),
                              bytes(data).subspan(20, 2)};
  write_request request;
  request.assign(pieces, 100, 1);

  EXPECT_FALSE(request.advance(4));  // all of piece 0 and 1 byte of piece 1
  ASSERT_EQ(request.remaining().size(), 2u);
  EXPECT_EQ(request.remaining()[0].iov_base, data.data() + 11);
  EXPECT_EQ(request.remaining()[0].iov_len, 4u);
  EXPECT_EQ(request.remaining()[1].iov_base, data.data() + 20);
  EXPECT_EQ(request.offset, 104u);
  EXPECT_EQ(request.remaining_bytes(), 6u);

  EXPECT_FALSE(request.advance(4));  // exactly to the end of piece 1
  ASSERT_EQ(request.remaining().size(), 1u);
  EXPECT_EQ(request.remaining()[0].iov_base, data.data() + 20);
  EXPECT_EQ(request.remaining()[0].iov_len, 2u);
  EXPECT_EQ(request.offset, 108u);

  EXPECT_FALSE(request.advance(0));  // no progress changes nothing
  EXPECT_EQ(request.remaining_bytes(), 2u);
  EXPECT_EQ(request.offset, 108u);

  EXPECT_TRUE(request.advance(2));
  EXPECT_TRUE(request.remaining().empty());
  EXPECT_EQ(request.offset, 110u);
}

TEST(WriteRequest, OnlyEmptyPiecesMakeARequestThatIsAlreadyComplete) {
  std::array<bytes, 2> pieces{};
  write_request request;
  EXPECT_EQ(request.assign(pieces, 5, 1), 0u);
  EXPECT_TRUE(request.remaining().empty());
  EXPECT_TRUE(request.advance(0));
  EXPECT_EQ(request.offset, 5u);
}

// --- request_slots ---

TEST(RequestSlots, HandsOutCookiesInFinishingOrderAndFreesTheirSlots) {
  request_slots slots(3);
  auto a = slots.acquire({}, 0, 10);
  auto b = slots.acquire({}, 0, 11);
  auto c = slots.acquire({}, 0, 12);
  EXPECT_FALSE(slots.has_free());
  EXPECT_THROW(slots.acquire({}, 0, 13), std::logic_error);
  slots.finish(c);
  slots.finish(a);
  std::array<std::uint64_t, 1> one{};
  EXPECT_EQ(slots.hand_out(one), 1u);
  EXPECT_EQ(one[0], 12u);
  EXPECT_EQ(slots.in_use(), 2u);
  slots.finish(b);
  std::array<std::uint64_t, 4> many{};
  EXPECT_EQ(slots.hand_out(many), 2u);
  EXPECT_EQ(many[0], 10u);
  EXPECT_EQ(many[1], 11u);
  EXPECT_EQ(slots.in_use(), 0u);
  EXPECT_FALSE(slots.has_finished());
}

TEST(RequestSlots, RejectsMoreThanMaxPieces) {
  request_slots slots(1);
  std::array<bytes, append_writer::max_pieces + 1> pieces{};
  EXPECT_THROW(slots.acquire(pieces, 0, 1), std::logic_error);
  EXPECT_TRUE(slots.has_free());
}

// --- choosing the backend ---

TEST(MakeAppendWriter, ForcePlainChoosesPlainAndSaysWhy) {
  temp_file file("force");
  auto [writer, choice] = make_append_writer(file.fd(), file.path(), 0, {.force_plain = true});
  EXPECT_EQ(writer->backend(), writer_backend::plain);
  EXPECT_EQ(choice.backend, writer_backend::plain);
  EXPECT_EQ(choice.fallback_reason, "plain writes requested");
  EXPECT_EQ(writer->completion_fd(), -1);
}

TEST(MakeAppendWriter, EnvironmentVariableForcesPlain) {
  environment_guard env("AREC_FORCE_PLAIN_IO", "1");
  temp_file file("env");
  auto [writer, choice] = make_append_writer(file.fd(), file.path(), 0);
  EXPECT_EQ(writer->backend(), writer_backend::plain);
  EXPECT_EQ(choice.fallback_reason, "plain writes forced by AREC_FORCE_PLAIN_IO=1");
}

TEST(MakeAppendWriter, ChoosesIoUringWhereAvailable) {
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  temp_file file("default");
  auto [writer, choice] = make_append_writer(file.fd(), file.path(), 0);
  if (choice.backend != writer_backend::io_uring) GTEST_SKIP() << choice.fallback_reason;
  EXPECT_EQ(writer->backend(), writer_backend::io_uring);
  EXPECT_TRUE(choice.fallback_reason.empty());
  EXPECT_GE(writer->completion_fd(), 0);
}

TEST(MakeAppendWriter, ZeroQueueDepthIsRejected) {
  temp_file file("zero");
  EXPECT_THROW(make_append_writer(file.fd(), file.path(), 0, {.queue_depth = 0}),
               std::invalid_argument);
}

// Where seccomp blocks io_uring (containers), the plain writer takes over. The filter is
// installed on a thread of its own: seccomp filters bind only the thread that installs them.
TEST(MakeAppendWriter, FallsBackToPlainWhenSeccompBlocksIoUring) {
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  temp_file file("seccomp");
  int filter_error = 0;
  std::optional<std::pair<std::unique_ptr<append_writer>, arec::io::writer_choice>> made;
  std::thread blocked([&] {
    filter_error = block_io_uring_setup();
    if (filter_error == 0) made.emplace(make_append_writer(file.fd(), file.path(), 0));
  });
  blocked.join();
  if (filter_error != 0) GTEST_SKIP() << "seccomp: " << std::strerror(filter_error);
  auto& [writer, choice] = *made;
  EXPECT_EQ(choice.backend, writer_backend::plain);
  EXPECT_EQ(writer->backend(), writer_backend::plain);
  EXPECT_EQ(choice.fallback_reason,
            "io_uring_queue_init: Operation not permitted (kernel.io_uring_disabled or seccomp)");

  // The fallback writes.
  auto data = pattern(100, 3);
  std::array<bytes, 1> pieces{bytes(data)};
  writer->submit(pieces, 1);
  EXPECT_EQ(drain(*writer), std::vector<std::uint64_t>{1});
  EXPECT_EQ(file.contents(), data);
}

// --- behaviour both backends share ---

class AppendWriterBackend : public testing::TestWithParam<writer_backend> {
 protected:
  // The writer of the backend under test; skips when io_uring is unavailable.
  std::unique_ptr<append_writer> make(const temp_file& file, std::uint64_t start,
                                      std::size_t depth = 16) {
    environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
    bool plain = GetParam() == writer_backend::plain;
    auto [writer, choice] = make_append_writer(file.fd(), file.path(), start,
                                               {.queue_depth = depth, .force_plain = plain});
    if (choice.backend != GetParam()) return nullptr;
    return std::move(writer);
  }
};

#define MAKE_OR_SKIP(var, ...)  \
  auto var = make(__VA_ARGS__); \
  if (!var) GTEST_SKIP() << "io_uring unavailable on this machine"

TEST_P(AppendWriterBackend, WritesPiecesAtConsecutiveOffsetsFromTheStartOffset) {
  temp_file file("consecutive");
  const std::string header = "HEADER--";
  ASSERT_EQ(::pwrite(file.fd(), header.data(), header.size(), 0), 8);
  MAKE_OR_SKIP(writer, file, 8);
  auto data = pattern(1000, 4);
  std::array<bytes, 3> first{bytes(data).subspan(0, 10), bytes(), bytes(data).subspan(10, 90)};
  std::array<bytes, 1> second{bytes(data).subspan(100, 900)};
  writer->submit(first, 1);
  EXPECT_EQ(writer->offset(), 108u);
  writer->submit(second, 2);
  EXPECT_EQ(writer->offset(), 1008u);
  auto cookies = drain(*writer);
  std::sort(cookies.begin(), cookies.end());
  EXPECT_EQ(cookies, (std::vector<std::uint64_t>{1, 2}));

  auto contents = file.contents();
  ASSERT_EQ(contents.size(), 1008u);
  EXPECT_EQ(std::memcmp(contents.data(), header.data(), 8), 0);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), contents.begin() + 8));
}

TEST_P(AppendWriterBackend, QueueDepthBoundsRequestsInFlight) {
  temp_file file("depth");
  MAKE_OR_SKIP(writer, file, 0, 2);
  auto data = pattern(10, 5);
  std::array<bytes, 1> pieces{bytes(data)};
  writer->submit(pieces, 1);
  writer->submit(pieces, 2);
  EXPECT_FALSE(writer->can_submit());
  EXPECT_EQ(writer->in_flight(), 2u);
  EXPECT_THROW(writer->submit(pieces, 3), std::logic_error);
  EXPECT_EQ(writer->offset(), 20u);  // the rejected request reserved nothing
  drain(*writer);
  EXPECT_TRUE(writer->can_submit());
  EXPECT_EQ(file.contents().size(), 20u);
}

TEST_P(AppendWriterBackend, CompletionFdSignalsFinishedWritesAndReapClearsIt) {
  temp_file file("eventfd");
  MAKE_OR_SKIP(writer, file, 0);
  if (GetParam() == writer_backend::plain) {
    EXPECT_EQ(writer->completion_fd(), -1);
    return;
  }
  auto data = pattern(4096, 6);
  std::array<bytes, 1> pieces{bytes(data)};
  writer->submit(pieces, 42);
  pollfd ready{writer->completion_fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&ready, 1, 5000), 1) << "no completion signalled within 5 s";
  std::array<std::uint64_t, 4> done{};
  ASSERT_EQ(writer->reap(done), 1u);
  EXPECT_EQ(done[0], 42u);
  ready.revents = 0;
  EXPECT_EQ(::poll(&ready, 1, 0), 0) << "eventfd still readable after reap()";
}

TEST_P(AppendWriterBackend, SteadyStateSubmitAndReapAllocateNothing) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  temp_file file("alloc");
  MAKE_OR_SKIP(writer, file, 0, 4);
  auto data = pattern(256, 7);
  std::array<bytes, 3> pieces{bytes(data).subspan(0, 100), bytes(), bytes(data).subspan(100, 156)};
  std::array<std::uint64_t, 4> done{};
  auto cycle = [&](std::uint64_t cookie) {
    while (!writer->can_submit()) {
      if (writer->reap(done) == 0) writer->wait_one();
    }
    writer->submit(pieces, cookie);
    writer->reap(done);
  };
  for (std::uint64_t i = 0; i < 100; ++i) cycle(i);  // warm-up
  std::size_t before = arec::test::allocations();
  for (std::uint64_t i = 100; i < 10100; ++i) cycle(i);
  std::size_t after = arec::test::allocations();
  drain(*writer);
  EXPECT_EQ(after - before, 0u) << "allocations in 10000 submit/reap cycles";
  EXPECT_EQ(file.contents().size(), 10100u * 256u);
}

// In a child limited by RLIMIT_FSIZE, one request crossing the limit is cut short by the kernel;
// the writer resubmits the remainder, which fails with EFBIG. Returns the child's report.
std::string write_across_file_size_limit(writer_backend backend, const temp_file& file,
                                         std::size_t limit, const std::vector<std::byte>& data) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return std::string("pipe2: ") + std::strerror(errno);
  pid_t child = ::fork();
  if (child < 0) return std::string("fork: ") + std::strerror(errno);
  if (child == 0) {
    ::close(report[0]);
    std::string message;
    try {
      rlimit limits{limit, limit};
      if (::setrlimit(RLIMIT_FSIZE, &limits) != 0) throw std::runtime_error("setrlimit");
      ::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of being killed
      ::unsetenv("AREC_FORCE_PLAIN_IO");  // the backend under test, whatever the caller set
      auto [writer, choice] =
          make_append_writer(file.fd(), file.path(), 0,
                             {.queue_depth = 4, .force_plain = backend == writer_backend::plain});
      if (choice.backend != backend) {
        message = "skip: " + choice.fallback_reason;
      } else {
        // Three pieces; the limit falls inside the second.
        std::array<bytes, 3> pieces{bytes(data).subspan(0, 3000), bytes(data).subspan(3000, 5000),
                                    bytes(data).subspan(8000)};
        writer->submit(pieces, 1);
        drain(*writer);
        message = "no error";
      }
    } catch (const std::system_error& error) {
      message = error.what();
    } catch (const std::exception& error) {
      message = std::string("unexpected: ") + error.what();
    }
    [[maybe_unused]] auto n = ::write(report[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(report[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) {
    message.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child died: " + message;
  return message;
}

TEST_P(AppendWriterBackend, ShortWriteAtFileSizeLimitWritesUpToItThenReportsFileTooLarge) {
  temp_file file("fsize");
  const std::size_t limit = 5000;  // inside the second piece, which spans [3000, 8000)
  auto data = pattern(12000, 8);
  std::string message = write_across_file_size_limit(GetParam(), file, limit, data);
  if (message.starts_with("skip: ")) GTEST_SKIP() << message;
  EXPECT_EQ(message, "write " + file.path() + ": File too large");
  auto contents = file.contents();
  ASSERT_EQ(contents.size(), limit);
  EXPECT_TRUE(std::equal(contents.begin(), contents.end(), data.begin()));
}

TEST_P(AppendWriterBackend, DestructionWaitsForWritesStillInFlight) {
  temp_file file("destroy");
  const std::size_t chunk = 1 << 20;
  auto data = pattern(chunk, 9);
  {
    MAKE_OR_SKIP(writer, file, 0, 16);
    std::array<bytes, 1> pieces{bytes(data)};
    for (std::uint64_t i = 0; i < 16; ++i) writer->submit(pieces, i);
  }
  auto contents = file.contents();
  ASSERT_EQ(contents.size(), 16 * chunk);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_TRUE(std::equal(data.begin(), data.end(), contents.begin() + i * chunk)) << i;
  }
}

// With signals off, a caller reaps on its own schedule: many writes complete and are reaped
// without a single eventfd signal (no wake-up per write); turned back on, it signals again.
TEST(UringWriter, SignalsOffCompleteEveryWriteWithoutSignallingTheEventfd) {
  temp_file file("quiet");
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  auto [writer, choice] = make_append_writer(file.fd(), file.path(), 0, {.queue_depth = 8});
  if (choice.backend != writer_backend::io_uring) GTEST_SKIP() << choice.fallback_reason;
  writer->signal_completions(false);
  auto data = pattern(4096, 11);
  std::array<bytes, 1> pieces{bytes(data)};
  std::array<std::uint64_t, 8> done{};
  std::set<std::uint64_t> reaped;
  constexpr std::uint64_t writes = 64;
  for (std::uint64_t i = 0; i < writes; ++i) {
    while (!writer->can_submit()) {
      std::size_t n = writer->reap(done);
      if (n == 0) writer->wait_one();  // blocks on the completion ring, not on the eventfd
      reaped.insert(done.begin(), done.begin() + static_cast<std::ptrdiff_t>(n));
    }
    writer->submit(pieces, i);
  }
  for (std::uint64_t cookie : drain(*writer)) reaped.insert(cookie);
  EXPECT_EQ(reaped.size(), writes);
  pollfd ready{writer->completion_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&ready, 1, 0), 0) << "the eventfd was signalled while signals were off";
  auto contents = file.contents();
  ASSERT_EQ(contents.size(), writes * data.size());
  for (std::size_t i = 0; i < writes; ++i)
    EXPECT_TRUE(std::equal(data.begin(), data.end(), contents.begin() + i * data.size())) << i;

  writer->signal_completions(true);
  writer->submit(pieces, 99);
  ASSERT_EQ(::poll(&ready, 1, 5000), 1) << "no completion signalled within 5 s after turning on";
  ASSERT_EQ(writer->reap(done), 1u);
  EXPECT_EQ(done[0], 99u);
}

// The recorder makes each writer on its main thread and submits from a streaming thread, which
// sleeps in epoll_wait between drains. A finished write must not wake it: completions are
// taken when it next reaps (io_uring's deferred task work). With ordinary task work every
// write punted to a worker interrupts that sleep, and epoll_wait returns EINTR.
TEST(UringWriter, CompletionsDoNotInterruptTheSubmittingThreadsSleep) {
  temp_file file("asleep");
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  // Not a structured binding: the thread's lambda captures the writer (clang before 16).
  auto made = make_append_writer(file.fd(), file.path(), 0, {.queue_depth = 8});
  if (made.second.backend != writer_backend::io_uring) GTEST_SKIP() << made.second.fallback_reason;
  append_writer& writer = *made.first;
  writer.signal_completions(false);
  auto data = pattern(16 * 1024, 13);
  std::array<bytes, 1> pieces{bytes(data)};
  constexpr std::uint64_t writes = 20;
  int interrupted = 0;
  std::set<std::uint64_t> reaped;
  std::thread([&] {
    unique_fd epoll{::epoll_create1(EPOLL_CLOEXEC)};
    int idle[2];
    ASSERT_EQ(::pipe2(idle, O_CLOEXEC), 0);
    unique_fd idle_read{idle[0]}, idle_write{idle[1]};
    epoll_event watch{.events = EPOLLIN, .data = {}};
    ASSERT_EQ(::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, idle_read.get(), &watch), 0);
    std::array<std::uint64_t, 8> done{};
    for (std::uint64_t i = 0; i < writes; ++i) {
      writer.submit(pieces, i);
      // The write is finished by a worker meanwhile; only an interruption ends this early.
      epoll_event event{};
      if (::epoll_wait(epoll.get(), &event, 1, 20) < 0 && errno == EINTR) ++interrupted;
      while (writer.in_flight() > 0) {
        std::size_t n = writer.reap(done);
        if (n == 0) writer.wait_one();
        reaped.insert(done.begin(), done.begin() + static_cast<std::ptrdiff_t>(n));
      }
    }
  }).join();
  EXPECT_EQ(interrupted, 0) << "of " << writes << " sleeps";
  EXPECT_EQ(reaped.size(), writes);
  EXPECT_EQ(file.contents().size(), writes * data.size());
}

// The streaming thread may end (a failure, a halt) with writes still in the kernel; the writer
// then dies on the main thread, which never submitted and may not wait on the ring. The thread
// settles its writes as it ends: the file is whole when the writer dies, and the buffers freed
// then are no longer read.
TEST(UringWriter, WritesSettledByTheirThreadAreWholeWhenTheWriterDiesElsewhere) {
  temp_file file("handed");
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  const std::size_t chunk = 1 << 20;
  auto data = pattern(chunk, 17);
  {
    auto made = make_append_writer(file.fd(), file.path(), 0, {.queue_depth = 16});
    if (made.second.backend != writer_backend::io_uring)
      GTEST_SKIP() << made.second.fallback_reason;
    append_writer& writer = *made.first;
    std::array<bytes, 1> pieces{bytes(data)};
    std::thread([&] {
      for (std::uint64_t i = 0; i < 16; ++i) writer.submit(pieces, i);
      writer.settle();
    }).join();
    EXPECT_EQ(writer.in_flight(), 16u) << "settle() drops completions; it does not reap them";
  }
  auto contents = file.contents();
  ASSERT_EQ(contents.size(), 16 * chunk);
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_TRUE(std::equal(data.begin(), data.end(), contents.begin() + i * chunk)) << i;
}

INSTANTIATE_TEST_SUITE_P(Backends, AppendWriterBackend,
                         testing::Values(writer_backend::io_uring, writer_backend::plain),
                         [](const auto& info) { return backend_name(info.param); });

// --- both backends write the same bytes ---

struct chunk {
  std::array<bytes, append_writer::max_pieces> pieces;
  std::size_t count;
};

// Chunks of 1..100000 bytes in 1..4 pieces taken from `source`, a third of them with an empty
// piece, and every 50th with no bytes at all.
std::vector<chunk> random_chunks(std::size_t n, const std::vector<std::byte>& source,
                                 unsigned seed) {
  std::mt19937 random(seed);
  auto uniform = [&](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(random);
  };
  std::vector<chunk> chunks(n);
  for (std::size_t i = 0; i < n; ++i) {
    chunk& c = chunks[i];
    c.count = uniform(1, append_writer::max_pieces);
    if (i % 50 == 49) continue;  // all pieces empty
    std::size_t total = uniform(1, 100000);
    std::vector<std::size_t> cuts{0, total};
    for (std::size_t k = 1; k < c.count; ++k) cuts.push_back(uniform(0, total));
    if (c.count > 1 && uniform(0, 2) == 0) cuts.back() = cuts[cuts.size() - 2];  // empty piece
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t k = 0; k < c.count; ++k) {
      std::size_t length = cuts[k + 1] - cuts[k];
      c.pieces[k] = bytes(source).subspan(uniform(0, source.size() - length), length);
    }
  }
  return chunks;
}

struct written {
  std::vector<std::byte> contents;
  std::uint64_t final_offset;
  std::size_t out_of_order;  // cookies that came back before an earlier-submitted one
};

// Keeps up to `depth` requests in flight, reaping a few cookies at a time.
std::optional<written> write_chunks(const std::vector<chunk>& chunks, writer_backend backend,
                                    std::size_t depth, int open_flags = 0) {
  environment_guard env("AREC_FORCE_PLAIN_IO", nullptr);
  temp_file file(
      std::string(open_flags & O_DIRECT ? "direct_" : "buffered_") + backend_name(backend),
      open_flags);
  auto made =
      make_append_writer(file.fd(), file.path(), 0,
                         {.queue_depth = depth, .force_plain = backend == writer_backend::plain});
  if (made.second.backend != backend) return std::nullopt;
  append_writer* writer = made.first.get();  // a lambda below uses it (no structured binding)
  std::vector<std::uint64_t> returned;
  std::array<std::uint64_t, 3> done{};
  auto collect = [&] {
    std::size_t n = writer->reap(done);
    returned.insert(returned.end(), done.begin(), done.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  };
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    while (!writer->can_submit()) {
      if (collect() == 0) writer->wait_one();
    }
    writer->submit(std::span(chunks[i].pieces.data(), chunks[i].count), i);
  }
  while (writer->in_flight() > 0) {
    if (collect() == 0) writer->wait_one();
  }
  std::size_t out_of_order = 0;
  for (std::size_t i = 1; i < returned.size(); ++i) out_of_order += returned[i] < returned[i - 1];
  std::sort(returned.begin(), returned.end());
  std::vector<std::uint64_t> expected(chunks.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(returned, expected) << "every cookie exactly once";
  return written{file.contents(), writer->offset(), out_of_order};
}

TEST(AppendWriter, BothBackendsWriteByteIdenticalFiles) {
  auto source = pattern(1 << 20, 10);
  auto chunks = random_chunks(400, source, 11);
  std::vector<std::byte> expected;
  for (const chunk& c : chunks) {
    for (std::size_t k = 0; k < c.count; ++k) {
      expected.insert(expected.end(), c.pieces[k].begin(), c.pieces[k].end());
    }
  }
  for (std::size_t depth : {1, 64}) {
    SCOPED_TRACE("queue depth " + std::to_string(depth));
    auto plain = write_chunks(chunks, writer_backend::plain, depth);
    auto uring = write_chunks(chunks, writer_backend::io_uring, depth);
    ASSERT_TRUE(plain);
    if (!uring) GTEST_SKIP() << "io_uring unavailable on this machine";
    EXPECT_EQ(plain->final_offset, expected.size());
    EXPECT_EQ(uring->final_offset, plain->final_offset);
    EXPECT_TRUE(plain->contents == expected);
    EXPECT_TRUE(uring->contents == plain->contents);
    RecordProperty("io_uring_out_of_order_depth_" + std::to_string(depth),
                   static_cast<int>(uring->out_of_order));
  }
}

// Buffered writes complete inline at submission, hence in order. O_DIRECT writes of mixed
// sizes go to the device concurrently and complete out of order (50 to 130 of 300 on ext4 here).
TEST(AppendWriter, BothBackendsWriteByteIdenticalFilesWhenCompletionsComeOutOfOrder) {
  constexpr std::size_t block = 4096;  // O_DIRECT alignment of buffers, sizes and offsets
  constexpr std::size_t source_size = 4 << 20;
  std::unique_ptr<std::byte, decltype(&std::free)> aligned(
      static_cast<std::byte*>(std::aligned_alloc(block, source_size)), &std::free);
  ASSERT_TRUE(aligned);
  auto random_bytes = pattern(source_size, 12);
  std::memcpy(aligned.get(), random_bytes.data(), source_size);
  bytes source(aligned.get(), source_size);

  std::mt19937 random(13);
  auto blocks = [&](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(random) * block;
  };
  std::vector<chunk> chunks(300);
  std::vector<std::byte> expected;
  for (chunk& c : chunks) {
    c.count = std::uniform_int_distribution<std::size_t>(1, append_writer::max_pieces)(random);
    for (std::size_t k = 0; k < c.count; ++k) {
      std::size_t length = k == 1 ? 0 : blocks(1, 64);  // an empty second piece when there is one
      c.pieces[k] = source.subspan(blocks(0, (source_size - length) / block), length);
      expected.insert(expected.end(), c.pieces[k].begin(), c.pieces[k].end());
    }
  }

  std::size_t out_of_order = 0;
  for (int attempt = 0; attempt < 5 && out_of_order == 0; ++attempt) {
    std::optional<written> uring;
    std::optional<std::system_error> failure;
    // On a fresh thread: after this thread's io_uring workers have taken the buffered writes of
    // the test above, its direct writes came back in order every time (io_uring state is per
    // task; a new thread starts clean and sees them complete out of order).
    std::thread([&] {
      try {
        uring = write_chunks(chunks, writer_backend::io_uring, 64, O_DIRECT);
      } catch (const std::system_error& error) {
        failure = error;
      }
    }).join();
    if (failure) {
      if (failure->code().value() == EINVAL)
        GTEST_SKIP() << "no O_DIRECT here: " << failure->what();
      throw *failure;
    }
    if (!uring) GTEST_SKIP() << "io_uring unavailable on this machine";
    auto plain = write_chunks(chunks, writer_backend::plain, 64, O_DIRECT);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->final_offset, expected.size());
    EXPECT_EQ(uring->final_offset, plain->final_offset);
    ASSERT_TRUE(plain->contents == expected);
    ASSERT_TRUE(uring->contents == plain->contents);
    out_of_order = uring->out_of_order;
  }
  RecordProperty("io_uring_out_of_order", static_cast<int>(out_of_order));
  if (out_of_order == 0) GTEST_SKIP() << "the kernel completed every O_DIRECT write in order";
}

}  // namespace
