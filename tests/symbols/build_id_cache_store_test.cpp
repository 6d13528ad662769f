// build_id_cache_store: an object arec made is found as perf finds cached objects, through
// .build-id/<2 hex>/<38 hex>/elf, under the name it is mapped by; storing it again keeps it.
#include "symbols/build_id_cache_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::symbols {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

perf_data::build_id some_id() {
  std::vector<std::byte> bytes(20);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(0xa0 + i);
  return perf_data::build_id::from(bytes);
}

TEST(BuildIdCacheStore, ObjectIsFoundThroughItsBuildIdLinkAsPerfLooks) {
  test::temp_dir dir;
  std::string root = dir.file("debug");
  std::string image =
      "\x7f"
      "ELF and the rest";
  std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(image.data()), image.size()};
  store_in_build_id_cache(root, "/jit/perf-7.map.elf", some_id(), bytes);

  std::string hex = some_id().hex();
  EXPECT_EQ(contents(build_id_object_dir(root, "/jit/perf-7.map.elf", hex) + "/elf"), image);
  EXPECT_EQ(contents(build_id_link_path(root, hex) + "/elf"), image) << "perf's lookup";
  struct stat link {};
  ASSERT_EQ(::lstat(build_id_link_path(root, hex).c_str(), &link), 0);
  EXPECT_TRUE(S_ISLNK(link.st_mode));

  std::string other = "another image";
  store_in_build_id_cache(root, "/jit/perf-7.map.elf", some_id(),
                          {reinterpret_cast<const std::byte*>(other.data()), other.size()});
  EXPECT_EQ(contents(build_id_link_path(root, hex) + "/elf"), image)
      << "an object stored under a build-id stays";
}

TEST(BuildIdCacheStore, AFailedWriteNamesTheCall) {
  test::temp_dir dir;
  std::string blocker = dir.file("file");
  std::ofstream{blocker} << "not a directory";
  try {
    store_in_build_id_cache(blocker, "/jit/perf-7.map.elf", some_id(), {});
    FAIL() << "a cache root that is a file cannot hold objects";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string{error.what()}.find(blocker), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace arec::symbols
