#include "record/synthesis/build_id_reader.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "support/temp_dir.hpp"
#include "symbols/elf_build_id.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;

std::string own_executable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

// The reader works in the background: the test waits for its result with a deadline.
bool known_within(const model::dso& object, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (object.build_id().empty())
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::yield();
  return true;
}

TEST(BuildIdReaderThread, ReadsTheBuildIdOfAQueuedDsoInTheBackground) {
  std::string path = own_executable();
  std::optional<perf_data::build_id> expected = symbols::read_elf_build_id(path.c_str());
  ASSERT_TRUE(expected) << path << " has no build-id";
  build_id_reader reader;
  auto object = std::make_shared<model::dso>(path, model::dso_id{}, model::dso_kind::user);
  reader.enqueue(object);
  ASSERT_TRUE(known_within(*object, 60s));
  EXPECT_EQ(object->build_id(), *expected);
  EXPECT_FALSE(object->claim_build_id_read()) << "the file is read once";
}

TEST(BuildIdReaderThread, AfterStopNothingMoreIsReadAndTheRestIsLeftToTheEnd) {
  build_id_reader reader;
  reader.stop();
  reader.stop();  // idempotent
  auto object =
      std::make_shared<model::dso>(own_executable(), model::dso_id{}, model::dso_kind::user);
  reader.enqueue(object);
  EXPECT_TRUE(object->claim_build_id_read()) << "left unclaimed for collect_build_ids";
}

// Removes a file the test made outside its temporary directory, whatever happens.
struct removed_at_end {
  std::string path;
  ~removed_at_end() { ::unlink(path.c_str()); }
};

// The text a feature payload of stored maps holds for its first map.
std::string first_text(const std::vector<perf_data::stored_perf_map>& maps) {
  if (maps.empty()) return "(none)";
  std::vector<std::byte> payload = perf_data::perf_maps_payload(maps);
  return perf_data::parse_perf_maps_payload(payload, 0, "test").at(0).text;
}

// This process's own perf map (/tmp/perf-PID.map, as a JIT runtime writes it): captured on
// request, read again when it grew, and still read after a stop (its fd is kept).
TEST(BuildIdReaderThread, APerfMapIsCapturedAndReadAsItGrows) {
  const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  removed_at_end cleanup{path};
  { std::ofstream{path} << "1000 10 first\n"; }
  std::vector<std::string> said;
  build_id_reader reader({}, nullptr, cache_scope::sampled,
                         [&](const std::string& line) { said.push_back(line); });
  reader.enqueue_perf_map(::getpid());
  reader.stop();  // the queued capture is done before the thread ends
  EXPECT_EQ(first_text(reader.perf_maps()), "1000 10 first\n");
  { std::ofstream{path, std::ios::app} << "2000 10 compiled_later\n"; }
  EXPECT_EQ(first_text(reader.perf_maps()), "1000 10 first\n2000 10 compiled_later\n");
  ::unlink(path.c_str());  // the runtime's exit may remove it: the kept fd still reads it
  EXPECT_EQ(first_text(reader.perf_maps()), "1000 10 first\n2000 10 compiled_later\n");
  EXPECT_TRUE(said.empty()) << said.front();
}

