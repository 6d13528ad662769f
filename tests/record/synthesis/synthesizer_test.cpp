#include "record/synthesis/synthesizer.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collecting_sink.hpp"
#include "support/allocation_counter.hpp"
#include "support/temp_dir.hpp"

using namespace arec::record;
using namespace arec::test::synthesized;

namespace {

// Counts and checks records without allocating.
class counting_sink : public arec::io::record_sink {
 public:
  void write(std::span<const std::byte> bytes) override {
    std::uint16_t size;
    std::memcpy(&size, bytes.data() + 6, sizeof size);
    if (size != bytes.size() || size % 8 != 0) ++malformed;
    ++records;
  }
  std::size_t records = 0;
  std::size_t malformed = 0;
};

// A child running a copy of /bin/sleep from a path with a space and a newline in it.
class oddly_named_child {
 public:
  oddly_named_child() : path_(dir_.file("sl eep\nx")) {
    std::filesystem::copy_file("/bin/sleep", path_);  // with its mode: executable
    pid_ = ::fork();
    if (pid_ == 0) {
      const char* argv[] = {"sleeper", "30", nullptr};
      ::execv(path_.c_str(), const_cast<char* const*>(argv));
      ::_exit(127);
    }
    // Wait until the exec has mapped the new file: the comm changes before the file is mapped,
    // so wait for its name in the maps (where the kernel writes the newline as \012).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (maps().find("sl eep\\012x") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  ~oddly_named_child() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string maps() const {
    std::ifstream in{"/proc/" + std::to_string(pid_) + "/maps"};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string comm() const {
    std::ifstream in{"/proc/" + std::to_string(pid_) + "/comm"};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  pid_t pid() const { return pid_; }
  const std::string& path() const { return path_; }

 private:
  arec::test::temp_dir dir_;  // declared before path_, which is made from it
  std::string path_;
  pid_t pid_ = -1;
};

std::vector<const record*> of_type(const std::vector<record>& records, std::uint32_t type,
                                   std::uint32_t pid) {
  std::vector<const record*> found;
  for (const auto& r : records)
    if (r.type() == type && r.u32(8) == pid) found.push_back(&r);
  return found;
}

}  // namespace

TEST(Synthesizer, CommLayoutMatchesHandComputedBytes) {
  arec::perf_data::record_buffer buffer;
  auto bytes = arec::perf_data::encode_comm(buffer, 0x1234, 0x1235, "a b\nc", 32);
  const unsigned char expected[] = {
      0x03, 0,    0,   0,    0x00, 0x00, 56, 0,  // type COMM, misc 0, size 56
      0x34, 0x12, 0,   0,    0x35, 0x12, 0,  0,  // pid, tid
      'a',  ' ',  'b', '\n', 'c',  0,    0,  0,  // comm, NUL-padded to 8
      0,    0,    0,   0,    0,    0,    0,  0,
      0,    0,    0,   0,    0,    0,    0,  0,  // zero sample_id trailer (32)
      0,    0,    0,   0,    0,    0,    0,  0,
      0,    0,    0,   0,    0,    0,    0,  0,
  };
  ASSERT_EQ(bytes.size(), sizeof expected);
  EXPECT_EQ(std::memcmp(bytes.data(), expected, sizeof expected), 0);
}

TEST(Synthesizer, CommIsCutTo15BytesPlusNul) {
  arec::perf_data::record_buffer buffer;
  auto bytes = arec::perf_data::encode_comm(buffer, 1, 1, "0123456789abcdefghij", 0);
  ASSERT_EQ(bytes.size(), 8u + 8u + 16u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 16)), "0123456789abcde");
}

TEST(Synthesizer, Mmap2LayoutMatchesHandComputedBytes) {
  arec::perf_data::record_buffer buffer;
  arec::perf_data::mapping_record fields;
  fields.misc = PERF_RECORD_MISC_USER;
  fields.pid = 100;
  fields.tid = 101;
  fields.start = 0x400000;
  fields.len = 0x1000;
  fields.pgoff = 0x2000;
  fields.major = 0xfe;
  fields.minor = 1;
  fields.inode = 0x1122334455;
  fields.prot = PROT_READ | PROT_EXEC;
  fields.flags = MAP_PRIVATE;
  fields.name = "/x y";
  auto bytes = arec::perf_data::encode_mmap2(buffer, fields, 32);
  const unsigned char expected[] = {
      0x0a, 0,    0,    0,    0x02, 0x00, 112, 0,  // type MMAP2, misc USER, size 112
      100,  0,    0,    0,    101,  0,    0,   0,  // pid, tid
      0,    0,    0x40, 0,    0,    0,    0,   0,  // start
      0,    0x10, 0,    0,    0,    0,    0,   0,  // len
      0,    0x20, 0,    0,    0,    0,    0,   0,  // pgoff
      0xfe, 0,    0,    0,    1,    0,    0,   0,  // maj, min
      0x55, 0x44, 0x33, 0x22, 0x11, 0,    0,   0,  // ino
      0,    0,    0,    0,    0,    0,    0,   0,  // ino_generation
      5,    0,    0,    0,    2,    0,    0,   0,  // prot r-x, flags MAP_PRIVATE
      '/',  'x',  ' ',  'y',  0,    0,    0,   0,  // filename, NUL-padded to 8
      0,    0,    0,    0,    0,    0,    0,   0,
      0,    0,    0,    0,    0,    0,    0,   0,  // zero sample_id trailer (32)
      0,    0,    0,    0,    0,    0,    0,   0,
      0,    0,    0,    0,    0,    0,    0,   0,
  };
  ASSERT_EQ(bytes.size(), sizeof expected);
  EXPECT_EQ(std::memcmp(bytes.data(), expected, sizeof expected), 0);
}

