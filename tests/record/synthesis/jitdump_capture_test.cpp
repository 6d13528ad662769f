// jitdump_capture: a dump this process maps (as a runtime marks its dump) is captured through
// the mapping, grows with what the runtime appends, outlives the removal of its file, and a
// bound leaves out whole records only, counted in the feature and said.
#include "record/synthesis/jitdump_capture.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/mmap_region.hpp"
#include "support/jitdump_bytes.hpp"
#include "support/temp_dir.hpp"

namespace arec::record {
namespace {

class JitdumpCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("jit-" + std::to_string(::getpid()) + ".dump");
    writer_ = io::unique_fd{::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
    ASSERT_TRUE(writer_);
  }
  void append(const std::string& bytes) const {
    ASSERT_EQ(::write(writer_.get(), bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  // Marks the dump as a runtime does: one executable page of it.
  host::mapping_place mark() {
    marker_ = io::mmap_region::map(writer_.get(), 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
                                   "the test's dump");
    auto start = reinterpret_cast<std::uint64_t>(marker_.data());
    return {::getpid(), start, start + 4096};
  }
  // The bytes of the dumps the next finished file would hold, decoded as a reader sees them.
  perf_data::captured_jitdumps stored(jitdump_capture& capture) const {
    std::vector<perf_data::stored_jitdump> dumps = capture.dumps();
    return perf_data::parse_jitdumps_payload(perf_data::jitdumps_payload({{1, 2}, {3, 4}}, dumps),
                                             0, "test");
  }

  test::temp_dir dir_;
  std::string path_;
  io::unique_fd writer_;
  io::mmap_region marker_;
  std::vector<std::string> said_;
};

TEST_F(JitdumpCapture, TheDumpGrowsWithTheRuntimeAndOutlivesItsFile) {
  std::string first = test::jitdump_header() + test::jitdump_code_load("JS:*hot");
  std::string first_kept = test::jitdump_header() + test::jitdump_kept(test::jitdump_code_load("JS:*hot"));
  append(first);
  jitdump_capture capture{[this](const std::string& line) { said_.push_back(line); }};
  capture.open(mark(), path_);
  ASSERT_EQ(stored(capture).dumps.size(), 1u);
  EXPECT_EQ(stored(capture).dumps[0].bytes, first_kept) << "its records, without their code";
  EXPECT_EQ(stored(capture).dumps[0].pid, ::getpid());

  std::string later = test::jitdump_code_load("JS:*later");
  append(later.substr(0, 30));
  EXPECT_EQ(stored(capture).dumps[0].bytes, first_kept) << "a record being written waits";
  ASSERT_EQ(::unlink(path_.c_str()), 0) << "the user's cleanup";
  append(later.substr(30));
  capture.read_new(::getpid());
  EXPECT_EQ(stored(capture).dumps[0].bytes, first_kept + test::jitdump_kept(later));
  EXPECT_EQ(stored(capture).dumps[0].left_out, 0u);
  EXPECT_TRUE(said_.empty());
}

TEST_F(JitdumpCapture, ABoundLeavesOutWholeRecordsAndSaysHowManyBytes) {
  std::string kept = test::jitdump_header() + test::jitdump_kept(test::jitdump_code_load("JS:*a"));
  std::string cut = test::jitdump_code_load("JS:*b") + test::jitdump_code_load("JS:*c");
  append(test::jitdump_header() + test::jitdump_code_load("JS:*a") + cut);
  jitdump_capture capture{[this](const std::string& line) { said_.push_back(line); },
                          {.per_process = kept.size() + 8, .total = 1 << 20}};
  capture.open(mark(), path_);
  perf_data::captured_jitdumps dumps = stored(capture);
  ASSERT_EQ(dumps.dumps.size(), 1u);
  EXPECT_EQ(dumps.dumps[0].bytes, kept);
  EXPECT_EQ(dumps.dumps[0].left_out, cut.size());
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_NE(said_[0].find(std::to_string(cut.size()) + " bytes of its records are left out"),
            std::string::npos)
      << said_[0];
}

TEST_F(JitdumpCapture, AHostileDumpIsKeptUpToItsLastWholeRecordAndSaidOnce) {
  std::string good = test::jitdump_header() + test::jitdump_code_load("JS:*a", 0);
  append(good + test::jitdump_record_prefix(0, 0) + test::jitdump_code_load("JS:*b"));
  jitdump_capture capture{[this](const std::string& line) { said_.push_back(line); }};
  capture.open(mark(), path_);
  EXPECT_EQ(stored(capture).dumps[0].bytes, good);
  EXPECT_EQ(stored(capture).dumps[0].bytes, good);
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_NE(said_[0].find("has a record of 0 bytes"), std::string::npos) << said_[0];
}

TEST_F(JitdumpCapture, ADumpWithoutAWholeHeaderYetIsNotInTheFile) {
  append(test::jitdump_header().substr(0, 12));
  jitdump_capture capture;
  capture.open(mark(), path_);
  EXPECT_TRUE(capture.dumps().empty());
  append(test::jitdump_header().substr(12));
  EXPECT_EQ(stored(capture).dumps.at(0).bytes, test::jitdump_header());
}

// Two processes of a /proc the test builds: the bound of all dumps together leaves out the
// second one's records beyond it, and its process is said; a process gone by then is forgotten.
TEST(JitdumpCaptures, TheBoundOfAllDumpsLeavesOutWhatIsBeyondIt) {
  test::temp_dir dir;
  std::string dump = test::jitdump_header() + test::jitdump_code_load("JS:*a", 0);  // no code
  std::string uid = std::to_string(::getuid());
  for (int pid : {1234, 1235}) {
    std::string task = dir.file("proc/" + std::to_string(pid));
    std::filesystem::create_directories(task + "/map_files");
    std::ofstream{task + "/status"} << "Uid:\t" << uid << "\t" << uid << "\t" << uid << "\t" << uid
                                    << "\n";
    std::ofstream{task + "/stat"} << pid << " (node) S";
    for (int field = 4; field <= 21; ++field) std::ofstream{task + "/stat", std::ios::app} << " 0";
    std::ofstream{task + "/stat", std::ios::app} << " 777 0\n";  // field 22: its start time
    std::string file = dir.file("jit-" + std::to_string(pid) + ".dump");
    std::ofstream{file, std::ios::binary} << dump;
    ::chmod(file.c_str(), 0644);
    ASSERT_EQ(::symlink(file.c_str(), (task + "/map_files/7000-8000").c_str()), 0);
  }
  std::vector<std::string> said;
  jitdump_capture capture{[&](const std::string& line) { said.push_back(line); },
                          {.per_process = 1 << 20, .total = dump.size() + 40},
                          {dir.file("proc")}};
  capture.open({1234, 0x7000, 0x8000}, "/app/jit-1234.dump");
  capture.open({1235, 0x7000, 0x8000}, "/app/jit-1235.dump");
  std::vector<perf_data::stored_jitdump> dumps = capture.dumps();
  ASSERT_EQ(dumps.size(), 2u);
  EXPECT_EQ(dumps[0].dump.text_size, dump.size());
  EXPECT_EQ(dumps[0].left_out, 0u);
  EXPECT_EQ(dumps[1].dump.text_size, 40u) << "its header fits, its record does not";
  EXPECT_EQ(dumps[1].left_out, dump.size() - 40);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("pid 1235's /app/jit-1235.dump: "), std::string::npos) << said[0];
  std::filesystem::remove_all(dir.file("proc/1234"));
  capture.forget_gone_processes();
  EXPECT_EQ(capture.dumps().size(), 1u);
}

}  // namespace
}  // namespace arec::record
