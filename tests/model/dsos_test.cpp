// dsos: one entry per (name, identity), found by binary search; a dso's build-id is set once.
#include "model/dsos.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace arec::model {
namespace {

dso_id inode_id(std::uint64_t inode) {
  dso_id id;
  id.major = 8;
  id.minor = 1;
  id.inode = inode;
  return id;
}

TEST(Dsos, FindOrAddReturnsTheSameDsoForTheSameNameAndId) {
  dsos table;
  auto first = table.find_or_add("/usr/lib/libc.so.6", inode_id(5), dso_kind::user);
  auto again = table.find_or_add("/usr/lib/libc.so.6", inode_id(5), dso_kind::user);
  EXPECT_EQ(first, again);
  EXPECT_EQ(table.size(), 1u);
}

TEST(Dsos, SameNameWithAnotherInodeIsAnotherDso) {
  dsos table;
  auto old_file = table.find_or_add("/opt/app", inode_id(5), dso_kind::user);
  auto new_file = table.find_or_add("/opt/app", inode_id(6), dso_kind::user);
  EXPECT_NE(old_file, new_file);
  EXPECT_EQ(table.find("/opt/app", inode_id(6)), new_file);
  EXPECT_EQ(table.find("/opt/app", inode_id(7)), nullptr);
}

TEST(Dsos, AllIsSortedByName) {
  dsos table;
  for (const char* name : {"/z", "/a", "/m", "[vdso]", "/b"})
    table.find_or_add(name, dso_id{}, dso_kind::user);
  std::vector<std::string> names;
  for (const auto& entry : table.all()) names.push_back(entry->name());
  EXPECT_EQ(names, (std::vector<std::string>{"/a", "/b", "/m", "/z", "[vdso]"}));
  EXPECT_EQ(table.find("/m", dso_id{})->name(), "/m");
  EXPECT_EQ(table.find("/c", dso_id{}), nullptr);
}

TEST(Dsos, BuildIdFromTheKernelIsTheIdentityAndTheBuildId) {
  dsos table;
  dso_id id;
  id.build_id.size = 20;
  id.build_id.bytes[0] = 0xab;
  auto entry = table.find_or_add("/bin/sh", id, dso_kind::user);
  EXPECT_EQ(entry->build_id(), id.build_id);
  EXPECT_FALSE(entry->claim_build_id_read()) << "no file read needed when the kernel told us";
}

TEST(Dsos, BuildIdIsReadOnceAndTheFirstOneWins) {
  dso entry{"/bin/true", dso_id{}, dso_kind::user};
  EXPECT_TRUE(entry.build_id().empty());
  EXPECT_TRUE(entry.claim_build_id_read());
  EXPECT_FALSE(entry.claim_build_id_read());
  perf_data::build_id first;
  first.size = 4;
  first.bytes[0] = 1;
  perf_data::build_id second = first;
  second.bytes[0] = 2;
  entry.set_build_id(first);
  entry.set_build_id(second);
  EXPECT_EQ(entry.build_id(), first);
}

TEST(ConcurrentDsos, ParallelFindOrAddCreatesEachDsoOnce) {
  dsos table;
  std::vector<std::vector<std::shared_ptr<dso>>> seen(4);
  {
    std::vector<std::jthread> pool;
    for (std::size_t w = 0; w < seen.size(); ++w)
      pool.emplace_back([&, w] {
        for (int i = 0; i < 300; ++i)
          seen[w].push_back(
              table.find_or_add("/lib/l" + std::to_string(i), dso_id{}, dso_kind::user));
      });
  }
  EXPECT_EQ(table.size(), 300u);
  for (std::size_t w = 1; w < seen.size(); ++w) EXPECT_EQ(seen[w], seen[0]);
}

// Every dso is announced once, by the thread that created it, however many threads race to add
// it (the build-id reader must see each exactly once).
TEST(Dsos, EveryCreatedDsoIsAnnouncedOnceConcurrently) {
  dsos table;
  std::atomic<int> announced{0};
  table.on_created([&](const std::shared_ptr<dso>&) { announced.fetch_add(1); });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (std::uint64_t inode = 0; inode < 200; ++inode)
        table.find_or_add("/lib/x.so", inode_id(inode), dso_kind::user);
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(announced.load(), 200);
  EXPECT_EQ(table.size(), 200u);
}

// The build-id reader opens a new dso's file through its mapping as soon as it hears of it:
// the place must be set by then (it was set just after, and the reader sometimes read the
// host's path instead).
TEST(Dsos, ANewDsoHasItsPlaceWhenTheListenerHearsOfIt) {
  dsos table;
  std::optional<host::mapping_place> heard;
  table.on_created([&](const std::shared_ptr<dso>& object) { heard = object->place(); });
  table.find_or_add("/bin/app", dso_id{}, dso_kind::user, host::mapping_place{42, 0x1000, 0x2000});
  ASSERT_TRUE(heard);
  EXPECT_EQ(heard->pid, 42);
  EXPECT_EQ(heard->start, 0x1000u);
  table.find_or_add("/bin/app", dso_id{}, dso_kind::user, host::mapping_place{43, 0x5000, 0x6000});
  EXPECT_EQ(table.find("/bin/app", dso_id{})->place()->pid, 43) << "the newest mapping";
}

// A job that runs again maps the file its first, unread run could not give: the file is offered
// for another read through a new mapping, once until that read is claimed, a bounded number of
// times, and not once it is read.
TEST(Dsos, AnUnreachableFileMappedAgainIsOfferedForAnotherRead) {
  dsos table;
  std::vector<pid_t> offered;
  table.on_mapped_again(
      [&](const std::shared_ptr<dso>& object) { offered.push_back(object->place()->pid); });
  auto map = [&](pid_t pid) {
    return table.find_or_add("/opt/job", inode_id(7), dso_kind::user,
                             host::mapping_place{pid, 0x1000, 0x2000});
  };
  auto job = map(1);
  ASSERT_TRUE(job->claim_build_id_read());
  map(2);
  EXPECT_TRUE(offered.empty()) << "read, not unreachable: nothing to offer";
  job->mark_file_unreachable();
  for (unsigned retry = 0; retry < dso::max_read_retries; ++retry) {
    map(static_cast<pid_t>(10 + retry));
    map(static_cast<pid_t>(10 + retry));  // before the read: no second offer
    ASSERT_TRUE(job->claim_build_id_read()) << "retry " << retry;
    EXPECT_FALSE(job->file_unreachable()) << "a claimed read is under way";
    job->mark_file_unreachable();
  }
  EXPECT_EQ(offered.size(), dso::max_read_retries);
  map(999);
  EXPECT_FALSE(job->claim_build_id_read()) << "no read beyond the bound";
  EXPECT_EQ(offered.size(), dso::max_read_retries) << "nor an offer";
}

// The later run maps the file while the read of an earlier, short run is still under way:
// nothing can be offered then, so the read's failure says to read again, once.
TEST(Dsos, AFileMappedAgainWhileItsReadRanIsReadAgainWhenThatReadFails) {
  dsos table;
  int offers = 0;
  table.on_mapped_again([&](const std::shared_ptr<dso>&) { ++offers; });
  auto map = [&](pid_t pid) {
    return table.find_or_add("/opt/job", inode_id(7), dso_kind::user,
                             host::mapping_place{pid, 0x1000, 0x2000});
  };
  auto job = map(1);
  ASSERT_TRUE(job->claim_build_id_read());
  EXPECT_FALSE(job->take_read_again()) << "no mapping during the read";
  job->mark_file_unreachable();
  ASSERT_TRUE(job->claim_build_id_read());  // the next failed run's read
  map(2);                                   // the later run, while that read runs
  EXPECT_EQ(offers, 0);
  job->mark_file_unreachable();
  EXPECT_TRUE(job->take_read_again());
  EXPECT_FALSE(job->take_read_again()) << "once";
  map(3);
  EXPECT_EQ(offers, 0) << "already taken: one read under way is enough";
  ASSERT_TRUE(job->claim_build_id_read());
  EXPECT_EQ(job->place()->pid, 3) << "through the newest mapping";
}

TEST(Dsos, AFileReadOnRetryIsNotOfferedAgain) {
  dsos table;
  int offers = 0;
  table.on_mapped_again([&](const std::shared_ptr<dso>&) { ++offers; });
  auto job =
      table.find_or_add("/opt/job", inode_id(7), dso_kind::user, host::mapping_place{1, 1, 2});
  ASSERT_TRUE(job->claim_build_id_read());
  job->mark_file_unreachable();
  table.find_or_add("/opt/job", inode_id(7), dso_kind::user, host::mapping_place{2, 1, 2});
  ASSERT_TRUE(job->claim_build_id_read());
  perf_data::build_id id;
  id.size = 1;
  job->set_build_id(id);
  table.find_or_add("/opt/job", inode_id(7), dso_kind::user, host::mapping_place{3, 1, 2});
  EXPECT_EQ(offers, 1);
  EXPECT_FALSE(job->claim_build_id_read());
}

}  // namespace
}  // namespace arec::model
