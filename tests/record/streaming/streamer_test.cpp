// Specification of the streamer, on rings the test writes itself (an anonymous mapping laid out
// like a perf ring, woken through a pipe): FINISHED_ROUND only once rounds are released and only
// after every ring was drained for the round, a hung-up ring, the final drain, --mmap-flush, and
// a failed write. Every test reads back the data file the streamer wrote.
//
// Nothing here waits for time to pass: the tests wait for conditions (a write submitted, the
// durable offset reaching a value), with a deadline that only turns a hang into a failure.
#include "record/streaming/streamer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <ostream>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "async/executor_thread.hpp"
#include "async/spawn.hpp"
#include "base/system_error.hpp"
#include "io/append_writer.hpp"
#include "io/mmap_region.hpp"
#include "io/unique_fd.hpp"
#include "support/temp_file.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;

// The perf.data ABI as the tests read it, spelled out here rather than taken from arec.
constexpr std::uint32_t finished_round = 68;  // PERF_RECORD_FINISHED_ROUND, header only
constexpr std::uint16_t finished_round_size = 8;
constexpr std::uint16_t sample_size = 32;  // header, IP, PID/TID, TIME

constexpr auto no_rounds = std::chrono::hours(24);  // the round timer never fires in a test

// Polls `holds` until it is true. The deadline is generous: it only turns a hang into a failure.
template <typename Condition>
[[nodiscard]] bool eventually(Condition holds) {
  auto deadline = std::chrono::steady_clock::now() + 120s;
  while (!holds()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// ---- records ------------------------------------------------------------------------------------

// A record as the file holds it. The test's records are SAMPLEs whose IP field names the ring
// they were put in and whose TIME field numbers them in the order the test published them, over
// all rings.
struct file_record {
  std::uint32_t type = 0;
  std::uint16_t size = 0;
  std::uint64_t ring = 0;
  std::uint64_t seq = 0;

  bool is_finished_round() const { return type == finished_round; }
};

std::vector<std::byte> encode_sample(std::uint64_t ring, std::uint64_t seq, std::uint16_t size) {
  std::vector<std::byte> bytes(size);
  perf_event_header header{PERF_RECORD_SAMPLE, 0, size};
  std::memcpy(bytes.data(), &header, sizeof header);
  std::memcpy(bytes.data() + 8, &ring, 8);  // IP
  std::memcpy(bytes.data() + 24, &seq, 8);  // TIME (after IP and PID/TID)
  return bytes;
}

// Parses whole records; a record cut short or of an unexpected kind fails the test.
std::vector<file_record> parse_records(std::span<const std::byte> bytes) {
  std::vector<file_record> records;
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    perf_event_header header;
    if (bytes.size() - offset < sizeof header) {
      ADD_FAILURE() << "a torn record header at offset " << offset;
      break;
    }
    std::memcpy(&header, bytes.data() + offset, sizeof header);
    file_record record{header.type, header.size};
    if (header.type == finished_round) {
      EXPECT_EQ(header.size, finished_round_size) << "FINISHED_ROUND at offset " << offset;
    } else if (header.type == PERF_RECORD_SAMPLE && header.size >= sample_size &&
               header.size <= bytes.size() - offset) {
      std::memcpy(&record.ring, bytes.data() + offset + 8, 8);
      std::memcpy(&record.seq, bytes.data() + offset + 24, 8);
    } else if (header.type == PERF_RECORD_SWITCH && header.size <= bytes.size() - offset) {
      // the off-CPU tests' context switches: passed through as they are
    } else {
      ADD_FAILURE() << "record of type " << header.type << " and size " << header.size
                    << " at offset " << offset << " of " << bytes.size();
      break;
    }
    records.push_back(record);
    offset += header.size;
  }
  return records;
}

// The records in the first `length` bytes of `file` (what the streamer made durable).
std::vector<file_record> read_records(const test::temp_file& file, std::uint64_t length) {
  std::vector<std::byte> bytes(length);
  ssize_t got = ::pread(file.fd(), bytes.data(), bytes.size(), 0);
  EXPECT_EQ(got, static_cast<ssize_t>(length)) << "read " << file.path();
  bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return parse_records(bytes);
}

std::size_t count_finished_rounds(const std::vector<file_record>& records) {
  return static_cast<std::size_t>(
      std::count_if(records.begin(), records.end(), [](auto& r) { return r.is_finished_round(); }));
}

// Where the record numbered `seq` is in `records` (records.size() when absent).
std::size_t position_of(const std::vector<file_record>& records, std::uint64_t seq) {
  auto found = std::find_if(records.begin(), records.end(),
                            [&](auto& r) { return !r.is_finished_round() && r.seq == seq; });
  return static_cast<std::size_t>(found - records.begin());
}

// Where the `n`th (from 1) FINISHED_ROUND is in `records` (records.size() when there is none).
std::size_t position_of_round(const std::vector<file_record>& records, std::size_t n) {
  for (std::size_t i = 0; i < records.size(); ++i)
    if (records[i].is_finished_round() && --n == 0) return i;
  return records.size();
}

// What the test put in its rings, in the order it published it.
struct published_record {
  std::uint64_t ring;
  std::uint64_t seq;
  std::uint16_t size;
};

// The samples in the file are exactly the published ones, each ring's in the order it was put
// in the ring (rings interleave as they were drained).
void expect_holds_exactly(const std::vector<file_record>& records,
                          const std::vector<published_record>& published) {
  std::vector<file_record> samples;
  for (const file_record& record : records)
    if (!record.is_finished_round()) samples.push_back(record);
  ASSERT_EQ(samples.size(), published.size());
  std::vector<std::uint64_t> last_seq_of_ring;
  for (const file_record& sample : samples) {
    if (sample.ring >= last_seq_of_ring.size()) last_seq_of_ring.resize(sample.ring + 1, 0);
    EXPECT_GE(sample.seq, last_seq_of_ring[sample.ring]) << "ring " << sample.ring << " reordered";
    last_seq_of_ring[sample.ring] = sample.seq + 1;
  }
  std::sort(samples.begin(), samples.end(), [](auto& a, auto& b) { return a.seq < b.seq; });
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(samples[i].seq, published[i].seq);
    EXPECT_EQ(samples[i].ring, published[i].ring) << "record " << published[i].seq;
    EXPECT_EQ(samples[i].size, published[i].size) << "record " << published[i].seq;
  }
}

std::uint64_t bytes_of(const std::vector<published_record>& published) {
  std::uint64_t bytes = 0;
  for (const published_record& record : published) bytes += record.size;
  return bytes;
}

// ---- a ring the test writes ---------------------------------------------------------------------

// Wakeups the streamer took back, by pipe fd: a plain function pointer has nowhere else to count.
std::array<std::atomic<unsigned>, 4096> wakeups_taken_by_fd{};

// The streamer's side of a fake ring's pipe: every pending wakeup byte is read (the pipe is
// non-blocking), so the pipe is readable again only after the next wake() or the hang-up.
void take_wakeups(int fd) {
  wakeups_taken_by_fd.at(static_cast<std::size_t>(fd)).fetch_add(1, std::memory_order_relaxed);
  std::array<char, 64> bytes;
  while (::read(fd, bytes.data(), bytes.size()) > 0) {
  }
}