// A child process that lives until the test lets it go (release, or the end of the test).
class waiting_child {
 public:
  waiting_child() {
    if (::pipe(ready_) != 0 || ::pipe(release_) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    char byte = 0;
    if (pid_ == 0) {
      if (::write(ready_[1], &byte, 1) != 1 || ::read(release_[0], &byte, 1) < 0) ::_exit(1);
      ::_exit(0);
    }
    if (::read(ready_[0], &byte, 1) != 1) throw std::runtime_error("the child did not start");
  }
  ~waiting_child() {
    release();
    for (int fd : {ready_[0], ready_[1], release_[0], release_[1]}) ::close(fd);
  }
  waiting_child(const waiting_child&) = delete;
  waiting_child& operator=(const waiting_child&) = delete;
  pid_t pid() const noexcept { return pid_; }
  // Lets it end, and reaps it.
  void release() {
    if (pid_ <= 0) return;
    char byte = 0;
    int status = 0;
    if (::write(release_[1], &byte, 1) == 1) ::waitpid(pid_, &status, 0);
    pid_ = 0;
  }

 private:
  int ready_[2] = {-1, -1}, release_[2] = {-1, -1};
  pid_t pid_ = 0;
};

// A map written after the first JIT sample (jcmd Compiler.perfmap) is found at the next
// finished file; until then the process has no entry (export reads the host's /tmp for it).
TEST(BuildIdReaderThread, AMapWrittenLaterIsFoundAtTheNextFinishedFile) {
  const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  removed_at_end cleanup{path};
  ::unlink(path.c_str());
  build_id_reader reader;
  reader.enqueue_perf_map(::getpid());
  reader.stop();
  EXPECT_TRUE(reader.perf_maps().empty()) << "no map yet";
  { std::ofstream{path} << "1000 10 written_later\n"; }
  EXPECT_EQ(first_text(reader.perf_maps()), "1000 10 written_later\n");
}

// A map written as the process exits (-XX:+DumpPerfMapAtExit) is found at its exit, through the
// /tmp kept since its first JIT sample: the process is gone by then.
TEST(BuildIdReaderThread, AMapWrittenAtExitIsFoundAfterTheProcessIsGone) {
  waiting_child child;
  const std::string path = "/tmp/perf-" + std::to_string(child.pid()) + ".map";
  removed_at_end cleanup{path};
  ::unlink(path.c_str());
  build_id_reader reader;
  reader.enqueue_perf_map(child.pid());
  // The queue is done in order: once this dso is read, the capture (while the child lives) is.
  auto marker =
      std::make_shared<model::dso>(own_executable(), model::dso_id{}, model::dso_kind::user);
  reader.enqueue(marker);
  ASSERT_TRUE(known_within(*marker, 60s));
  std::string text = "1000 10 written_at_exit\n";
  { std::ofstream{path} << text; }
  const pid_t pid = child.pid();
  child.release();  // gone and reaped
  reader.enqueue_late_perf_map(pid);
  reader.stop();
  ::unlink(path.c_str());  // its fd, opened at the exit, still reads it
  EXPECT_EQ(first_text(reader.perf_maps()), text);
}

// A long recording (--push for weeks) keeps only its live processes' maps once a finished file
// holds the others': a gone process's map is forgotten, a live one's kept.
TEST(BuildIdReaderThread, TheMapOfAProcessThatIsGoneIsForgottenOnceWritten) {
  waiting_child child;
  const std::string mine = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  const std::string its = "/tmp/perf-" + std::to_string(child.pid()) + ".map";
  removed_at_end cleanup_mine{mine}, cleanup_its{its};
  { std::ofstream{mine} << "1000 10 mine\n"; }
  { std::ofstream{its} << "1000 10 its\n"; }
  build_id_reader reader;
  reader.enqueue_perf_map(::getpid());
  reader.enqueue_perf_map(child.pid());
  reader.stop();
  EXPECT_EQ(reader.perf_maps().size(), 2u);
  reader.forget_gone_processes();
  EXPECT_EQ(reader.perf_maps().size(), 2u) << "both still run";
  child.release();
  reader.forget_gone_processes();
  std::vector<perf_data::stored_perf_map> kept = reader.perf_maps();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].pid, ::getpid());
}

// Two processes' 140 MiB maps made a feature no reader accepted (each map was within its
// bound, the file's whole was not): the recorder now leaves out what would not fit, says so,
// and the rest reads back. The maps are sparse files: no disk is used.
TEST(BuildIdReaderThread, MapsThatWouldMakeTheFileUnreadableAreLeftOutAndSaid) {
  waiting_child child;
  const std::string mine = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  const std::string its = "/tmp/perf-" + std::to_string(child.pid()) + ".map";
  removed_at_end cleanup_mine{mine}, cleanup_its{its};
  for (const std::string& path : {mine, its}) {
    { std::ofstream{path} << "1000 10 f\n"; }
    ASSERT_EQ(::truncate(path.c_str(), off_t{140} << 20), 0);
  }
  std::vector<std::string> said;
  build_id_reader reader({}, nullptr, cache_scope::sampled,
                         [&](const std::string& line) { said.push_back(line); });
  reader.enqueue_perf_map(::getpid());
  reader.enqueue_perf_map(child.pid());
  reader.stop();
  std::vector<perf_data::stored_perf_map> kept = reader.perf_maps();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].pid, ::getpid());
  std::vector<std::byte> payload = perf_data::perf_maps_payload(kept);
  EXPECT_EQ(perf_data::parse_perf_maps_payload(payload, 0, "test").size(), 1u);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("the perf maps of 1 processes are left out of this file"),
            std::string::npos)
      << said[0];
}

