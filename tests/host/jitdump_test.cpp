// jitdump: only whole records are kept and a tail still being written waits for the next look;
// a dump no runtime would write (wrong magic, a record of size 0, larger than any, a header cut
// short) stops its reading instead of steering it; the bound cuts at a record and says so; and
// the dump is the mapped file, opened through /proc/PID/map_files by the same owner rules as a
// perf map, never what its path leads to now (a FIFO, a link). /proc is a tree the test builds,
// except where the test maps a real dump itself.
#include "host/jitdump.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "io/mmap_region.hpp"
#include "support/forked.hpp"
#include "support/jitdump_bytes.hpp"
#include "support/temp_dir.hpp"

namespace arec::host {
namespace {

std::string header(bool swapped = false, std::uint32_t magic = jitdump_magic) {
  return test::jitdump_header(swapped, magic);
}
std::string code_load(const std::string& name, std::size_t code = 8, bool swapped = false) {
  return test::jitdump_code_load(name, code, swapped);
}
std::string record_of_size(std::uint32_t size) {
  return test::jitdump_record_prefix(0, size);
}

class Jitdump : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(dir_.file("proc").c_str(), 0755);
    ::mkdir(dir_.file("proc/1234").c_str(), 0755);
    ::mkdir(dir_.file("proc/1234/map_files").c_str(), 0755);
    run_as(::getuid());
  }
  void run_as(uid_t uid) const {
    std::string id = std::to_string(uid);
    std::ofstream{dir_.file("proc/1234/status")} << "Name:\tnode\nUid:\t" << id << "\t" << id
                                                 << "\t" << id << "\t" << id << "\n";
  }
  // The dump the process maps at 0x7000-0x8000, as `path` (relative to the test's dir).
  void map_as(const std::string& path) const {
    ASSERT_EQ(
        ::symlink(dir_.file(path).c_str(), dir_.file("proc/1234/map_files/7000-8000").c_str()), 0);
  }
  process_jitdump open() const {
    return open_process_jitdump({1234, 0x7000, 0x8000}, {dir_.file("proc")});
  }
  void write(const std::string& bytes, std::ios::openmode mode = std::ios::trunc) const {
    std::ofstream{dir_.file("jit-1234.dump"), std::ios::binary | std::ios::out | mode} << bytes;
    ::chmod(dir_.file("jit-1234.dump").c_str(), 0644);
  }
  // Reads what is new in the dump into kept_.
  jitdump_span read_more(std::size_t room = 1 << 20) {
    io::unique_fd fd{::open(dir_.file("jit-1234.dump").c_str(), O_RDONLY | O_CLOEXEC)};
    return read_jitdump_records(fd.get(), cursor_, kept_, room, "jit-1234.dump");
  }

  test::temp_dir dir_;
  jitdump_cursor cursor_;
  std::string kept_;
};

TEST(JitdumpName, AJitdumpIsKnownByItsMarkersName) {
  EXPECT_TRUE(is_jitdump("/work/app/jit-1234.dump"));
  EXPECT_TRUE(is_jitdump("jit-7.dump"));
  EXPECT_FALSE(is_jitdump("/tmp/jit-.dump"));
  EXPECT_FALSE(is_jitdump("/tmp/jit-12x.dump"));
  EXPECT_FALSE(is_jitdump("/tmp/perf-12.map"));
}

TEST_F(Jitdump, WholeRecordsAreKeptAndATailStillBeingWrittenWaitsForTheNextLook) {
  std::string first = header() + code_load("JS:*hot") + code_load("JS:~cold");
  std::string first_kept = header() + test::jitdump_kept(code_load("JS:*hot")) +
                           test::jitdump_kept(code_load("JS:~cold"));
  std::string third = code_load("JS:*later");
  write(first + third.substr(0, 20));
  jitdump_span span = read_more();
  EXPECT_EQ(span.whole, first.size());
  EXPECT_EQ(span.kept, first_kept.size());
  EXPECT_EQ(kept_, first_kept) << "the records, without their code";
  write(third.substr(20), std::ios::app);
  EXPECT_EQ(read_more().whole, third.size());
  EXPECT_EQ(kept_, first_kept + test::jitdump_kept(third));
  EXPECT_EQ(read_more().whole, 0u) << "nothing new";
  EXPECT_EQ(cursor_.problem, "");
}

TEST_F(Jitdump, ADumpInTheOtherByteOrderIsRead) {
  std::string dump = header(true) + code_load("JS:*hot", 8, true);
  write(dump);
  EXPECT_EQ(read_more().whole, dump.size());
  EXPECT_TRUE(cursor_.swapped);
}