// A ring laid out like a perf ring in anonymous memory, which the test fills as the kernel does,
// and a pipe standing for the perf event fd: a byte is a wakeup, closing the write end is the
// hang-up (POLLHUP) of an event whose task exited.
class fake_ring {
 public:
  // `seq` numbers records over all the test's rings: the order in which the test published them.
  fake_ring(std::uint64_t id, std::uint64_t& seq, std::vector<published_record>& published,
            std::size_t data_pages = 4)
      : id_(id), seq_(seq), published_(published) {
    std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    mapping_ = io::mmap_region::map(-1, (data_pages + 1) * page, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, "fake ring");
    control_ = reinterpret_cast<perf_event_mmap_page*>(mapping_.data());
    data_ = {mapping_.data() + page, data_pages * page};
    int fds[2];
    base::check_syscall(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), "pipe2");
    wake_read_.reset(fds[0]);
    wake_write_.reset(fds[1]);
    wakeups_taken_by_fd.at(static_cast<std::size_t>(fds[0])).store(0);
  }

  // Hands the mapping to `stream` as the ring of `cpu`; the streamer must outlive every later
  // put(), and this object the streamer (the pipe's read end is only lent to it).
  void add_to(streamer& stream, int cpu) {
    stream.add_ring(cpu, ring_buffer::adopt(std::move(mapping_)),
                    ring_wakeup{wake_read_.get(), &take_wakeups});
  }

  // Writes a record at the head (wrapping at the end of the data area) and publishes it as the
  // kernel does: the bytes first, then data_head with release semantics. Waits for the streamer
  // to free enough space if the ring is full. Returns the record's number.
  std::uint64_t put(std::uint16_t size = sample_size) {
    std::uint64_t seq = seq_++;
    put_record(encode_sample(id_, seq, size));
    published_.push_back({id_, seq, size});
    return seq;
  }

  // Writes and publishes a record the test encoded itself (not counted in `published`).
  void put_record(std::span<const std::byte> bytes) {
    if (!eventually([&] { return data_.size() - (head_ - consumed()) >= bytes.size(); }))
      throw std::runtime_error("ring " + std::to_string(id_) + " stayed full");
    for (std::byte b : bytes) data_[head_++ & (data_.size() - 1)] = b;
    std::atomic_ref<__u64>(control_->data_head).store(head_, std::memory_order_release);
  }

  // Puts records until `bytes` more are in the ring; returns the first one's number.
  std::uint64_t put_bytes(std::size_t bytes) {
    std::uint64_t first = seq_;
    for (std::size_t done = 0; done < bytes; done += sample_size) put();
    return first;
  }

  void wake() {
    char byte = 1;
    ASSERT_EQ(::write(wake_write_.get(), &byte, 1), 1);
  }
  void hang_up() { wake_write_.reset(); }

  // data_tail: how far the streamer has handed the ring back.
  std::uint64_t consumed() const {
    return std::atomic_ref<__u64>(control_->data_tail).load(std::memory_order_acquire);
  }
  unsigned wakeups_taken() const {
    return wakeups_taken_by_fd.at(static_cast<std::size_t>(wake_read_.get())).load();
  }

 private:
  std::uint64_t id_;
  std::uint64_t& seq_;
  std::vector<published_record>& published_;
  io::mmap_region mapping_;  // until add_to(); then the streamer's
  perf_event_mmap_page* control_ = nullptr;
  std::span<std::byte> data_;
  std::uint64_t head_ = 0;
  io::unique_fd wake_read_;
  io::unique_fd wake_write_;
};

// The test's rings and what it put in them.
struct fake_rings {
  explicit fake_rings(std::size_t count, std::size_t data_pages = 4) {
    for (std::size_t i = 0; i < count; ++i)
      rings.push_back(std::make_unique<fake_ring>(i, seq, published, data_pages));
  }
  fake_ring& operator[](std::size_t i) { return *rings[i]; }
  void add_to(streamer& stream) {
    for (std::size_t i = 0; i < rings.size(); ++i) rings[i]->add_to(stream, static_cast<int>(i));
  }

  std::uint64_t seq = 0;
  std::vector<published_record> published;
  std::vector<std::unique_ptr<fake_ring>> rings;
};

// ---- a writer the test controls -----------------------------------------------------------------

// One write the streamer submitted, as the test writer saw it.
struct submitted_write {
  std::vector<file_record> records;

  bool is_finished_round() const {
    return records.size() == 1 && records.front().is_finished_round();
  }
  bool holds(std::uint64_t seq) const {
    return std::any_of(records.begin(), records.end(),
                       [&](auto& r) { return !r.is_finished_round() && r.seq == seq; });
  }
  bool holds_ring(std::uint64_t ring) const {
    return std::any_of(records.begin(), records.end(),
                       [&](auto& r) { return !r.is_finished_round() && r.ring == ring; });
  }
};

// An append_writer the test controls. It writes each request to the file at once and reports it
// finished at once, or, when the request matches the hold_when() condition, only once the test
// releases it: a slow io_uring completion. Completions are signalled on an eventfd, as io_uring's
// are, or (`synchronous`) come out of the next reap(), as the plain backend's do; holding needs
// the eventfd. With `room`, it fails like a full disk: a request that does not fit is not
// written, and reap() throws "write PATH: No space left on device" from then on, which is how
// both real backends report a write error (io/append_writer.hpp).
class test_writer final : public io::append_writer {
 public:
  enum class completions { on_eventfd, synchronous };
  friend std::ostream& operator<<(std::ostream& out, completions mode) {
    return out << (mode == completions::on_eventfd ? "on_eventfd" : "synchronous");
  }
  using condition = std::function<bool(const submitted_write&)>;

