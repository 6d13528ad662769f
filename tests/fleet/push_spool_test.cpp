#include "fleet/push_spool.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "fleet/wire_format.hpp"
#include "fleet_test_support.hpp"
#include "io/file_copy.hpp"
#include "support/forked.hpp"
#include "support/temp_dir.hpp"
#include "support/test_user.hpp"

namespace arec::fleet {
namespace {

using test::captured_reports;
using test::numbered_window;
using test::window_index;

// Takes every waiting window, oldest first, as the sender does, and says which they were.
std::vector<int> drain(push_spool& spool) {
  std::vector<int> order;
  while (auto entry = spool.take_oldest()) {
    auto window = spool.load(*entry);
    EXPECT_TRUE(window);
    if (!window) break;
    order.push_back(window_index(window->profile));
    spool.finish(*entry, spool_result::delivered);
  }
  return order;
}

std::vector<std::string> spool_files(const std::string& dir) {
  auto names = io::directory_names(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// The name a spool for `destination` gives the window file of `sequence`.
std::string window_file(std::uint64_t sequence, const std::string& destination = "") {
  push_spool names({1 << 20, 1 << 20, "", destination}, [](const std::string&) {});
  return names.file_name(sequence);
}

// The memory a numbered window of 1000 bytes costs in the spool, within a few bytes.
constexpr std::uint64_t window_cost = 1000 + sizeof(push_window) + 16;

TEST(FleetSpool, MemoryOnlyDropsTheOldestAndSaysSoOncePerBurst) {
  captured_reports reports;
  push_spool spool({3 * window_cost, 0, ""}, reports.reporter());
  for (int i = 1; i <= 6; ++i) spool.add(numbered_window(i, 1000));
  EXPECT_EQ(spool.counts().dropped_full, 3u);
  EXPECT_EQ(reports.lines().size(), 0u) << "reported at the end of the burst, not per window";
  EXPECT_EQ(drain(spool), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(reports.matching("spool full"),
            "push: spool full: dropped the 3 oldest window(s) (bounds: " +
                std::to_string(3 * window_cost) + " bytes in memory)\n");
}

TEST(FleetSpool, OverflowGoesToDiskOldestFirstAndComesBackInOrder) {
  test::temp_dir dir;
  captured_reports reports;
  push_spool spool({2 * window_cost, 100 * window_cost, dir.file("spool")}, reports.reporter());
  for (int i = 1; i <= 5; ++i) spool.add(numbered_window(i, 1000));
  spool_counts counts = spool.counts();
  EXPECT_EQ(counts.in_memory, 2u);
  EXPECT_EQ(counts.on_disk, 3u);
  EXPECT_EQ(spool_files(dir.file("spool")).size(), 3u);
  EXPECT_EQ(drain(spool), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(spool_files(dir.file("spool")).size(), 0u) << "a delivered window's file is removed";
  EXPECT_EQ(spool.counts().dropped_full, 0u);
}

TEST(FleetSpool, DiskBoundDropsTheOldestFiles) {
  test::temp_dir dir;
  captured_reports reports;
  // Memory holds nothing: every window goes to disk, which holds about two.
  push_spool spool({0, 2 * 1100, dir.file("spool")}, reports.reporter());
  for (int i = 1; i <= 5; ++i) spool.add(numbered_window(i, 1000));
  EXPECT_EQ(spool.counts().dropped_full, 3u);
  EXPECT_EQ(drain(spool), (std::vector<int>{4, 5}));
  EXPECT_NE(reports.matching("dropped the 3 oldest"), "");
}

TEST(FleetSpool, AWindowInFlightIsNeverDropped) {
  captured_reports reports;
  push_spool spool({2 * window_cost, 0, ""}, reports.reporter());
  spool.add(numbered_window(1, 1000));
  auto in_flight = spool.take_oldest();
  ASSERT_TRUE(in_flight);
  for (int i = 2; i <= 5; ++i) spool.add(numbered_window(i, 1000));
  spool.finish(*in_flight, spool_result::kept);  // a retryable failure: it stays first
  EXPECT_EQ(drain(spool), (std::vector<int>{1, 5}));
}

TEST(FleetSpool, AWindowKeptAfterAFailureGoesToDiskInItsPlace) {
  test::temp_dir dir;
  captured_reports reports;
  push_spool spool({5 * window_cost / 2, 1 << 20, dir.file("spool")}, reports.reporter());
  spool.add(numbered_window(1, 1000));
  auto in_flight = spool.take_oldest();
  ASSERT_TRUE(in_flight);
  spool.add(numbered_window(2, 1000));
  spool.add(numbered_window(3, 1000));  // 2 goes to disk: 1 is in flight
  spool.finish(*in_flight, spool_result::kept);
  spool.add(numbered_window(4, 1000));  // now 1 goes to disk, behind 2 in time of writing
  EXPECT_EQ(spool.counts().on_disk, 2u);
  EXPECT_EQ(drain(spool), (std::vector<int>{1, 2, 3, 4}));
}

TEST(FleetSpool, ANextRunSendsWhatALastRunLeftAndRemovesHalfWrittenFiles) {
  test::temp_dir dir;
  captured_reports reports;
  {
    push_spool first({0, 1 << 20, dir.file("spool")}, reports.reporter());
    for (int i = 1; i <= 3; ++i) first.add(numbered_window(i, 1000));
  }
  // What a kill between write and rename leaves behind.
  std::string half = "half";
  io::write_new_file(dir.file("spool/.window-00000000000000000004.pb.tmp"),
                     std::as_bytes(std::span{half.data(), half.size()}), 0600);
  push_spool second({1 << 20, 1 << 20, dir.file("spool")}, reports.reporter());
  second.add(numbered_window(10, 1000));
  EXPECT_EQ(drain(second), (std::vector<int>{1, 2, 3, 10}));
  EXPECT_NE(reports.matching("removed 1 half-written window file(s)"), "");
  EXPECT_NE(reports.matching("3 window(s) left in " + dir.file("spool") +
                             " by an earlier run are sent first"),
            "");
  EXPECT_EQ(spool_files(dir.file("spool")).size(), 0u);
}

TEST(FleetSpool, PersistRemainingWritesMemoryToDisk) {
  test::temp_dir dir;
  captured_reports reports;
  {
    push_spool spool({1 << 20, 1 << 20, dir.file("spool")}, reports.reporter());
    for (int i = 1; i <= 3; ++i) spool.add(numbered_window(i, 100));
    auto left = spool.persist_remaining();
    EXPECT_EQ(left.on_disk, 3u);
    EXPECT_EQ(left.lost, 0u);
  }
  push_spool next({1 << 20, 1 << 20, dir.file("spool")}, reports.reporter());
  EXPECT_EQ(drain(next), (std::vector<int>{1, 2, 3}));
}

TEST(FleetSpool, WithoutADirectoryWhatRemainsIsLost) {
  captured_reports reports;
  push_spool spool({1 << 20, 1 << 20, ""}, reports.reporter());
  spool.add(numbered_window(1));
  auto left = spool.persist_remaining();
  EXPECT_EQ(left.on_disk, 0u);
  EXPECT_EQ(left.lost, 1u);
}

TEST(FleetSpool, AnUnreadableFileIsNotAWindow) {
  test::temp_dir dir;
  captured_reports reports;
  std::string junk = "not a window";
  io::make_directories(dir.file("spool"));
  io::write_new_file(dir.file("spool/" + window_file(1)),
                     std::as_bytes(std::span{junk.data(), junk.size()}), 0600);
  push_spool spool({1 << 20, 1 << 20, dir.file("spool")}, reports.reporter());
  auto entry = spool.take_oldest();
  ASSERT_TRUE(entry);
  EXPECT_FALSE(spool.load(*entry));
}

// Why a spool at `dir` is refused, or "(accepted)".
std::string refusal_of(const std::string& dir) {
  try {
    push_spool spool({1 << 20, 1 << 20, dir}, [](const std::string&) {});
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(accepted)";
}

std::string fix_advice(const std::string& dir) {
  return ": whoever controls it could read the windows or plant windows sent with this run's "
         "credentials; remove it (arec makes it again, mode 0700), or make it yours alone (chown " +
         std::to_string(::geteuid()) + " " + dir + " && chmod 700 " + dir +
         "), or choose another with --push-spool";
}

TEST(FleetSpool, TheDirectoryItMakesIsPrivate) {
  test::temp_dir dir;
  std::string spool_dir = dir.file("var/spool");
  push_spool spool({0, 1 << 20, spool_dir}, [](const std::string&) {});
  spool.add(numbered_window(1));
  struct stat status {};
  ASSERT_EQ(::stat(spool_dir.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0700u);
  EXPECT_TRUE(spool.made_directory());
}

TEST(FleetSpool, ASpoolOthersMayWriteIsRefused) {
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  ASSERT_EQ(::mkdir(spool_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(spool_dir.c_str(), 0777), 0);  // as another user would leave /var/tmp/arec-push
  EXPECT_EQ(refusal_of(spool_dir), "push: the spool directory " + spool_dir +
                                       " is writable by group or others (mode 0777)" +
                                       fix_advice(spool_dir));
  ASSERT_EQ(::chmod(spool_dir.c_str(), 0700), 0);
  EXPECT_EQ(refusal_of(spool_dir), "(accepted)");
}

TEST(FleetSpool, ASpoolThatIsASymbolicLinkIsRefused) {
  test::temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("real").c_str(), 0700), 0);
  ASSERT_EQ(::symlink(dir.file("real").c_str(), dir.file("spool").c_str()), 0);
  EXPECT_EQ(refusal_of(dir.file("spool")), "push: the spool directory " + dir.file("spool") +
                                               " is a symbolic link" +
                                               fix_advice(dir.file("spool")));
  EXPECT_EQ(spool_files(dir.file("real")).size(), 0u);
}

TEST(FleetSpool, ASpoolOfAnotherUserIsRefused) {
  test::test_user other;
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  ASSERT_EQ(::mkdir(spool_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(spool_dir.c_str(), other.uid(), other.gid()), 0);
  EXPECT_EQ(refusal_of(spool_dir), "push: the spool directory " + spool_dir + " is owned by uid " +
                                       std::to_string(other.uid()) + ", not by uid " +
                                       std::to_string(::geteuid()) + " (the user running arec)" +
                                       fix_advice(spool_dir));
}

TEST(FleetSpool, WindowFilesItsUserDidNotWriteAreNeverSent) {
  test::test_user other;
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  {
    push_spool earlier({0, 1 << 20, spool_dir}, [](const std::string&) {});
    for (int i = 1; i <= 2; ++i) earlier.add(numbered_window(i));
  }
  // Planted before the directory was private: a window of another user, and a link to one.
  ASSERT_EQ(::chown((spool_dir + "/" + window_file(1)).c_str(), other.uid(), other.gid()), 0);
  ASSERT_EQ(::rename((spool_dir + "/" + window_file(2)).c_str(), dir.file("elsewhere.pb").c_str()),
            0);
  ASSERT_EQ(::symlink(dir.file("elsewhere.pb").c_str(), (spool_dir + "/" + window_file(2)).c_str()),
            0);
  captured_reports reports;
  push_spool spool({1 << 20, 1 << 20, spool_dir}, reports.reporter());
  spool.add(numbered_window(3));
  EXPECT_EQ(drain(spool), (std::vector<int>{3}));
  EXPECT_EQ(reports.matching("skipped"),
            "push: skipped 2 window file(s) in " + spool_dir +
                " that are not regular files owned "
                "by uid " +
                std::to_string(::geteuid()) +
                " (the user running arec): they are not sent; remove them\n");
}

TEST(FleetSpool, AFileSwappedAfterIndexingIsNotLoaded) {
  test::test_user other;
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  {
    push_spool earlier({0, 1 << 20, spool_dir}, [](const std::string&) {});
    earlier.add(numbered_window(1));
  }
  push_spool spool({1 << 20, 1 << 20, spool_dir}, [](const std::string&) {});
  ASSERT_EQ(::chown((spool_dir + "/" + window_file(1)).c_str(), other.uid(), other.gid()), 0);
  auto entry = spool.take_oldest();
  ASSERT_TRUE(entry);
  EXPECT_FALSE(spool.load(*entry)) << "the owner is checked on the open file";
}

TEST(FleetSpool, AFullSpoolLeavesNoTemporaryFilesAndSaysSoOnce) {
  test::temp_dir dir;
  std::string spool_dir = dir.file("spool");
  ASSERT_EQ(::mkdir(spool_dir.c_str(), 0700), 0);
  std::string before = test::mount_table();
  // A tmpfs of 16 KiB on the spool, in a private mount namespace: the host never sees it.
  auto child = test::run_forked([&](std::string& report) {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", spool_dir.c_str(), "tmpfs", 0, "size=16k,mode=0700") != 0) {
      report = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
      return test::cannot_run_here;
    }
    captured_reports reports;
    push_spool spool({0, 1 << 20, spool_dir}, reports.reporter());
    for (int i = 1; i <= 8; ++i) spool.add(numbered_window(i, 6000));
    for (const std::string& name : spool_files(spool_dir)) report += name + "\n";
    report += "--\n" + reports.matching("cannot keep a window");
    return 0;
  });
  if (child.status == test::cannot_run_here) GTEST_SKIP() << child.text;
  ASSERT_EQ(child.status, 0) << child.text;
  std::string files = child.text.substr(0, child.text.find("--\n"));
  std::string said = child.text.substr(child.text.find("--\n") + 3);
  EXPECT_EQ(files.find(".tmp"), std::string::npos) << files;
  EXPECT_NE(files.find(window_file(1)), std::string::npos) << files;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  EXPECT_NE(said.find("No space left on device"), std::string::npos) << said;
  EXPECT_EQ(test::mount_table(), before) << "the host's mounts are as they were";
}

// Team A's windows, left by a run whose server was down, are not sent by a run pushing to team
// B's server (with the same spool): they stay for a run that pushes to A, which sends them.
TEST(FleetSpool, AWindowIsSentOnlyToTheDestinationItWasSpooledFor) {
  test::temp_dir dir;
  const std::string spool_dir = dir.file("spool");
  const std::string team_a = "pyroscope http://a/push tenant=team-a user=";
  const std::string team_b = "pyroscope http://a/push tenant=team-b user=";
  {
    push_spool a({0, 1 << 20, spool_dir, team_a}, [](const std::string&) {});
    for (int i = 1; i <= 2; ++i) a.add(numbered_window(i));
  }
  captured_reports reports;
  {
    push_spool b({0, 1 << 20, spool_dir, team_b}, reports.reporter());
    b.add(numbered_window(10));
    EXPECT_EQ(drain(b), (std::vector<int>{10}));
    EXPECT_EQ(b.counts().for_elsewhere, 2u);
    EXPECT_EQ(b.counts().delivered_earlier, 0u);
  }
  EXPECT_EQ(reports.matching("another destination"),
            "push: 2 window(s) in " + spool_dir +
                " wait for another destination (another --push URL, --push-format, "
                "--push-tenant or user): not sent by this run, left for a run that pushes there\n");
  EXPECT_EQ(spool_files(spool_dir),
            (std::vector<std::string>{window_file(1, team_a), window_file(2, team_a)}));
  push_spool a({0, 1 << 20, spool_dir, team_a}, [](const std::string&) {});
  EXPECT_EQ(drain(a), (std::vector<int>{1, 2}));
}

// An older arec named its windows window-SEQUENCE.pb and kept no destination: where they were
// meant to go is unknown, so they are never sent, only reported, and left as they are.
TEST(FleetSpool, WindowsOfAnOlderArecAreReportedAndNeverSent) {
  test::temp_dir dir;
  const std::string spool_dir = dir.file("spool");
  io::make_directories(spool_dir);
  ASSERT_EQ(::chmod(spool_dir.c_str(), 0700), 0);
  std::string bytes = encode_spooled_window(numbered_window(1));
  io::write_new_file(spool_dir + "/window-00000000000000000001.pb",
                     std::as_bytes(std::span{bytes.data(), bytes.size()}), 0600);
  captured_reports reports;
  push_spool spool({0, 1 << 20, spool_dir, "pyroscope http://b/push tenant= user="},
                   reports.reporter());
  spool.add(numbered_window(2));
  EXPECT_EQ(drain(spool), (std::vector<int>{2}));
  EXPECT_EQ(spool.counts().undirected, 1u);
  EXPECT_NE(reports.matching("spooled by an older arec"), "");
  EXPECT_EQ(spool_files(spool_dir), (std::vector<std::string>{"window-00000000000000000001.pb"}));
}

}  // namespace
}  // namespace arec::fleet
