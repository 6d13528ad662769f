// build_id_archive: from a cache laid out as perf lays it out, the archive holds each build-id's
// .build-id link and the directory it points to (perf archive's manifest), once per build-id;
// build-ids the cache does not hold are listed; with none held no archive is written.
#include "symbols/build_id_archive.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::symbols {
namespace {

perf_data::build_id id_of(std::uint8_t fill) {
  perf_data::build_id id;
  id.size = 20;
  id.bytes.fill(fill);
  return id;
}

class BuildIdArchive : public ::testing::Test {
 protected:
  std::string root() const { return dir_.file("cache"); }
  // Caches `leaf` of `name` with build-id `id`, as the recorder does.
  void cache(const std::string& name, const perf_data::build_id& id, const std::string& leaf) {
    std::string object_dir = build_id_object_dir(root(), name, id.hex());
    std::string link = build_id_link_path(root(), id.hex());
    test::run_command({"mkdir", "-p", object_dir, link.substr(0, link.rfind('/'))});
    std::ofstream{object_dir + "/" + leaf} << "object " << name;
    ASSERT_EQ(::symlink(build_id_link_target(name, id.hex()).c_str(), link.c_str()), 0);
  }
  std::vector<std::string> listing(const std::string& archive) {
    test::command_result listed = test::run_command({"tar", "tjf", archive});
    EXPECT_EQ(listed.exit_code, 0) << listed.describe();
    std::vector<std::string> lines;
    std::istringstream text{listed.out};
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  test::temp_dir dir_;
};

TEST_F(BuildIdArchive, HoldsEachBuildIdsLinkAndObjectDirectoryOnce) {
  cache("/usr/bin/prog", id_of(0xab), "elf");
  cache("[kernel.kallsyms]", id_of(0xcd), "kallsyms");
  cache("/usr/lib/unrelated.so", id_of(0xef), "elf");  // in the cache, not in the recording
  std::vector<perf_data::build_id_entry> entries{{1, id_of(0xcd), "[kernel.kallsyms]"},
                                                 {2, id_of(0xab), "/usr/bin/prog"},
                                                 {2, id_of(0xab), "/proc/1/root/usr/bin/prog"},
                                                 {2, perf_data::build_id{}, "/no/build-id"}};
  std::string output = dir_.file("rec.data.tar.bz2");
  archive_contents contents = write_build_id_archive(entries, root(), output);
  EXPECT_EQ(contents.objects, 2u);
  EXPECT_TRUE(contents.missing.empty());
  std::string ab = id_of(0xab).hex(), cd = id_of(0xcd).hex();
  std::vector<std::string> expected{
      ".build-id/ab/" + ab.substr(2),  ".build-id/cd/" + cd.substr(2),
      "[kernel.kallsyms]/" + cd + "/", "[kernel.kallsyms]/" + cd + "/kallsyms",
      "usr/bin/prog/" + ab + "/",      "usr/bin/prog/" + ab + "/elf"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listing(output), expected);
  EXPECT_EQ(contents.bytes, std::string("object /usr/bin/prog").size() +
                                std::string("object [kernel.kallsyms]").size());
}

TEST_F(BuildIdArchive, BuildIdsTheCacheDoesNotHoldAreListed) {
  cache("/usr/bin/prog", id_of(0xab), "elf");
  std::vector<perf_data::build_id_entry> entries{{2, id_of(0xab), "/usr/bin/prog"},
                                                 {2, id_of(0x12), "/usr/lib/gone.so"}};
  archive_contents contents = write_build_id_archive(entries, root(), dir_.file("a.tar.bz2"));
  EXPECT_EQ(contents.objects, 1u);
  ASSERT_EQ(contents.missing.size(), 1u);
  EXPECT_EQ(contents.missing[0], "/usr/lib/gone.so (build-id " + id_of(0x12).hex() + ")");
}

TEST_F(BuildIdArchive, NothingIsWrittenWhenTheCacheHoldsNoneOfThem) {
  std::vector<perf_data::build_id_entry> entries{{2, id_of(0x12), "/usr/lib/gone.so"}};
  std::string output = dir_.file("none.tar.bz2");
  archive_contents contents = write_build_id_archive(entries, root(), output);
  EXPECT_EQ(contents.objects, 0u);
  EXPECT_NE(::access(output.c_str(), F_OK), 0) << "an archive of nothing was written";
  test::command_result left = test::run_command({"sh", "-c", "ls " + dir_.path()});
  EXPECT_EQ(left.out.find("arec-tmp"), std::string::npos) << left.out;
}

TEST_F(BuildIdArchive, ReplacesAnOlderArchive) {
  cache("/usr/bin/prog", id_of(0xab), "elf");
  std::string output = dir_.file("rec.tar.bz2");
  std::ofstream{output} << "an old archive";
  std::vector<perf_data::build_id_entry> entries{{2, id_of(0xab), "/usr/bin/prog"}};
  write_build_id_archive(entries, root(), output);
  EXPECT_EQ(listing(output).size(), 3u);
}

}  // namespace
}  // namespace arec::symbols