  test_writer(int fd, std::string path, completions mode,
              std::uint64_t room = std::numeric_limits<std::uint64_t>::max())
      : fd_(fd), path_(std::move(path)), mode_(mode), room_(room), slots_(depth) {
    if (mode == completions::on_eventfd)
      event_fd_.reset(base::check_syscall(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd"));
  }

  void submit(std::span<const std::span<const std::byte>> pieces, std::uint64_t cookie) override {
    std::lock_guard lock(mutex_);
    std::uint32_t slot = slots_.acquire(pieces, offset_, cookie);
    io::write_request& request = slots_[slot];
    std::uint64_t size = request.remaining_bytes();
    std::vector<std::byte> bytes;
    for (auto piece : pieces) bytes.insert(bytes.end(), piece.begin(), piece.end());
    submitted_.push_back({parse_records(bytes)});
    if (offset_ + size > room_) full_ = true;
    if (!full_) write_all(request);
    offset_ += size;
    if (hold_ && hold_(submitted_.back()))
      held_.push_back({slot, submitted_.size() - 1});
    else
      finish(slot);
  }
  bool can_submit() const override {
    std::lock_guard lock(mutex_);
    return slots_.has_free();
  }
  std::size_t in_flight() const override {
    std::lock_guard lock(mutex_);
    return slots_.in_use();
  }
  std::size_t reap(std::span<std::uint64_t> done) override {
    std::lock_guard lock(mutex_);
    if (event_fd_) {
      std::uint64_t count;
      [[maybe_unused]] ssize_t ignored = ::read(event_fd_.get(), &count, sizeof count);
    }
    if (full_) base::throw_system_error(ENOSPC, "write", path_);
    std::size_t handed_out = slots_.hand_out(done);
    reaped_ += handed_out;
    return handed_out;
  }
  void wait_one() override { ADD_FAILURE() << "the streamer never blocks on its writer"; }
  int completion_fd() const override { return event_fd_ ? event_fd_.get() : -1; }
  void signal_completions(bool on) override {
    std::lock_guard lock(mutex_);
    signalling_ = on;
  }
  std::uint64_t offset() const override {
    std::lock_guard lock(mutex_);
    return offset_;
  }
  io::writer_backend backend() const override {
    return mode_ == completions::on_eventfd ? io::writer_backend::io_uring
                                            : io::writer_backend::plain;
  }

  // Requests matching `hold` from now on stay in flight until release() (null: none).
  void hold_when(condition hold) {
    std::lock_guard lock(mutex_);
    hold_ = std::move(hold);
  }
  // Finishes the held requests that match `which`.
  void release(const condition& which) {
    std::lock_guard lock(mutex_);
    std::erase_if(held_, [&](const held_write& held) {
      if (!which(submitted_[held.index])) return false;
      finish(held.slot);
      return true;
    });
  }
  void release_all() {
    release([](const submitted_write&) { return true; });
  }
  // Finishes the held requests that match `which` with no signal on the eventfd: another
  // coroutine's reap took the completion and cleared the eventfd before the pump saw it.
  void release_unsignalled(const condition& which) {
    std::lock_guard lock(mutex_);
    bool was_signalling = std::exchange(signalling_, false);
    std::erase_if(held_, [&](const held_write& held) {
      if (!which(submitted_[held.index])) return false;
      finish(held.slot);
      return true;
    });
    signalling_ = was_signalling;
  }

  std::vector<submitted_write> submitted() const {
    std::lock_guard lock(mutex_);
    return submitted_;
  }
  // Completions the streamer reaped so far.
  std::size_t reaped() const {
    std::lock_guard lock(mutex_);
    return reaped_;
  }
  // Completions signalled on the eventfd so far: each one a wake-up of the streaming thread.
  std::size_t signals() const {
    std::lock_guard lock(mutex_);
    return signals_;
  }
  // Waits until `nth` (from 1) submitted writes match `which`; returns the last one's index in
  // submitted().
  std::size_t wait_for(const condition& which, const char* what, std::size_t nth = 1) {
    std::size_t index = 0;
    bool seen = eventually([&] {
      std::lock_guard lock(mutex_);
      std::size_t matched = 0;
      for (index = 0; index < submitted_.size(); ++index)
        if (which(submitted_[index]) && ++matched == nth) return true;
      return false;
    });
    if (!seen) throw std::runtime_error(std::string("never submitted: ") + what);
    return index;
  }

 private:
  static constexpr std::size_t depth = 16;
  struct held_write {
    std::uint32_t slot;
    std::size_t index;  // in submitted_
  };

  void write_all(io::write_request& request) {
    while (request.remaining_bytes() > 0) {
      auto iov = request.remaining();
      ssize_t written = base::retry_on_eintr([&] {
        return ::pwritev(fd_, iov.data(), static_cast<int>(iov.size()),
                         static_cast<off_t>(request.offset));
      });
      if (written <= 0) throw std::system_error(errno, std::system_category(), "pwritev");
      request.advance(static_cast<std::size_t>(written));
    }
  }
  void finish(std::uint32_t slot) {
    slots_.finish(slot);
    if (!event_fd_ || !signalling_) return;  // as io_uring with IORING_CQ_EVENTFD_DISABLED
    ++signals_;
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = ::write(event_fd_.get(), &one, sizeof one);
  }

  int fd_;
  std::string path_;
  completions mode_;
  std::uint64_t room_;
  io::unique_fd event_fd_;
  mutable std::mutex mutex_;
  io::request_slots slots_;
  std::uint64_t offset_ = 0;
  bool full_ = false;
  bool signalling_ = true;
  std::size_t signals_ = 0;
  std::size_t reaped_ = 0;
  condition hold_;
  std::vector<held_write> held_;
  std::vector<submitted_write> submitted_;
};

// ---- the streaming thread -----------------------------------------------------------------------

std::unique_ptr<io::append_writer> file_writer(const test::temp_file& file) {
  return io::make_append_writer(file.fd(), file.path(), 0).first;
}

// A streaming thread and its streamer, as the session has them: the thread stops before the
// streamer it runs dies.
struct streaming_thread {
  explicit streaming_thread(const streamer_config& config, std::function<void()> on_failure = {})
      : thread({}, "arec-test-strm"), stream(thread, config, std::move(on_failure)) {}
  ~streaming_thread() { thread.halt(); }

  // Waits until the data file is completely written up to `bytes`.
  [[nodiscard]] bool durable_reaches(std::uint64_t bytes) {
    return eventually([&] { return stream.durable_offset() >= bytes; });
  }
  // stop() and join(), as the session ends a recording; rethrows a write error.
  void finish() {
    stream.stop();
    thread.join();
  }

  async::executor_thread thread;
  streamer stream;
};

// Drains are written from the ring and waited for, as large ones always are: these tests watch
// each write finish with no later wake-up to reap it. Staged drains have their own tests.
streamer_config config_with(bool write_rounds, std::chrono::milliseconds round_interval,
                            std::uint64_t mmap_flush = 1) {
  streamer_config config;
  config.write_rounds = write_rounds;
  config.round_interval = round_interval;
  config.mmap_flush = mmap_flush;
  config.staging_limit = 0;
  return config;
}

// ---- rounds -------------------------------------------------------------------------------------

// Rounds every millisecond over `ring_count` fake rings, written through a test_writer that holds
// each round's marker until the test releases it.
struct held_marker_stream {
  explicit held_marker_stream(std::size_t ring_count)
      : rings(ring_count), t(config_with(true, 1ms)) {
    rings.add_to(t.stream);
    auto owned =
        std::make_unique<test_writer>(file.fd(), file.path(), test_writer::completions::on_eventfd);
    owned->hold_when(is_marker);
    test_writer& held = *owned;
    t.stream.start(std::move(owned));
    writer = &held;
  }
  static bool is_marker(const submitted_write& w) { return w.is_finished_round(); }

  test::temp_file file;
  fake_rings rings;
  streaming_thread t;  // stops before the rings it drains go
  test_writer* writer = nullptr;
};

// Synthesized records still come while rounds are held: rounds drain the rings but write no
// marker until release_rounds(), and then one marker covers all that was held.
TEST(StreamerRounds, FinishedRoundIsHeldBackUntilReleaseRounds) {
  test::temp_file file;
  fake_rings rings(3);
  streaming_thread t(config_with(true, 1ms));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  // No wakeups: only rounds drain these. The second batch is put in once the first is on the
  // file, so at least one round that drained something ends between them.
  for (std::size_t i = 0; i < 3; ++i) rings[i].put();
  ASSERT_TRUE(t.durable_reaches(3 * sample_size));
  for (std::size_t i = 0; i < 3; ++i) rings[i].put();
  ASSERT_TRUE(t.durable_reaches(6 * sample_size));
  EXPECT_EQ(t.stream.durable_offset(), 6 * sample_size) << "a marker while rounds are held";
  EXPECT_EQ(count_finished_rounds(read_records(file, t.stream.durable_offset())), 0u);

  t.stream.release_rounds();
  ASSERT_TRUE(t.durable_reaches(6 * sample_size + finished_round_size));
  std::uint64_t c = rings[1].put();
  ASSERT_TRUE(t.durable_reaches(7 * sample_size + 2 * finished_round_size));
  t.finish();

  EXPECT_EQ(t.stream.durable_offset(), 7 * sample_size + 2 * finished_round_size);
  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  ASSERT_EQ(records.size(), 9u);
  EXPECT_TRUE(records[6].is_finished_round());  // all that was drained while held, then one
  EXPECT_EQ(records[7].seq, c);
  EXPECT_TRUE(records[8].is_finished_round());
}

// A round's marker is written only once every ring was drained after the round asked: here ring
// 2 is held up in a write while the round asks, and the marker waits for its drain, however
// long; records of every ring put in before the round come before its marker. The test holds
// each marker's write to stop the rounds, so it knows which round asked when.
TEST(StreamerRounds, FinishedRoundWaitsForEveryRingOfTheRound) {
  held_marker_stream held(3);  // the round coroutine waits for its marker's write
  // References, not a structured binding: clang 14 lets no lambda capture one.
  test::temp_file& file = held.file;
  fake_rings& rings = held.rings;
  streaming_thread& t = held.t;
  test_writer& writer = *held.writer;
  auto is_marker = held_marker_stream::is_marker;
  t.stream.release_rounds();

  // Round a drains what the rings hold, writes its marker and waits for it.
  for (std::size_t i = 0; i < 3; ++i) rings[i].put();
  std::size_t marker_a = writer.wait_for(is_marker, "the first marker");

  // Ring 2 is woken and its write held: it cannot drain for the next round until released.
  writer.hold_when(
      [](const submitted_write& w) { return w.is_finished_round() || w.holds_ring(2); });
  std::uint64_t s2 = rings[2].put();
  rings[2].wake();
  writer.wait_for([&](auto& w) { return w.holds(s2); }, "ring 2's woken drain");

  // Put before round a+1 asks (it cannot: round a waits for its marker's write).
  std::uint64_t t0 = rings[0].put();
  std::uint64_t t1 = rings[1].put();
  std::uint64_t t2 = rings[2].put();
  writer.release(is_marker);

  // Round a+1 drains rings 0 and 1; a wakeup of ring 0 drained after that shows the streaming
  // thread went on meanwhile, and still no marker: ring 2 did not drain for the round.
  writer.wait_for([&](auto& w) { return w.holds(t0); }, "t0");
  writer.wait_for([&](auto& w) { return w.holds(t1); }, "t1");
  std::uint64_t u0 = rings[0].put();
  rings[0].wake();
  writer.wait_for([&](auto& w) { return w.holds(u0); }, "u0");
  auto before_ring_2 = writer.submitted();
  EXPECT_EQ(std::count_if(before_ring_2.begin(), before_ring_2.end(), is_marker), 1)
      << "a marker before ring 2 drained for the round";

  // Ring 2's write ends; it drains t2 for the round, and only then comes the round's marker.
  writer.hold_when(is_marker);
  writer.release([](const submitted_write& w) { return !w.is_finished_round(); });
  std::size_t marker_b = writer.wait_for(is_marker, "the second marker", 2);
  std::size_t drained_t2 = writer.wait_for([&](auto& w) { return w.holds(t2); }, "t2");
  EXPECT_LT(marker_a, drained_t2);
  EXPECT_LT(drained_t2, marker_b);

  writer.hold_when(nullptr);
  writer.release_all();
  t.finish();

  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  std::size_t second_marker = position_of_round(records, 2);
  ASSERT_LT(second_marker, records.size());
  for (std::uint64_t seq : {s2, t0, t1, t2, u0})
    EXPECT_LT(position_of(records, seq), second_marker) << "record " << seq;
  EXPECT_GT(position_of(records, t2), position_of_round(records, 1));
}

// What perf's reader relies on, with rings woken at random while rounds run: every record after
// marker k+1 was published after every record before marker k.
TEST(StreamerRounds, RecordsAfterAMarkerAreNewerThanAllBeforeThePreviousMarker) {
  constexpr std::size_t ring_count = 4;
  constexpr int phases = 6;
  constexpr int records_per_phase = 300;
  test::temp_file file;
  fake_rings rings(ring_count, 2);  // 8 KiB rings: the records wrap around them several times
  streaming_thread t(config_with(true, 1ms));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));
  t.stream.release_rounds();