TEST(Synthesizer, ForkCarriesForkExecAndZeroTime) {
  arec::perf_data::record_buffer buffer;
  auto bytes = arec::perf_data::encode_fork(buffer, 10, 1, 11, 1, 8);
  record r{{bytes.begin(), bytes.end()}};
  EXPECT_EQ(r.type(), static_cast<std::uint32_t>(PERF_RECORD_FORK));
  EXPECT_EQ(r.misc(), 0x2000);
  EXPECT_EQ(r.size(), 8 + 16 + 8 + 8);
  EXPECT_EQ(r.u32(8), 10u);   // pid
  EXPECT_EQ(r.u32(12), 1u);   // ppid
  EXPECT_EQ(r.u32(16), 11u);  // tid
  EXPECT_EQ(r.u32(20), 1u);   // ptid
  EXPECT_EQ(r.u64(24), 0u);   // time
}

TEST(Synthesizer, OverlongFileNameBecomesTooLong) {
  arec::perf_data::record_buffer buffer;
  const std::string too_long(PATH_MAX, 'x');
  auto bytes = arec::perf_data::encode_mmap2(buffer, {.name = too_long}, 32);
  record r{{bytes.begin(), bytes.end()}};
  EXPECT_EQ(r.text(72), "//toolong");
  EXPECT_EQ(r.size(), 72 + 16 + 32);
}

TEST(Synthesizer, RejectsATrailerThatIsNotWholeWords) {
  arec::perf_data::record_buffer buffer;
  EXPECT_THROW(arec::perf_data::encode_comm(buffer, 1, 1, "x", 12), std::invalid_argument);
  collecting_sink sink;
  EXPECT_THROW(synthesize_all_tasks(sink, {.sample_id_size = 56}), std::invalid_argument);
}

TEST(Synthesizer, SystemWideDescribesAChildWithAStrangePathIntact) {
  oddly_named_child child;
  ASSERT_EQ(child.comm(), "sl eep\nx\n") << "the child did not exec";
  collecting_sink sink;
  auto counts = synthesize_all_tasks(sink, {});
  expect_well_formed(sink.records, 32);

  auto pid = static_cast<std::uint32_t>(child.pid());
  auto forks = of_type(sink.records, PERF_RECORD_FORK, pid);
  ASSERT_EQ(forks.size(), 1u);
  EXPECT_EQ(forks[0]->misc(), 0x2000);
  EXPECT_EQ(forks[0]->u32(12), static_cast<std::uint32_t>(::getpid())) << "ppid";
  EXPECT_EQ(forks[0]->u32(16), pid) << "tid";
  EXPECT_EQ(forks[0]->u32(20), static_cast<std::uint32_t>(::getpid())) << "ptid";

  auto comms = of_type(sink.records, PERF_RECORD_COMM, pid);
  ASSERT_EQ(comms.size(), 1u);
  EXPECT_EQ(comms[0]->text(16), "sl eep\nx");
  EXPECT_EQ(comms[0]->misc(), 0);

  bool found = false;
  for (const record* r : of_type(sink.records, PERF_RECORD_MMAP2, pid)) {
    EXPECT_EQ(r->misc(), PERF_RECORD_MISC_USER);
    EXPECT_EQ(r->u32(12), pid) << "tid";
    EXPECT_TRUE(r->u32(64) & PROT_EXEC) << "only executable mappings by default";
    if (r->text(72) == child.path()) {
      found = true;
      EXPECT_EQ(r->u32(68), static_cast<std::uint32_t>(MAP_PRIVATE));
      EXPECT_NE(r->u64(48), 0u) << "inode";
    }
  }
  EXPECT_TRUE(found) << "no MMAP2 for " << child.path();

  // The counts describe exactly what was written.
  std::size_t comm_records = 0, leaders = 0, mmap2_records = 0;
  for (const auto& r : sink.records) {
    if (r.type() == PERF_RECORD_COMM) ++comm_records, leaders += r.u32(8) == r.u32(12);
    if (r.type() == PERF_RECORD_MMAP2) ++mmap2_records;
  }
  EXPECT_EQ(counts.threads, comm_records);
  EXPECT_EQ(counts.processes, leaders);
  EXPECT_EQ(counts.mmaps, mmap2_records);
  EXPECT_GE(counts.processes, 2u);
}