TEST(BuildIdReaderThread, APerfMapAnotherUserCouldHavePlantedIsRefusedWithAWarning) {
  const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  removed_at_end cleanup{path};
  { std::ofstream{path} << "1000 10 planted\n"; }
  ASSERT_EQ(::chown(path.c_str(), 4242, 4242), 0);
  std::vector<std::string> said;
  build_id_reader reader({}, nullptr, cache_scope::sampled,
                         [&](const std::string& line) { said.push_back(line); });
  reader.enqueue_perf_map(::getpid());
  reader.stop();
  std::vector<perf_data::stored_perf_map> kept = reader.perf_maps();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].pid, ::getpid());
  EXPECT_EQ(first_text(kept), "");
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("is owned by uid 4242"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("JIT frames stay unnamed"), std::string::npos) << said[0];
}

// The reader with a build-id cache (symbols/build_id_cache) filled from its thread.
class BuildIdReaderCache : public ::testing::Test {
 protected:
  // Builds a program returning `value` at `path`; the value makes each build-id different.
  bool build(const std::string& path, int value) {
    std::ofstream{dir_.file("main.c")} << "int main(void) { return " << value << "; }\n";
    std::string command = "cc -o " + path + " " + dir_.file("main.c");
    return std::system(command.c_str()) == 0;
  }
  symbols::build_id_cache cache() {
    return symbols::build_id_cache{root(), [](const std::string&) {}};
  }
  std::string stored_path(const std::string& program, const model::dso& object) const {
    return root() + program + "/" + object.build_id().hex() + "/elf";
  }
  std::string root() const { return dir_.file("debug"); }

  test::temp_dir dir_;
};

// The reader caches each dso it reads; a stop first finishes what is queued, so nothing the
// recording saw is missing from the cache.
TEST_F(BuildIdReaderCache, StopCachesWhatIsStillQueued) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = std::make_shared<model::dso>(program, model::dso_id{}, model::dso_kind::user);
  {
    build_id_reader reader{{}, std::make_unique<symbols::build_id_cache>(cache())};
    reader.enqueue(object);
    reader.enqueue_sampled(object);
    reader.stop();
  }
  std::optional<perf_data::build_id> id = symbols::read_elf_build_id(program.c_str());
  ASSERT_TRUE(id);
  EXPECT_EQ(object->build_id(), *id);
  std::error_code missing;
  EXPECT_TRUE(
      std::filesystem::equivalent(root() + program + "/" + id->hex() + "/elf", program, missing))
      << "not a hard link of the program: " << missing.message();
}

// As perf: a dso only mapped is read for its build-id but not cached; one sampled is.
TEST_F(BuildIdReaderCache, CachesOnlySampledDsos) {
  std::string mapped = dir_.file("mapped");
  std::string sampled = dir_.file("sampled");
  if (!build(mapped, 1) || !build(sampled, 2)) GTEST_SKIP() << "cc failed";
  auto mapped_dso = std::make_shared<model::dso>(mapped, model::dso_id{}, model::dso_kind::user);
  auto sampled_dso = std::make_shared<model::dso>(sampled, model::dso_id{}, model::dso_kind::user);
  {
    build_id_reader reader{{}, std::make_unique<symbols::build_id_cache>(cache())};
    reader.enqueue(mapped_dso);
    reader.enqueue(sampled_dso);
    reader.enqueue_sampled(sampled_dso);
    reader.stop();
  }
  EXPECT_FALSE(mapped_dso->build_id().empty()) << "the build-id is read all the same";
  EXPECT_FALSE(std::filesystem::exists(stored_path(mapped, *mapped_dso)));
  EXPECT_TRUE(std::filesystem::exists(stored_path(sampled, *sampled_dso)));
}

TEST_F(BuildIdReaderCache, WithBuildidAllCachesEveryMappedDso) {
  std::string mapped = dir_.file("mapped");
  if (!build(mapped, 1)) GTEST_SKIP() << "cc failed";
  auto object = std::make_shared<model::dso>(mapped, model::dso_id{}, model::dso_kind::user);
  {
    build_id_reader reader{
        {}, std::make_unique<symbols::build_id_cache>(cache()), cache_scope::mapped};
    reader.enqueue(object);
    reader.stop();
  }
  EXPECT_TRUE(std::filesystem::exists(stored_path(mapped, *object)));
}

}  // namespace
}  // namespace arec::record