  std::mt19937 random(20240611);
  for (int phase = 0; phase < phases; ++phase) {
    for (int i = 0; i < records_per_phase; ++i) {
      fake_ring& ring = rings[random() % ring_count];
      ring.put(static_cast<std::uint16_t>(sample_size + 8 * (random() % 5)));
      if (random() % 8 == 0) ring.wake();
    }
    // The phase is on the file and a marker follows it: at least `phases` markers in all.
    std::uint64_t published = rings.published.size();
    ASSERT_TRUE(eventually([&] {
      if (t.stream.durable_samples() < published) return false;
      auto records = read_records(file, t.stream.durable_offset());
      return !records.empty() && records.back().is_finished_round();
    })) << "phase "
        << phase;
  }
  t.finish();

  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  std::uint64_t markers = count_finished_rounds(records);
  EXPECT_GE(markers, static_cast<std::uint64_t>(phases));
  EXPECT_EQ(t.stream.durable_offset(), bytes_of(rings.published) + markers * finished_round_size);

  // newest_before[k]: the newest record before marker k; oldest_after[k]: the oldest after it.
  std::vector<std::uint64_t> newest_before, oldest_after;
  std::uint64_t newest = 0;
  for (const file_record& record : records) {
    if (record.is_finished_round())
      newest_before.push_back(newest);
    else
      newest = std::max(newest, record.seq);
  }
  std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
  for (auto record = records.rbegin(); record != records.rend(); ++record) {
    if (record->is_finished_round())
      oldest_after.insert(oldest_after.begin(), oldest);
    else
      oldest = std::min(oldest, record->seq);
  }
  for (std::size_t k = 0; k + 1 < newest_before.size(); ++k)
    EXPECT_LT(newest_before[k], oldest_after[k + 1]) << "markers " << k << " and " << k + 1;
}

// The pump waits on the completion eventfd while a write someone waits for is in flight. When a
// drain's poll() reaps that completion first (and clears the eventfd), the pump must still see
// the stream close: arec hung at exit, its streaming thread in epoll_wait, about one TSan run of
// this suite in a thousand.
TEST(StreamerRounds, ACompletionReapedByADrainStillLetsTheStreamEnd) {
  held_marker_stream held(2);
  // References, not a structured binding: clang 14 lets no lambda capture one.
  fake_rings& rings = held.rings;
  streaming_thread& t = held.t;
  test_writer& writer = *held.writer;
  auto is_marker = held_marker_stream::is_marker;
  t.stream.release_rounds();

  rings[0].put();
  writer.wait_for(is_marker, "the marker");  // the round waits for it, and so does the pump
  writer.hold_when(nullptr);
  writer.release_unsignalled(is_marker);
  std::size_t submitted = writer.submitted().size();
  rings[1].wake();  // an empty ring: its drain polls the stream, and writes nothing
  ASSERT_TRUE(eventually([&] { return writer.reaped() == submitted; }));

  auto finished = std::async(std::launch::async, [&] { t.finish(); });
  if (finished.wait_for(60s) != std::future_status::ready) {
    ADD_FAILURE() << "the streaming thread never ended: its pump still waits for a completion";
    std::fflush(stdout);
    std::_Exit(1);  // the thread cannot be joined; the test cannot clean up
  }
  finished.get();
  EXPECT_EQ(t.stream.durable_offset(), sample_size + finished_round_size);
}

// ---- a hung-up ring -----------------------------------------------------------------------------

// A per-task event whose task exited stays readable (POLLHUP): its ring is drained on that
// readiness until a wakeup finds it empty, and from then on only by rounds and the final drain;
// the other rings go on.
TEST(StreamerHangUp, DrainsWhatTheRingHeldThenLeavesItToTheFinalDrain) {
  test::temp_file file;
  fake_rings rings(2);
  streaming_thread t(config_with(false, no_rounds));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  rings[0].put();
  rings[1].put();
  rings[0].wake();
  rings[1].wake();
  ASSERT_TRUE(t.durable_reaches(2 * sample_size));

  std::uint64_t held = rings[0].put();
  rings[0].hang_up();
  ASSERT_TRUE(t.durable_reaches(3 * sample_size)) << "what the ring held when it hung up";
  // Ring 0's wakeups: the first, the hang-up, and the one that finds the ring empty and hung up.
  // A drain of ring 1 after that one shows the streaming thread is done with it.
  ASSERT_TRUE(eventually([&] { return rings[0].wakeups_taken() == 3; }));
  rings[1].put();
  rings[1].wake();
  ASSERT_TRUE(t.durable_reaches(4 * sample_size));

  // Nothing wakes ring 0 any more; ring 1 still drains on its wakeups (twice, so that the
  // streaming thread has come back to ring 0's fd, were it still waiting on it).
  std::uint64_t late = rings[0].put();
  for (int i = 0; i < 2; ++i) {
    rings[1].put();
    rings[1].wake();
    ASSERT_TRUE(t.durable_reaches((5 + i) * sample_size));
  }
  EXPECT_EQ(t.stream.durable_offset(), 6 * sample_size);
  auto records = read_records(file, t.stream.durable_offset());
  EXPECT_LT(position_of(records, held), records.size());
  EXPECT_EQ(position_of(records, late), records.size()) << "a hung-up ring drained by a wakeup";
  EXPECT_EQ(rings[0].wakeups_taken(), 3u) << "the hung-up ring's fd was waited on again";

  t.finish();
  records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records.back().seq, late);  // from the final drain
}

