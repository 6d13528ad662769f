// build_id_cache: perf's layout under a temporary root: the per-path build-id directory with the
// file (hard-linked), the .build-id link, the vdso and kallsyms, and a file rebuilt since it was
// mapped reported and left out.
#include "record/synthesis/build_id_cache.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <fstream>

#include "io/elf_build_id.hpp"
#include "io/vdso_image.hpp"
#include "record/synthesis/build_id_reader.hpp"
#include "support/temp_dir.hpp"

namespace arec::record {
namespace {

class BuildIdCache : public ::testing::Test {
 protected:
  // Builds a program returning `value` at `path`; the value makes each build-id different.
  bool build(const std::string& path, int value) {
    std::ofstream{dir_.file("main.c")} << "int main(void) { return " << value << "; }\n";
    std::string command = "cc -o " + path + " " + dir_.file("main.c");
    return std::system(command.c_str()) == 0;
  }
  std::shared_ptr<model::dso> dso_of(const std::string& path) {
    auto object = std::make_shared<model::dso>(path, model::dso_id{}, model::dso_kind::user);
    if (auto id = io::read_elf_build_id(path.c_str())) object->set_build_id(*id);
    return object;
  }
  build_id_cache cache() {
    return build_id_cache{root(), [this](const std::string& line) { warnings_.push_back(line); }};
  }
  std::string root() const { return dir_.file("debug"); }

  test::temp_dir dir_;
  std::vector<std::string> warnings_;
};

std::string link_target(const std::string& path) {
  char target[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), target, sizeof target);
  return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : std::string();
}

ino_t inode_of(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 ? status.st_ino : 0;
}

TEST_F(BuildIdCache, StoresAFileInPerfsLayout) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = dso_of(program);
  std::string hex = object->build_id().hex();
  ASSERT_EQ(hex.size(), 40u);
  cache().add(*object);
  std::string stored = root() + program + "/" + hex + "/elf";
  EXPECT_EQ(inode_of(stored), inode_of(program)) << "a hard link on the same file system";
  std::string link = root() + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
  EXPECT_EQ(link_target(link), "../../" + program.substr(1) + "/" + hex);
  EXPECT_EQ(inode_of(link), inode_of(root() + program + "/" + hex)) << "the link resolves";
  EXPECT_TRUE(warnings_.empty());
  cache().add(*object);  // cached already: nothing to do, no error
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(BuildIdCache, AFileRebuiltSinceItWasMappedIsReportedAndNotCached) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = dso_of(program);
  ASSERT_TRUE(build(program, 2));
  ASSERT_NE(io::read_elf_build_id(program.c_str()), object->build_id());
  cache().add(*object);
  std::string hex = object->build_id().hex();
  struct stat status {};
  EXPECT_NE(::lstat((root() + program + "/" + hex + "/elf").c_str(), &status), 0);
  EXPECT_NE(::lstat((root() + "/.build-id/" + hex.substr(0, 2)).c_str(), &status), 0);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find(program + " changed on disk since it was mapped"), std::string::npos)
      << warnings_[0];
}

TEST_F(BuildIdCache, StoresTheVdsoImage) {
  std::span<const std::byte> image = io::own_vdso_image();
  auto id = io::elf_image_build_id(image);
  if (!id) GTEST_SKIP() << "no vdso with a build-id here";
  model::dso vdso{"[vdso]", model::dso_id{}, model::dso_kind::user};
  vdso.set_build_id(*id);
  cache().add(vdso);
  std::string stored = root() + "/[vdso]/" + id->hex() + "/vdso";
  struct stat status {};
  ASSERT_EQ(::stat(stored.c_str(), &status), 0);
  EXPECT_EQ(static_cast<std::size_t>(status.st_size), image.size());
  EXPECT_EQ(
      link_target(root() + "/.build-id/" + id->hex().substr(0, 2) + "/" + id->hex().substr(2)),
      "../../[vdso]/" + id->hex());
}

TEST_F(BuildIdCache, StoresACopyOfKallsymsForTheKernel) {
  model::dso kernel{"[kernel.kallsyms]", model::dso_id{}, model::dso_kind::kernel};
  io::build_id id;
  id.size = 20;
  id.bytes[0] = 0xab;
  kernel.set_build_id(id);
  cache().add(kernel);
  std::ifstream copy{root() + "/[kernel.kallsyms]/" + id.hex() + "/kallsyms"};
  std::string first_line;
  ASSERT_TRUE(std::getline(copy, first_line));
  std::ifstream proc{"/proc/kallsyms"};
  std::string proc_line;
  std::getline(proc, proc_line);
  EXPECT_EQ(first_line, proc_line);
}

// The reader caches each dso it reads; a stop first finishes what is queued, so nothing the
// recording saw is missing from the cache.
TEST_F(BuildIdCache, ReaderStopCachesWhatIsStillQueued) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = std::make_shared<model::dso>(program, model::dso_id{}, model::dso_kind::user);
  {
    build_id_reader reader{{}, std::make_unique<build_id_cache>(cache())};
    reader.enqueue(object);
    reader.stop();
  }
  std::optional<io::build_id> id = io::read_elf_build_id(program.c_str());
  ASSERT_TRUE(id);
  EXPECT_EQ(object->build_id(), *id);
  EXPECT_EQ(inode_of(root() + program + "/" + id->hex() + "/elf"), inode_of(program));
}

TEST_F(BuildIdCache, PseudoMappingsAndDsosWithoutBuildIdAreLeftOut) {
  model::dso heap{"[heap]", model::dso_id{}, model::dso_kind::user};
  model::dso unknown{dir_.file("nothing"), model::dso_id{}, model::dso_kind::user};
  cache().add(heap);
  cache().add(unknown);
  struct stat status {};
  EXPECT_NE(::stat(root().c_str(), &status), 0) << "nothing created";
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(BuildIdCache, AnUnwritableRootIsReportedOnce) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  { std::ofstream{root()} << "a file, not a directory"; }
  auto object = dso_of(program);
  build_id_cache failing = cache();
  failing.add(*object);
  failing.add(*object);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("cannot add " + program + " to the build-id cache: mkdir"),
            std::string::npos)
      << warnings_[0];
}

}  // namespace
}  // namespace arec::record