TEST_F(Jitdump, AHeaderCutShortWaitsAndAWrongMagicStopsTheReading) {
  write(header().substr(0, 20));
  EXPECT_EQ(read_more().whole, 0u);
  EXPECT_EQ(cursor_.problem, "");
  write(header(false, 0x12345678) + code_load("JS:*hot"));
  EXPECT_EQ(read_more().whole, 0u);
  EXPECT_EQ(cursor_.problem, "is not a jitdump (its magic is not JiTD)");
}

TEST_F(Jitdump, ARecordOfSizeZeroOrOfAnAbsurdSizeStopsTheReadingAfterTheWholeOnes) {
  std::string good = header() + code_load("JS:*hot");
  write(good + record_of_size(0) + code_load("JS:*never"));
  EXPECT_EQ(read_more().whole, good.size());
  EXPECT_EQ(cursor_.problem, "has a record of 0 bytes at offset " + std::to_string(good.size()));
  write(good + record_of_size(0xFFFFFFF0u), std::ios::app);
  EXPECT_EQ(read_more().whole, 0u) << "a refused dump is read no further";

  jitdump_cursor fresh;
  std::string absurd = good + record_of_size(jitdump_max_record + 1);
  auto bytes = std::as_bytes(std::span(absurd.data(), absurd.size()));
  EXPECT_EQ(whole_jitdump_records(bytes, fresh, 1 << 20).whole, good.size());
  EXPECT_NE(fresh.problem, "");
}

TEST_F(Jitdump, ARecordLargerThanTheFileIsNeverReadPastItsEnd) {
  std::string good = header() + code_load("JS:*hot");
  write(good + record_of_size(4096) + "only a little");
  EXPECT_EQ(read_more().whole, good.size());
  EXPECT_EQ(cursor_.problem, "") << "it may still be written";
  EXPECT_EQ(read_more().whole, 0u);
}

TEST_F(Jitdump, TheBoundCutsAtAWholeRecordAndSaysSo) {
  std::string read = header() + code_load("JS:*a");
  std::string kept = header() + test::jitdump_kept(code_load("JS:*a"));
  write(read + code_load("JS:*b") + code_load("JS:*c"));
  jitdump_span span = read_more(kept.size() + 10);  // the bound is on what is kept
  EXPECT_EQ(span.whole, read.size());
  EXPECT_TRUE(span.cut);
  EXPECT_EQ(kept_, kept);
}

// What is kept of each record: a CODE_LOAD loses its code (in either byte order), and its
// code_size still says how much there was; every other record, and a CODE_LOAD whose sizes do
// not add up, is kept whole.
TEST_F(Jitdump, ACodeLoadIsKeptWithoutItsCodeAndEveryOtherRecordWhole) {
  std::string move = test::jitdump_code_move(0x1000, 0x2000, 8, 200);
  std::string debug_info = test::jitdump_record_prefix(2, 16 + 8) + std::string(8, 'd');
  // A CODE_LOAD whose code_size says more than its record holds after its name.
  std::string liar = code_load("JS:*liar", 8);
  liar.replace(16 + 24, 8, std::string("\xff\0\0\0\0\0\0\0", 8));
  write(header() + code_load("JS:*a", 16) + move + debug_info + liar);
  read_more();
  EXPECT_EQ(kept_, header() + test::jitdump_kept(code_load("JS:*a", 16), 16) + move + debug_info +
                       liar);
  EXPECT_EQ(cursor_.problem, "");

  jitdump_cursor swapped;
  std::string other = header(true) + code_load("JS:*hot", 8, true);
  std::string kept;
  auto bytes = std::as_bytes(std::span(other.data(), other.size()));
  jitdump_span span = whole_jitdump_records(bytes, swapped, 1 << 20);
  append_kept_records(kept, bytes.first(span.whole), 40, true);
  EXPECT_EQ(kept, header(true) + test::jitdump_kept(code_load("JS:*hot", 8, true), 8, true));
}

TEST_F(Jitdump, AHugeFileIsReadNoFurtherThanItsBound) {
  std::string read = header(), kept = header();
  for (int i = 0; i < 64; ++i) {
    std::string load = code_load("JS:*f" + std::to_string(i), 64 << 10);
    read += load;
    kept += test::jitdump_kept(load, 64 << 10);
  }
  write(read + read.substr(40));
  // A sparse gigabyte after it: never read, the bound stops first.
  ASSERT_EQ(::truncate(dir_.file("jit-1234.dump").c_str(), off_t{1} << 30), 0);
  jitdump_span span = read_more(kept.size());
  EXPECT_EQ(span.whole, read.size());
  EXPECT_EQ(span.kept, kept.size());
  EXPECT_TRUE(span.cut);
}