// A ring that hangs up holding less than --mmap-flush is not drained by that wakeup, and it is
// not waited on again either: a hung-up fd is readable at once every time (it would spin).
TEST(StreamerHangUp, RingHoldingLessThanMmapFlushIsNotWaitedOnAgain) {
  constexpr std::uint64_t mmap_flush = 4096;
  test::temp_file file;
  fake_rings rings(2);
  streaming_thread t(config_with(false, no_rounds, mmap_flush));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  std::uint64_t small = rings[0].put();
  rings[0].hang_up();
  ASSERT_TRUE(eventually([&] { return rings[0].wakeups_taken() >= 1; }));
  for (int i = 1; i <= 2; ++i) {  // two drains of ring 1: the thread went round more than once
    rings[1].put_bytes(mmap_flush);
    rings[1].wake();
    ASSERT_TRUE(t.durable_reaches(i * mmap_flush));
  }
  EXPECT_EQ(t.stream.durable_offset(), 2 * mmap_flush);
  EXPECT_EQ(rings[0].wakeups_taken(), 1u) << "the hung-up ring's fd was waited on again";

  t.finish();
  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  EXPECT_EQ(records.back().seq, small);  // from the final drain
}

// ---- the final drain ----------------------------------------------------------------------------

// Records the kernel wrote after the last wakeup, in woken rings and in a ring never woken, are
// on the file once stop() and the thread's join() returned.
TEST(StreamerFinalDrain, TakesWhatNoWakeupAnnounced) {
  test::temp_file file;
  fake_rings rings(3);
  streaming_thread t(config_with(false, no_rounds));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  for (std::size_t i = 0; i < 2; ++i) {
    rings[i].put();
    rings[i].put(48);
    rings[i].wake();
  }
  ASSERT_TRUE(t.durable_reaches(2 * (sample_size + 48)));
  for (std::size_t i = 0; i < 3; ++i)
    for (int n = 0; n < 3; ++n) rings[i].put();
  EXPECT_EQ(t.stream.durable_offset(), 2 * (sample_size + 48));
  t.finish();

  std::uint64_t total = bytes_of(rings.published);
  EXPECT_EQ(t.stream.durable_offset(), total);
  EXPECT_EQ(t.stream.durable_samples(), rings.published.size());
  expect_holds_exactly(read_records(file, total), rings.published);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(rings[i].consumed(), i < 2 ? 176u : 96u);
  stream_stats stats = t.stream.stats();
  EXPECT_EQ(stats.samples, rings.published.size());
  EXPECT_EQ(stats.bytes_in, total);
  EXPECT_EQ(stats.bytes_out, total);
  EXPECT_EQ(stats.first_sample_time, 0u);  // the TIME fields: the records' numbers
  EXPECT_EQ(stats.last_sample_time, rings.published.size() - 1);
  auto by_cpu = t.stream.stats_by_cpu();
  ASSERT_EQ(by_cpu.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(by_cpu[i].first, static_cast<int>(i));
    EXPECT_EQ(by_cpu[i].second.samples, i < 2 ? 5u : 3u);
  }
}

// ---- --off-cpu ----------------------------------------------------------------------------------

namespace off_cpu {

// The switch sampler's SAMPLEs (IDENTIFIER, TID, TIME, CALLCHAIN) and SWITCH records whose
// sample_id trailer is TID, TIME, IDENTIFIER. The off-CPU samples come out as the test's own
// samples are laid out (IP, TID, TIME in 32 bytes): their IP, the block's leaf frame, is what
// the test's parser reads as the ring, and their TIME as the number.
constexpr std::uint64_t sampler_id = 77;

off_cpu_layout layout() {
  off_cpu_layout layout;
  layout.sampler_sample_type =
      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
  layout.sampler_ids = {sampler_id};
  layout.output_sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  layout.output_id = 78;
  layout.trailer_time_from_end = 16;
  layout.threshold_ns = 1;  // every block is a sample of its own
  return layout;
}

void put_u64(std::vector<std::byte>& out, std::uint64_t value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

std::vector<std::byte> with_header(std::uint32_t type, std::uint16_t misc,
                                   const std::vector<std::byte>& body) {
  std::vector<std::byte> record;
  perf_event_header header{type, misc, static_cast<std::uint16_t>(sizeof header + body.size())};
  const auto* bytes = reinterpret_cast<const std::byte*>(&header);
  record.insert(record.end(), bytes, bytes + sizeof header);
  record.insert(record.end(), body.begin(), body.end());
  return record;
}

std::uint64_t pid_tid(std::uint32_t tid) {
  return tid | std::uint64_t{tid} << 32;  // a single-threaded process: pid == tid
}

// What the sampler records as `tid` leaves the CPU: its user stack, leaf first.
std::vector<std::byte> sampler_sample(std::uint32_t tid, std::uint64_t time, std::uint64_t leaf) {
  std::vector<std::byte> body;
  for (std::uint64_t value : {sampler_id, pid_tid(tid), time, std::uint64_t{3},
                              std::uint64_t{PERF_CONTEXT_USER}, leaf, std::uint64_t{0x401000}})
    put_u64(body, value);
  return with_header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body);
}

std::vector<std::byte> context_switch(std::uint32_t tid, std::uint64_t time, bool out) {
  std::vector<std::byte> body;
  for (std::uint64_t value : {pid_tid(tid), time, sampler_id}) put_u64(body, value);
  return with_header(PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, body);
}

// Returns once the streaming thread ran what was queued on it before this call and what that
// queued in turn (a handler posted from a handler runs after everything queued before it).
void let_catch_up(async::executor_thread& thread) {
  auto caught_up = std::make_shared<std::promise<void>>();
  std::future<void> done = caught_up->get_future();
  asio::any_io_executor executor = thread.executor();
  async::post(executor, [executor, caught_up] {
    async::post(executor, [caught_up] { caught_up->set_value(); });
  });
  ASSERT_EQ(done.wait_for(120s), std::future_status::ready) << "the streaming thread is stuck";
}

}  // namespace off_cpu

