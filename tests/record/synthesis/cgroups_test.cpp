#include "record/synthesis/cgroups.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/stat.h>

#include <cstring>
#include <optional>
#include <string>

#include "collecting_sink.hpp"
#include "host/cgroup_fs.hpp"
#include "perf_data/record_encoders.hpp"

using arec::test::synthesized::collecting_sink;

// As perf_event__synthesize_cgroup lays it out: u64 id, the path NUL-padded to 8, the trailer.
TEST(CgroupSynthesis, CgroupLayoutMatchesHandComputedBytes) {
  arec::perf_data::record_buffer buffer;
  auto bytes = arec::perf_data::encode_cgroup(buffer, 0x0102030405060708, "/a/bcdefgh", 32);
  const unsigned char expected[] = {
      19,  0,   0,   0,   0,   0,   64,  0,    // type CGROUP, misc 0, size 64
      8,   7,   6,   5,   4,   3,   2,   1,    // id
      '/', 'a', '/', 'b', 'c', 'd', 'e', 'f',  // path ...
      'g', 'h', 0,   0,   0,   0,   0,   0,    // ... NUL-padded to 8
      0,   0,   0,   0,   0,   0,   0,   0,    // zero sample_id trailer (32)
      0,   0,   0,   0,   0,   0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  };
  ASSERT_EQ(bytes.size(), sizeof expected);
  EXPECT_EQ(std::memcmp(bytes.data(), expected, sizeof expected), 0);
}

TEST(CgroupSynthesis, TooLongAPathIsRefused) {
  arec::perf_data::record_buffer buffer;
  EXPECT_THROW(arec::perf_data::encode_cgroup(buffer, 1, std::string(PATH_MAX, 'a'), 32),
               std::invalid_argument);
}

// The first record names the root cgroup "/" with its id, as perf's first one does.
TEST(CgroupSynthesis, StartsWithTheRootOfTheMountPerfUses) {
  std::optional<std::string> mount = arec::host::perf_event_cgroup_mount();
  if (!mount) GTEST_SKIP() << "no cgroup file system is mounted";
  collecting_sink sink;
  std::size_t written = arec::record::synthesize_cgroups(sink, *mount, 32);
  ASSERT_EQ(written, sink.records.size());
  ASSERT_GE(written, 1u);
  arec::test::synthesized::expect_well_formed(sink.records, 32);
  const auto& root = sink.records.front();
  EXPECT_EQ(root.type(), PERF_RECORD_CGROUP);
  struct stat status {};
  ASSERT_EQ(::stat(mount->c_str(), &status), 0);
  EXPECT_EQ(root.u64(8), status.st_ino);
  EXPECT_EQ(root.text(16), "/");
  for (const auto& record : sink.records) EXPECT_EQ(record.text(16).front(), '/');
}