TEST(Synthesizer, NonLeaderThreadIsForkedByItsLeader) {
  std::promise<void> stop;
  std::promise<pid_t> started;
  std::thread worker{[&] {
    started.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    stop.get_future().wait();
  }};
  auto tid = static_cast<std::uint32_t>(started.get_future().get());
  collecting_sink sink;
  synthesize_all_tasks(sink, {});
  stop.set_value();
  worker.join();

  auto self = static_cast<std::uint32_t>(::getpid());
  std::optional<record> thread_fork, leader_fork;
  for (const record* r : of_type(sink.records, PERF_RECORD_FORK, self)) {
    if (r->u32(16) == tid) thread_fork = *r;
    if (r->u32(16) == self) leader_fork = *r;
  }
  ASSERT_TRUE(thread_fork && leader_fork);
  EXPECT_EQ(thread_fork->u32(12), self);
  EXPECT_EQ(thread_fork->u32(20), self);
  EXPECT_EQ(leader_fork->u32(12), static_cast<std::uint32_t>(::getppid()));
  // MMAP2s are written for the leader only.
  for (const record* r : of_type(sink.records, PERF_RECORD_MMAP2, self))
    EXPECT_EQ(r->u32(12), self);
}

TEST(Synthesizer, ProcessTargetsGetCommAndMmapsButNoFork) {
  oddly_named_child child;
  collecting_sink sink;
  int pids[] = {child.pid(), child.pid()};
  auto counts = synthesize_processes(sink, pids, {});
  expect_well_formed(sink.records, 32);
  EXPECT_EQ(counts.processes, 1u) << "a pid named twice is described once";
  EXPECT_EQ(counts.threads, 1u);
  ASSERT_FALSE(sink.records.empty());
  EXPECT_EQ(sink.records[0].type(), static_cast<std::uint32_t>(PERF_RECORD_COMM));
  EXPECT_EQ(sink.records[0].text(16), "sl eep\nx");
  bool found = false;
  for (const auto& r : sink.records) {
    EXPECT_NE(r.type(), static_cast<std::uint32_t>(PERF_RECORD_FORK));
    found = found || (r.type() == PERF_RECORD_MMAP2 && r.text(72) == child.path());
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(counts.mmaps, sink.records.size() - 1);
}

TEST(Synthesizer, DataMappingsCarryMmapDataWhenAsked) {
  int self[] = {::getpid()};
  collecting_sink with_data, without;
  synthesize_processes(with_data, self, {.data_mmaps = true});
  synthesize_processes(without, self, {});
  bool stack = false;
  for (const auto& r : with_data.records)
    if (r.type() == PERF_RECORD_MMAP2 && r.text(72) == "[stack]") {
      stack = true;
      EXPECT_EQ(r.misc(), 0x2002);
      EXPECT_EQ(r.u32(64), static_cast<std::uint32_t>(PROT_READ | PROT_WRITE));
    }
  EXPECT_TRUE(stack);
  for (const auto& r : without.records) {
    if (r.type() == PERF_RECORD_MMAP2) {
      EXPECT_EQ(r.misc(), PERF_RECORD_MISC_USER);
    }
  }
  EXPECT_GT(with_data.records.size(), without.records.size());
}

TEST(Synthesizer, VanishedPidIsSkipped) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  collecting_sink sink;
  int pids[] = {child};
  auto counts = synthesize_processes(sink, pids, {});
  EXPECT_EQ(counts.threads, 0u);
  EXPECT_TRUE(sink.records.empty());
}

TEST(Synthesizer, TasksExitingMidScanAreNoError) {
  std::atomic<bool> stop{false};
  std::atomic<int> spawned{0};
  std::thread churn{[&] {
    while (!stop) {
      pid_t child = ::fork();
      if (child == 0) {
        ::usleep(static_cast<useconds_t>(100 + (::getpid() % 20) * 100));
        ::_exit(0);
      }
      if (child > 0) ++spawned;
      if (child > 0 && spawned % 4 == 0) ::waitpid(-1, nullptr, 0);
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {
      }
    }
  }};
  std::size_t scans = 0;
  for (; scans < 30; ++scans) {
    counting_sink sink;
    ASSERT_NO_THROW(synthesize_all_tasks(sink, {}));
    ASSERT_EQ(sink.malformed, 0u);
  }
  stop = true;
  churn.join();
  while (::waitpid(-1, nullptr, 0) > 0) {
  }
  EXPECT_GT(spawned.load(), 10);
}

TEST(Synthesizer, ScanningAllTasksAllocatesNothing) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  // Threads and a child make the scan walk several tasks per process and a real maps file.
  oddly_named_child child;
  counting_sink sink;
  // The counter sees allocations made through any path, including the library's.
  auto probe_start = arec::test::operator_new_calls();
  auto probe = std::make_unique<std::string>(64, 'x');
  ASSERT_EQ(arec::test::operator_new_calls() - probe_start, 2u)
      << "operator new is not the counting one";
  auto before = arec::test::allocations();
  auto counts = synthesize_all_tasks(sink, {.data_mmaps = true});
  EXPECT_EQ(arec::test::allocations() - before, 0u);
  EXPECT_GT(counts.mmaps, 10u);
  EXPECT_EQ(sink.records, counts.threads * 2 + counts.mmaps);
  EXPECT_EQ(sink.malformed, 0u);
}