// A round writes the off-CPU samples of the blocks its switches ended before its marker. The
// stop may come while that write is in flight: the end then writes the blocks still open and
// closes the stream, and the round must write nothing after it (its marker, started after the
// close, was reaped by nobody: arec --off-cpu hung at exit in about one run in twenty).
TEST(StreamerOffCpu, AStopWhileARoundWritesItsBlocksEndsTheStreamWithNothingAfterTheEnd) {
  using namespace off_cpu;
  constexpr std::uint64_t ended_leaf = 0xe0d, open_leaf = 0x09e7;
  off_cpu_recorder recorder(layout(), 1);
  test::temp_file file;
  fake_rings rings(1);
  streamer_config config = config_with(true, 1ms);
  config.off_cpu = &recorder;
  streaming_thread t(config);
  rings.add_to(t.stream);
  auto owned =
      std::make_unique<test_writer>(file.fd(), file.path(), test_writer::completions::on_eventfd);
  test_writer& writer = *owned;
  auto ended_block = [&](const submitted_write& w) { return w.holds_ring(ended_leaf); };
  auto open_block = [&](const submitted_write& w) { return w.holds_ring(open_leaf); };
  writer.hold_when(ended_block);
  t.stream.start(std::move(owned));
  t.stream.release_rounds();

  // Task 11 blocks from 100 to 200; task 12 from 300 until the end; a switch at 1000 is the
  // newest time seen. A round drains them, the next one ends task 11's block.
  for (const auto& record : {sampler_sample(11, 100, ended_leaf), context_switch(11, 100, true),
                             context_switch(11, 200, false), sampler_sample(12, 300, open_leaf),
                             context_switch(12, 300, true), context_switch(13, 1000, false)})
    rings[0].put_record(record);
  writer.wait_for(ended_block, "the round's write of the ended block");

  // The stop comes while it is in flight: the end writes task 12's open block and closes the
  // stream once that write is reaped.
  t.stream.stop();
  std::size_t end_write = writer.wait_for(open_block, "the end's write of the open block");
  ASSERT_TRUE(eventually([&] { return writer.reaped() == writer.submitted().size() - 1; }))
      << "the end's write was never reaped";
  let_catch_up(t.thread);
  writer.release(ended_block);
  // Before the fix the thread never ended: a failure, not a hang of the test.
  auto finished = std::async(std::launch::async, [&] { t.finish(); });
  if (finished.wait_for(120s) != std::future_status::ready) {
    t.thread.context().stop();  // lets the join above return
    finished.wait();
    FAIL() << "the streaming thread never ended: a write started after the close, never reaped";
  }
  finished.get();

  std::vector<submitted_write> submitted = writer.submitted();
  EXPECT_EQ(submitted.size(), end_write + 1) << "a write started after the stream was closed";
  EXPECT_EQ(writer.reaped(), submitted.size());
  std::vector<file_record> records = read_records(file, t.stream.durable_offset());
  auto blocks_of = [&](std::uint64_t leaf) {
    return std::count_if(records.begin(), records.end(),
                         [&](const file_record& r) { return r.ring == leaf; });
  };
  EXPECT_EQ(blocks_of(ended_leaf), 1);
  EXPECT_EQ(blocks_of(open_leaf), 1);
  EXPECT_EQ(recorder.counted().samples, 2u);
  EXPECT_EQ(recorder.counted().blocked_ns, 100u + 700u);
}

// ---- --mmap-flush -------------------------------------------------------------------------------

// A wakeup drains a ring only once it holds mmap_flush bytes; the final drain takes the rest.
TEST(StreamerMmapFlush, WakeupLeavesLessThanMmapFlushToTheFinalDrain) {
  constexpr std::uint64_t mmap_flush = 4096;
  test::temp_file file;
  fake_rings rings(2);
  streaming_thread t(config_with(false, no_rounds, mmap_flush));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  std::uint64_t small = rings[0].put();
  rings[0].put();
  rings[0].wake();
  // The wakeup was taken; a drain of ring 1 after it shows the streaming thread is done with it.
  ASSERT_TRUE(eventually([&] { return rings[0].wakeups_taken() == 1; }));
  rings[1].put_bytes(mmap_flush);
  rings[1].wake();
  ASSERT_TRUE(t.durable_reaches(mmap_flush));
  EXPECT_EQ(t.stream.durable_offset(), mmap_flush);
  auto records = read_records(file, t.stream.durable_offset());
  EXPECT_EQ(position_of(records, small), records.size()) << "drained below mmap_flush";
  EXPECT_EQ(rings[0].wakeups_taken(), 1u);

  t.finish();
  records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  EXPECT_EQ(t.stream.durable_offset(), mmap_flush + 2 * sample_size);
  EXPECT_EQ(records[records.size() - 2].seq, small);
}

// A round takes what a ring holds, however little: the round's marker must cover it.
TEST(StreamerMmapFlush, RoundTakesLessThanMmapFlush) {
  test::temp_file file;
  fake_rings rings(1);
  streaming_thread t(config_with(false, 1ms, 4096));
  rings.add_to(t.stream);
  t.stream.start(file_writer(file));

  rings[0].put();
  rings[0].put();
  ASSERT_TRUE(t.durable_reaches(2 * sample_size));
  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  t.finish();
  EXPECT_EQ(t.stream.durable_offset(), 2 * sample_size);
}

// ---- a failed write -----------------------------------------------------------------------------

// After a write found the disk full: on_failure runs, the streamer stops by itself (join()
// without stop(); the guard keeps a hang a failure) and join() rethrows the writer's error.
void expect_stops_with_full_disk(streaming_thread& t, std::future<void> on_failure,
                                 const std::string& path) {
  ASSERT_EQ(on_failure.wait_for(120s), std::future_status::ready) << "on_failure never ran";
  auto joined = std::async(std::launch::async, [&] { t.thread.join(); });
  if (joined.wait_for(120s) != std::future_status::ready) {
    ADD_FAILURE() << "the streaming thread did not end after the failure";
    t.stream.stop();
  }
  try {
    joined.get();
    ADD_FAILURE() << "join() did not report the write error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code().value(), ENOSPC);
    EXPECT_EQ(std::string(error.what()), "write " + path + ": No space left on device");
  }
}

// A write that fails (a full disk) fails the stream: on_failure runs, the streamer stops by
// itself (no stop() call), and join() rethrows the writer's error, which is where the session
// reads it. What was written before stays; nothing after it is counted. Both ways completions
// come: the plain backend's (synchronous) and io_uring's (an eventfd).
class StreamerWriteFailure : public testing::TestWithParam<test_writer::completions> {};

