// build_id_cache: perf's layout under a temporary root: the per-path build-id directory with the
// file (hard-linked), the .build-id link, the vdso and kallsyms, and a file rebuilt since it was
// mapped reported and left out. Against other users of the machine: a file another user can
// change is copied (holes kept), copies are bounded, and the cache is neither followed through
// symlinks nor used when another user owns or may write to it. (That the reader caches only
// sampled objects is tested with the reader, tests/record/synthesis/build_id_reader_test.cpp.)
#include "symbols/build_id_cache.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <fstream>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::symbols {
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
    if (auto id = read_elf_build_id(path.c_str())) object->set_build_id(*id);
    return object;
  }
  build_id_cache cache(build_id_cache_limits limits = {}) {
    return build_id_cache{root(), [this](const std::string& line) { warnings_.push_back(line); },
                          limits};
  }
  // `path` as a file of the user "nobody" that others can write: never hard-linked.
  static void give_away(const std::string& path) {
    ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
  }
  // Makes the cache's root with `name` in it a symlink to a new directory, returned.
  std::string plant_symlink(const std::string& name) {
    std::string elsewhere = dir_.file("elsewhere");
    EXPECT_EQ(::mkdir(elsewhere.c_str(), 0755), 0);
    EXPECT_EQ(::mkdir(root().c_str(), 0755), 0);
    EXPECT_EQ(::symlink(elsewhere.c_str(), (root() + "/" + name).c_str()), 0);
    return elsewhere;
  }
  // What `find DIR -mindepth 1` lists: "" for an empty directory.
  static std::string names_in(const std::string& dir) {
    return test::run_command({"find", dir, "-mindepth", "1"}).out;
  }
  std::string stored_path(const std::string& program, const model::dso& object) const {
    return root() + program + "/" + object.build_id().hex() + "/elf";
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

bool exists(const std::string& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
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
  ASSERT_NE(read_elf_build_id(program.c_str()), object->build_id());
  cache().add(*object);
  std::string hex = object->build_id().hex();
  struct stat status {};
  EXPECT_NE(::lstat((root() + program + "/" + hex + "/elf").c_str(), &status), 0);
  EXPECT_NE(::lstat((root() + "/.build-id/" + hex.substr(0, 2)).c_str(), &status), 0);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find(
                program + " not added to the build-id cache: changed on disk since it was mapped"),
            std::string::npos)
      << warnings_[0];
}

TEST_F(BuildIdCache, StoresTheVdsoImage) {
  std::span<const std::byte> image = own_vdso_image();
  auto id = elf_image_build_id(image);
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
  perf_data::build_id id;
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
  EXPECT_NE(warnings_[0].find("cannot add " + program + " to the build-id cache: open " + root() +
                              ": Not a directory"),
            std::string::npos)
      << warnings_[0];
}

// A hard link would let the file's owner change what the cache holds: a file another user
// owns is copied, and its holes stay holes (a 256 MiB sparse file costs next to nothing).
TEST_F(BuildIdCache, AFileAnotherUserCanChangeIsCopiedWithItsHoles) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  ASSERT_EQ(::truncate(program.c_str(), 256 << 20), 0);
  give_away(program);
  auto object = dso_of(program);
  ASSERT_FALSE(object->build_id().empty());
  build_id_cache filling = cache();
  filling.add(*object);
  struct stat stored {};
  ASSERT_EQ(::stat(stored_path(program, *object).c_str(), &stored), 0) << warnings_.size();
  EXPECT_NE(stored.st_ino, inode_of(program)) << "linked, not copied";
  EXPECT_EQ(stored.st_size, 256 << 20);
  EXPECT_LT(stored.st_blocks * 512, 1 << 20) << "the holes were written out";
  EXPECT_EQ(stored.st_uid, ::geteuid());
  EXPECT_EQ(stored.st_mode & 07777, 0755u) << "no write bits for others on the copy";
  EXPECT_LT(filling.copied_bytes(), 1u << 20);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(BuildIdCache, AnObjectOverThePerObjectLimitIsLeftOutAndNamed) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  give_away(program);
  auto object = dso_of(program);
  cache({.object_bytes = 4096, .recording_bytes = 1 << 30}).add(*object);
  EXPECT_FALSE(exists(stored_path(program, *object)));
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_TRUE(mentions(warnings_, program + " not added to the build-id cache: it holds"))
      << warnings_[0];
  EXPECT_TRUE(mentions(warnings_, "arec copies per object")) << warnings_[0];
}

TEST_F(BuildIdCache, CopiesStopAtTheRecordingsLimitAndTheRestIsCounted) {
  std::vector<std::shared_ptr<model::dso>> objects;
  for (int i = 0; i < 7; ++i) {
    std::string program = dir_.file("prog" + std::to_string(i));
    if (!build(program, i)) GTEST_SKIP() << "cc failed";
    give_away(program);
    objects.push_back(dso_of(program));
  }
  struct stat first {};
  ASSERT_EQ(::stat(objects[0]->name().c_str(), &first), 0);
  // Room for the first copy only.
  auto limit = static_cast<std::uint64_t>(first.st_size) + 100;
  build_id_cache filling = cache({.object_bytes = 1 << 30, .recording_bytes = limit});
  for (const auto& object : objects) filling.add(*object);
  filling.finish();
  EXPECT_TRUE(exists(stored_path(objects[0]->name(), *objects[0])));
  for (std::size_t i = 1; i < objects.size(); ++i)
    EXPECT_FALSE(exists(stored_path(objects[i]->name(), *objects[i]))) << i;
  EXPECT_LE(filling.copied_bytes(), limit);
  // Four named, then one line for the other two.
  ASSERT_EQ(warnings_.size(), 5u);
  EXPECT_TRUE(mentions(warnings_, objects[1]->name() + " not added to the build-id cache: the"));
  EXPECT_TRUE(mentions(warnings_, "a recording copies into the cache are used up"));
  EXPECT_EQ(warnings_.back(),
            "arec: warning: 2 more sampled objects were not added to the build-id cache");
}