TEST_F(Jitdump, TheMappedDumpIsOpenedThroughItsMappingByItsOwnersRules) {
  write(header());
  map_as("jit-1234.dump");
  process_jitdump dump = open();
  ASSERT_TRUE(dump.fd) << dump.problem;
  run_as(::getuid() + 1);
  dump = open();
  EXPECT_FALSE(dump.fd);
  EXPECT_NE(dump.problem.find("is owned by uid"), std::string::npos) << dump.problem;
  run_as(::getuid());
  ::chmod(dir_.file("jit-1234.dump").c_str(), 0666);
  EXPECT_NE(open().problem.find("may be written by group or others"), std::string::npos);
}

TEST_F(Jitdump, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(dir_.file("fifo").c_str(), 0600), 0);
  map_as("fifo");
  process_jitdump dump = open();
  EXPECT_FALSE(dump.fd);
  EXPECT_EQ(dump.problem, "is not a regular file");
}

TEST_F(Jitdump, AProcessOrMappingThatIsGoneIsNoProblem) {
  process_jitdump dump = open();
  EXPECT_FALSE(dump.fd);
  EXPECT_EQ(dump.problem, "");
  EXPECT_EQ(open_process_jitdump({4321, 0x7000, 0x8000}, {dir_.file("proc")}).problem, "");
}

// The real /proc: this process maps a dump, whose path then leads to a FIFO, then to a link
// to another file; the dump read is the mapped one all the same.
TEST_F(Jitdump, TheMappedFileIsReadWhateverItsPathLeadsToNow) {
  std::string dump = header() + code_load("JS:*mapped");
  write(dump);
  io::unique_fd fd{::open(dir_.file("jit-1234.dump").c_str(), O_RDONLY | O_CLOEXEC)};
  io::mmap_region marker =
      io::mmap_region::map(fd.get(), 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, "the test's dump");
  fd = {};
  auto start = reinterpret_cast<std::uint64_t>(marker.data());
  for (const char* replaced : {"fifo", "link"}) {
    ASSERT_EQ(::unlink(dir_.file("jit-1234.dump").c_str()), 0);
    if (std::string(replaced) == "fifo")
      ASSERT_EQ(::mkfifo(dir_.file("jit-1234.dump").c_str(), 0600), 0);
    else
      ASSERT_EQ(::symlink("/etc/passwd", dir_.file("jit-1234.dump").c_str()), 0);
    process_jitdump opened = open_process_jitdump({::getpid(), start, start + 4096});
    ASSERT_TRUE(opened.fd) << replaced << ": " << opened.problem;
    jitdump_cursor cursor;
    std::string kept;
    read_jitdump_records(opened.fd.get(), cursor, kept, 1 << 20, "the dump");
    EXPECT_EQ(kept, header() + test::jitdump_kept(code_load("JS:*mapped"))) << replaced;
  }
}

// Without the capability map_files asks for (a user's own arec), the dump is not kept, and the
// reason is said rather than left to unnamed frames. The child drops root, maps a dump of its
// own and asks for it as such an arec would.
TEST_F(Jitdump, AnArecThatMayNotOpenMapFilesSaysSo) {
  write(header());
  test::forked_result result = test::run_forked([&](std::string& report) {
    io::unique_fd fd{::open(dir_.file("jit-1234.dump").c_str(), O_RDONLY | O_CLOEXEC)};
    io::mmap_region marker =
        io::mmap_region::map(fd.get(), 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, "the dump");
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
      report = std::string("setuid: ") + std::strerror(errno);
      return test::cannot_run_here;
    }
    auto start = reinterpret_cast<std::uint64_t>(marker.data());
    process_jitdump dump = open_process_jitdump({::getpid(), start, start + 4096});
    report = dump.problem;
    return dump.fd ? 1 : 0;
  });
  if (result.status == test::cannot_run_here) GTEST_SKIP() << result.text;
  EXPECT_EQ(result.status, 0) << "opened without the capability";
  EXPECT_NE(result.text.find("cannot be opened through /proc/"), std::string::npos) << result.text;
  EXPECT_NE(result.text.find("Operation not permitted"), std::string::npos) << result.text;
}

}  // namespace
}  // namespace arec::host