TEST_P(StreamerWriteFailure, CallsOnFailureStopsAndJoinReportsTheError) {
  constexpr std::uint64_t room = 3 * sample_size;
  test::temp_file file;
  fake_rings rings(2);
  std::atomic<int> failures{0};
  std::promise<void> failed;
  streaming_thread t(config_with(false, no_rounds), [&] {
    if (failures.fetch_add(1) == 0) failed.set_value();
  });
  rings.add_to(t.stream);
  t.stream.start(std::make_unique<test_writer>(file.fd(), file.path(), GetParam(), room));

  for (int i = 0; i < 3; ++i) rings[0].put();
  rings[0].wake();
  ASSERT_TRUE(t.durable_reaches(room));
  rings[1].put();  // never drained: the stream fails before anyone asks
  rings[0].put();
  rings[0].wake();  // this drain does not fit

  expect_stops_with_full_disk(t, failed.get_future(), file.path());
  EXPECT_EQ(failures.load(), 1);

  EXPECT_EQ(t.stream.durable_offset(), room);
  auto records = read_records(file, room);
  ASSERT_EQ(records.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(records[i].seq, rings.published[i].seq);
  EXPECT_EQ(t.stream.stats().bytes_out, room);  // the failed drain is not counted
  EXPECT_EQ(t.stream.stats().samples, 3u);
}

INSTANTIATE_TEST_SUITE_P(, StreamerWriteFailure,
                         testing::Values(test_writer::completions::synchronous,
                                         test_writer::completions::on_eventfd),
                         [](const auto& info) {
                           return info.param == test_writer::completions::synchronous
                                      ? std::string("Synchronous")
                                      : std::string("OnEventfd");
                         });

// ---- staged drains: copied out, written several to a request, reaped at a later wake-up -------

streamer_config staged_config(std::chrono::milliseconds round_interval, std::size_t buffers,
                              std::size_t buffer_bytes = 256 * 1024) {
  streamer_config config = config_with(false, round_interval);
  config.staging_limit = 64 * 1024;
  config.staging_buffer_bytes = buffer_bytes;
  config.staging_buffers = buffers;
  return config;
}

// A staged drain hands its ring space back before it is written; its buffer is written when
// the next drain does not fit, and taken again only once that write completed: meanwhile the
// next drain is written from the ring and waited for, and hands the ring back only then.
TEST(StreamerStaging, RingSpaceComesBackAtOnceAndTheBufferOnlyOnceItsWriteCompleted) {
  test::temp_file file;
  fake_rings rings(1);
  streaming_thread t(staged_config(no_rounds, 1, sample_size));
  rings.add_to(t.stream);
  auto owned =
      std::make_unique<test_writer>(file.fd(), file.path(), test_writer::completions::on_eventfd);
  test_writer& writer = *owned;
  writer.hold_when([](const submitted_write&) { return true; });
  t.stream.start(std::move(owned));

  std::uint64_t first = rings[0].put();
  rings[0].wake();
  ASSERT_TRUE(eventually([&] { return rings[0].consumed() == sample_size; }))
      << "a staged drain's ring space waited for its write";
  EXPECT_TRUE(writer.submitted().empty()) << "a buffer with room was written";

  std::uint64_t second = rings[0].put();
  rings[0].wake();
  writer.wait_for([&](const submitted_write& w) { return w.holds(first); }, "first drain");
  writer.wait_for([&](const submitted_write& w) { return w.holds(second); }, "second drain");
  EXPECT_EQ(rings[0].consumed(), sample_size) << "the busy buffer was taken again";

  writer.release_all();
  ASSERT_TRUE(eventually([&] { return rings[0].consumed() == 2 * sample_size; }));
  rings[0].put();
  rings[0].wake();
  EXPECT_TRUE(eventually([&] { return rings[0].consumed() == 3 * sample_size; }))
      << "the buffer did not come back after its write completed";

  writer.hold_when(nullptr);
  writer.release_all();
  t.finish();
  expect_holds_exactly(read_records(file, t.stream.durable_offset()), rings.published);
  EXPECT_EQ(t.stream.stats().samples, 3u);
  EXPECT_EQ(t.stream.stats().bytes_out, 3 * sample_size);
}

// Small drains share their writes (a buffer of 4 drains: 40 drains, 9 writes before the end,
// the 10th at the end) and those writes complete with the completion eventfd never signalled:
// each drain reaps what finished, so the buffers keep coming back.
TEST(StreamerStaging, SmallDrainsShareWritesThatWakeNobody) {
  constexpr std::uint64_t drains = 40;
  test::temp_file file;
  fake_rings rings(1);
  streaming_thread t(staged_config(no_rounds, 2, 4 * sample_size));
  rings.add_to(t.stream);
  auto owned =
      std::make_unique<test_writer>(file.fd(), file.path(), test_writer::completions::on_eventfd);
  test_writer& writer = *owned;
  t.stream.start(std::move(owned));

  for (std::uint64_t i = 1; i <= drains; ++i) {
    rings[0].put();
    rings[0].wake();
    ASSERT_TRUE(eventually([&] { return rings[0].consumed() == i * sample_size; })) << i;
  }
  EXPECT_EQ(writer.signals(), 0u) << "completions of staged writes woke the streaming thread";
  std::vector<submitted_write> writes = writer.submitted();
  ASSERT_EQ(writes.size(), drains / 4 - 1);
  for (const submitted_write& write : writes) EXPECT_EQ(write.records.size(), 4u);

  t.finish();
  EXPECT_EQ(writer.submitted().size(), drains / 4) << "the last buffer is written at the end";
  expect_holds_exactly(read_records(file, t.stream.durable_offset()), rings.published);
  EXPECT_EQ(t.stream.stats().drains, drains);
  EXPECT_EQ(t.stream.stats().samples, drains);
  EXPECT_EQ(t.stream.stats().bytes_out, drains * sample_size);
}

// A round writes what is staged before its FINISHED_ROUND: a marker never precedes a record
// drained before it, which perf's ordering of events relies on.
TEST(StreamerStaging, ARoundWritesItsStagedDrainsBeforeItsMarker) {
  test::temp_file file;
  fake_rings rings(2);
  streamer_config config = staged_config(1ms, 4);
  config.write_rounds = true;
  streaming_thread t(config);
  rings.add_to(t.stream);
  std::uint64_t a = rings[0].put();  // before the start: one round drains both
  std::uint64_t b = rings[1].put();
  t.stream.start(file_writer(file));
  t.stream.release_rounds();

  ASSERT_TRUE(t.durable_reaches(2 * sample_size + finished_round_size));
  std::uint64_t c = rings[0].put();
  ASSERT_TRUE(t.durable_reaches(3 * sample_size + 2 * finished_round_size));
  t.finish();

  auto records = read_records(file, t.stream.durable_offset());
  expect_holds_exactly(records, rings.published);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_TRUE(!records[0].is_finished_round() && !records[1].is_finished_round());
  EXPECT_TRUE(records[0].seq == a || records[0].seq == b);
  EXPECT_TRUE(records[2].is_finished_round());
  EXPECT_EQ(records[3].seq, c);
  EXPECT_TRUE(records[4].is_finished_round());
}

// A staged write that fails is found by the next round's reap: the stream fails with the
// writer's "write PATH: <strerror>", on_failure runs, and nothing after it is counted.
TEST(StreamerStaging, AFailedStagedWriteStillFailsTheStreamWithTheWritersError) {
  constexpr std::uint64_t room = 3 * sample_size;
  test::temp_file file;
  fake_rings rings(1);
  std::atomic<int> failures{0};
  std::promise<void> failed;
  streaming_thread t(staged_config(1ms, 4), [&] {
    if (failures.fetch_add(1) == 0) failed.set_value();
  });
  rings.add_to(t.stream);
  t.stream.start(std::make_unique<test_writer>(file.fd(), file.path(),
                                               test_writer::completions::on_eventfd, room));

  for (int i = 0; i < 3; ++i) rings[0].put();
  ASSERT_TRUE(t.durable_reaches(room));
  rings[0].put();  // drained by the next round; its write does not fit

  expect_stops_with_full_disk(t, failed.get_future(), file.path());
  EXPECT_EQ(failures.load(), 1);
  EXPECT_EQ(t.stream.durable_offset(), room);
  EXPECT_EQ(t.stream.stats().bytes_out, room);
  EXPECT_EQ(t.stream.stats().samples, 3u);
}

// ---- the ring a test gives the streamer ---------------------------------------------------------

TEST(StreamerRing, AdoptTakesOnlyAControlPageAndAPowerOfTwoDataArea) {
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto anonymous = [](std::size_t length) {
    return io::mmap_region::map(-1, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                "fake ring");
  };
  EXPECT_THROW(ring_buffer::adopt(anonymous(4 * page)), std::invalid_argument);
  EXPECT_THROW(ring_buffer::adopt(anonymous(page)), std::invalid_argument);
  ring_buffer ring = ring_buffer::adopt(anonymous(9 * page));
  EXPECT_EQ(ring.reader().capacity(), 8 * page);
  EXPECT_EQ(ring.mapping_size(), 9 * page);
}

// ---- --overwrite --------------------------------------------------------------------------------

namespace overwrite {

// A ring the test writes backward, as the kernel writes a write_backward event's ring: the head
// moves down and the record goes at the new head. Its pipe only has to be a valid fd: a ring in
// overwrite mode is never waited on.
class backward_fake_ring {
 public:
  explicit backward_fake_ring(std::uint64_t id) : id_(id) {
    std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    mapping_ = io::mmap_region::map(-1, 2 * page, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, "fake backward ring");
    control_ = reinterpret_cast<perf_event_mmap_page*>(mapping_.data());
    data_ = {mapping_.data() + page, page};
    int fds[2];
    base::check_syscall(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), "pipe2");
    wake_read_.reset(fds[0]);
    wake_write_.reset(fds[1]);
  }
  void add_to(streamer& stream, int cpu) {
    stream.add_ring(cpu, ring_buffer::adopt(std::move(mapping_)),
                    ring_wakeup{wake_read_.get(), &take_wakeups});
  }
  void put(std::uint64_t seq) {
    std::vector<std::byte> bytes = encode_sample(id_, seq, sample_size);
    head_ -= bytes.size();
    for (std::size_t i = 0; i < bytes.size(); ++i)
      data_[(head_ + i) & (data_.size() - 1)] = bytes[i];
    std::atomic_ref<__u64>(control_->data_head).store(head_, std::memory_order_release);
  }
  std::uint64_t tail() const {
    return std::atomic_ref<__u64>(control_->data_tail).load(std::memory_order_acquire);
  }
  std::size_t capacity() const { return data_.size(); }

 private:
  std::uint64_t id_;
  io::mmap_region mapping_;
  perf_event_mmap_page* control_ = nullptr;
  std::span<std::byte> data_;
  std::uint64_t head_ = 0;
  io::unique_fd wake_read_;
  io::unique_fd wake_write_;
};

streamer_config overwrite_config() {
  streamer_config config = config_with(true, no_rounds);
  config.overwrite = true;
  return config;
}

// Puts `count` records into the rings in turn, numbered from `seq` on; returns the next number.
std::uint64_t put_alternately(std::vector<std::unique_ptr<backward_fake_ring>>& rings,
                              std::uint64_t seq, std::size_t count) {
  for (std::size_t n = 0; n < count; ++n) rings[n % rings.size()]->put(seq++);
  return seq;
}

std::vector<std::uint64_t> sequence_of(const std::vector<file_record>& records) {
  std::vector<std::uint64_t> seqs;
  for (const file_record& record : records)
    if (!record.is_finished_round()) seqs.push_back(record.seq);
  return seqs;
}

std::vector<std::uint64_t> numbers(std::uint64_t from, std::uint64_t to) {
  std::vector<std::uint64_t> seqs;
  for (std::uint64_t seq = from; seq < to; ++seq) seqs.push_back(seq);
  return seqs;
}

}  // namespace overwrite