// Another user's symlink inside the cache would make arec create files where that user chose.
TEST_F(BuildIdCache, ASymlinkInsideTheCacheIsNotFollowed) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  // The first component of the program's path inside the cache ("tmp") points elsewhere.
  std::string elsewhere = plant_symlink(program.substr(1, program.find('/', 1) - 1));
  cache().add(*dso_of(program));
  EXPECT_EQ(names_in(elsewhere), "") << "arec wrote through the symlink";
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_TRUE(mentions(warnings_, "is not a directory (a symlink?): arec does not follow it"))
      << warnings_[0];
}

TEST_F(BuildIdCache, ASymlinkedBuildIdDirectoryIsNotFollowed) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  std::string elsewhere = plant_symlink(".build-id");
  cache().add(*dso_of(program));
  EXPECT_EQ(names_in(elsewhere), "");
  EXPECT_TRUE(mentions(warnings_, ".build-id is not a directory (a symlink?)"));
}

TEST_F(BuildIdCache, ARootAnotherUserOwnsIsNotUsed) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = dso_of(program);
  ASSERT_EQ(::mkdir(root().c_str(), 0755), 0);
  ASSERT_EQ(::chown(root().c_str(), 65534, 65534), 0);
  build_id_cache refused = cache();
  refused.add(*object);
  refused.add(*object);
  EXPECT_EQ(names_in(root()), "");
  ASSERT_EQ(warnings_.size(), 1u) << "said once";
  EXPECT_TRUE(
      mentions(warnings_, "the build-id cache is not used: " + root() + " is owned by uid 65534"))
      << warnings_[0];
}

TEST_F(BuildIdCache, ARootOthersMayWriteToIsNotUsed) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = dso_of(program);
  ASSERT_EQ(::mkdir(root().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(root().c_str(), 01777), 0);
  cache().add(*object);
  EXPECT_EQ(names_in(root()), "");
  EXPECT_TRUE(
      mentions(warnings_, "is writable by group or others (mode 1777): arec does not write"));
}

// A FIFO put at a mapped file's path must not hang the build-id thread (and so the stop).
TEST_F(BuildIdCache, AFifoAtTheMappedPathIsLeftOutWithoutHanging) {
  std::string program = dir_.file("prog");
  if (!build(program, 1)) GTEST_SKIP() << "cc failed";
  auto object = dso_of(program);
  ASSERT_EQ(::unlink(program.c_str()), 0);
  ASSERT_EQ(::mkfifo(program.c_str(), 0600), 0);
  EXPECT_FALSE(read_elf_build_id(program.c_str()));
  cache().add(*object);
  EXPECT_TRUE(mentions(
      warnings_,
      program + " not added to the build-id cache: the mapped file can no longer be opened"));
}

// debuginfod at the recording's end asks only about sampled objects stored that no local file
// names: not one with .symtab, not one never sampled, and nothing at all without DEBUGINFOD_URLS.
// The server is a closed port: the one object asked stays unnamed, said in one warning.
TEST_F(BuildIdCache, DebuginfodIsAskedOnlyAboutSampledObjectsNothingLocalNames) {
  const std::string full = dir_.file("full"), stripped = dir_.file("stripped"),
                    unsampled = dir_.file("unsampled");
  if (!build(full, 1) || !build(stripped, 2) || !build(unsampled, 3)) GTEST_SKIP() << "cc failed";
  for (const std::string& path : {stripped, unsampled})
    ASSERT_EQ(test::run_command({"strip", "--strip-all", path}).exit_code, 0);
  std::optional<std::string> urls, client_cache;
  if (const char* value = std::getenv("DEBUGINFOD_URLS")) urls = value;
  if (const char* value = std::getenv("DEBUGINFOD_CACHE_PATH")) client_cache = value;
  ::unsetenv("DEBUGINFOD_URLS");
  ::setenv("DEBUGINFOD_CACHE_PATH", dir_.file("client-cache").c_str(), 1);
  build_id_cache filled = cache();
  for (const std::string& path : {full, stripped, unsampled}) {
    auto object = dso_of(path);
    if (path != unsampled) object->mark_sampled();
    filled.add(*object);
  }
  EXPECT_FALSE(filled.fetch_debug_files(std::chrono::seconds(5))) << "no server, nothing asked";
  ::setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);  // nothing listens on port 1
  std::optional<debug_fetch_totals> totals = filled.fetch_debug_files(std::chrono::seconds(5));
  urls ? ::setenv("DEBUGINFOD_URLS", urls->c_str(), 1) : ::unsetenv("DEBUGINFOD_URLS");
  client_cache ? ::setenv("DEBUGINFOD_CACHE_PATH", client_cache->c_str(), 1)
               : ::unsetenv("DEBUGINFOD_CACHE_PATH");
  ASSERT_TRUE(totals);
  EXPECT_EQ(totals->asked, 1u) << "only the sampled stripped object";
  EXPECT_EQ(totals->files, 0u);
  EXPECT_EQ(totals->unnamed, 1u);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_TRUE(mentions(warnings_, "arec: warning: debuginfod: debug file of build-id " +
                                      dso_of(stripped)->build_id().hex() + " not fetched"))
      << warnings_.front();
}

}  // namespace
}  // namespace arec::symbols