// Nothing is written while recording; the stop writes the newest whole records of every ring,
// a ring's worth each, in time order over all rings, and never hands a ring back to the kernel.
TEST(StreamerOverwrite, StopWritesEveryRingsNewestRecordsInTimeOrder) {
  using namespace overwrite;
  test::temp_file file;
  std::vector<std::unique_ptr<backward_fake_ring>> rings;
  for (std::uint64_t i = 0; i < 2; ++i) rings.push_back(std::make_unique<backward_fake_ring>(i));
  streaming_thread t(overwrite_config());
  for (std::size_t i = 0; i < rings.size(); ++i) rings[i]->add_to(t.stream, static_cast<int>(i));
  t.stream.start(file_writer(file));
  std::size_t per_ring = rings[0]->capacity() / sample_size;
  // Three rings' worth each: the oldest two thirds are overwritten.
  std::uint64_t end = put_alternately(rings, 0, 6 * per_ring);
  EXPECT_EQ(t.stream.durable_offset(), 0u);
  t.finish();

  std::uint64_t kept = 2 * per_ring;
  ASSERT_EQ(t.stream.durable_offset(), kept * sample_size);
  EXPECT_EQ(sequence_of(read_records(file, kept * sample_size)), numbers(end - kept, end));
  EXPECT_EQ(t.stream.stats().samples, kept);
  for (const auto& ring : rings) EXPECT_EQ(ring->tail(), 0u);
}

// A switch writes the rings' records into the output it ends; the next output holds only what
// they wrote after it.
TEST(StreamerOverwrite, SwitchWritesTheSnapshotIntoTheOldOutputAndTheNextOnlyWhatCameAfter) {
  using namespace overwrite;
  test::temp_file first, second;
  std::vector<std::unique_ptr<backward_fake_ring>> rings;
  for (std::uint64_t i = 0; i < 2; ++i) rings.push_back(std::make_unique<backward_fake_ring>(i));
  streaming_thread t(overwrite_config());
  for (std::size_t i = 0; i < rings.size(); ++i) rings[i]->add_to(t.stream, static_cast<int>(i));
  t.stream.start(file_writer(first));
  std::uint64_t middle = put_alternately(rings, 0, 20);
  output_cut cut = t.stream.switch_output(file_writer(second)).get();
  std::uint64_t end = put_alternately(rings, middle, 10);
  t.finish();

  EXPECT_EQ(cut.data_end, middle * sample_size);
  EXPECT_EQ(cut.stats.samples, middle);
  EXPECT_EQ(sequence_of(read_records(first, cut.data_end)), numbers(0, middle));
  EXPECT_EQ(sequence_of(read_records(second, t.stream.durable_offset())), numbers(middle, end));
}

// take_snapshot copies at once; what the rings write afterwards waits for the next snapshot,
// while records written to the output meanwhile (the tasks described again) precede the copy.
TEST(StreamerOverwrite, ATakenSnapshotIsWrittenAtTheNextSwitch) {
  using namespace overwrite;
  test::temp_file first, second;
  std::vector<std::unique_ptr<backward_fake_ring>> rings;
  rings.push_back(std::make_unique<backward_fake_ring>(0));
  streaming_thread t(overwrite_config());
  rings[0]->add_to(t.stream, 0);
  t.stream.start(file_writer(first));
  std::uint64_t taken = put_alternately(rings, 0, 5);
  t.stream.take_snapshot().get();
  std::uint64_t later = put_alternately(rings, taken, 3);
  std::vector<std::byte> described = encode_sample(9, 1000, sample_size);
  t.stream.write_records(described).get();
  output_cut cut = t.stream.switch_output(file_writer(second)).get();
  t.finish();

  std::vector<std::uint64_t> expected{1000};
  for (std::uint64_t seq : numbers(0, taken)) expected.push_back(seq);
  EXPECT_EQ(sequence_of(read_records(first, cut.data_end)), expected);
  EXPECT_EQ(sequence_of(read_records(second, t.stream.durable_offset())), numbers(taken, later));
}

// --overwrite on a full disk: the stop's snapshot is written in slices of whole records, so the
// file keeps every slice that fit (the durable offset ends on a record boundary), the counts
// are those of the records on it, and the samples that did not fit are said to be lost.
TEST(StreamerOverwrite, SnapshotLargerThanTheDiskKeepsTheSlicesThatFit) {
  using namespace overwrite;
  test::temp_file file;
  std::vector<std::unique_ptr<backward_fake_ring>> rings;
  for (std::uint64_t i = 0; i < 2; ++i) rings.push_back(std::make_unique<backward_fake_ring>(i));
  streamer_config config = overwrite_config();
  config.snapshot_slice_bytes = 4 * sample_size;
  constexpr std::uint64_t room = 10 * sample_size;  // two slices, and half a third
  streaming_thread t(config);
  for (std::size_t i = 0; i < rings.size(); ++i) rings[i]->add_to(t.stream, static_cast<int>(i));
  t.stream.start(std::make_unique<test_writer>(file.fd(), file.path(),
                                               test_writer::completions::synchronous, room));
  std::uint64_t end = put_alternately(rings, 0, 20);
  t.stream.stop();
  EXPECT_THROW(t.thread.join(), std::system_error);

  ASSERT_EQ(t.stream.durable_offset(), 8 * sample_size);
  EXPECT_EQ(sequence_of(read_records(file, 8 * sample_size)), numbers(0, 8));
  EXPECT_EQ(t.stream.stats().samples, 8u);
  EXPECT_EQ(t.stream.stats().bytes_out, 8 * sample_size);
  EXPECT_EQ(t.stream.last_output().stats.samples, 8u) << "the file's own SAMPLE_TIME";
  EXPECT_EQ(t.stream.unwritten_snapshot_samples(), end - 8);
}

}  // namespace
}  // namespace arec::record
