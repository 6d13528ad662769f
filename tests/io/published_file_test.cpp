#include "io/published_file.hpp"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "support/forked.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

constexpr publish_policy all_policies[] = {publish_policy::new_only, publish_policy::replace,
                                           publish_policy::replace_durably};

void put(int fd, const std::string& text) {
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

std::string text_of(const std::string& path) {
  unique_fd fd = unique_fd::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::string text(4096, '\0');
  ssize_t n = ::pread(fd.get(), text.data(), text.size(), 0);
  text.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return text;
}

void write_text(const std::string& path, const std::string& text) {
  unique_fd fd = unique_fd::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  put(fd.get(), text);
}

// The names in `dir`, sorted.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool exists(const std::string& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0;
}

// Makes this process a file system without unnamed files (openat with O_TMPFILE fails with
// EOPNOTSUPP, as on NFS or FUSE) and, with `no_noreplace`, without RENAME_NOREPLACE (renameat2
// fails with EINVAL). For a forked child only: a seccomp filter cannot be removed.
bool refuse_unnamed_files(bool no_noreplace, std::string& report) {
  // The kernel's bit alone: glibc's __O_TMPFILE includes O_DIRECTORY, which opendir sets.
  constexpr std::uint32_t kernel_o_tmpfile = 020000000;
  constexpr unsigned flags_low = offsetof(struct seccomp_data, args) + 2 * sizeof(std::uint64_t);
  std::uint32_t renameat2 =
      no_noreplace ? SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA) : SECCOMP_RET_ALLOW;
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_renameat2, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, renameat2),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, flags_low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kernel_o_tmpfile, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EOPNOTSUPP & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0)
    return true;
  report = std::string("seccomp: ") + std::strerror(errno);
  return false;
}

// Without O_TMPFILE, new_only publishes a hidden temporary and never replaces what is there.
int publish_new_only_without_unnamed_files(const test::temp_dir& dir, std::string& report) {
  std::string path = dir.file("perf.data");
  published_file first(path, publish_policy::new_only);
  put(first.fd(), "first");
  std::vector<std::string> names = names_in(dir.path());
  if (names.size() != 1 || !is_publish_temporary(names.front()))
    return (report = "before commit: " + (names.empty() ? "nothing" : names.front())), 1;
  first.commit();
  if (text_of(path) != "first" || names_in(dir.path()) != std::vector<std::string>{"perf.data"})
    return (report = "after commit: " + text_of(path)), 1;
  try {
    published_file second(path, publish_policy::new_only);
    put(second.fd(), "second");
    second.commit();
    return (report = "published over an existing file"), 1;
  } catch (const std::system_error& error) {
    if (std::string(error.what()) != "create " + path + ": File exists")
      return (report = error.what()), 1;
  }
  if (text_of(path) != "first" || names_in(dir.path()) != std::vector<std::string>{"perf.data"})
    return (report = "the second publisher changed the directory"), 1;
  return 0;
}

TEST(PublishedFile, EveryPolicyShowsNothingAtTheDestinationUntilCommitThenAllOfIt) {
  for (publish_policy policy : all_policies) {
    test::temp_dir dir;
    std::string path = dir.file("out");
    published_file file(path, policy);
    put(file.fd(), "PERFILE2");
    EXPECT_FALSE(exists(path));
    file.commit();
    EXPECT_TRUE(file.committed());
    EXPECT_EQ(text_of(path), "PERFILE2");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
    struct stat status {};
    ASSERT_EQ(::stat(path.c_str(), &status), 0);
    EXPECT_EQ(status.st_mode & 0777, 0600u);
    // The descriptor goes on writing into the named file (a recording's header file does).
    put(file.fd(), "more");
    EXPECT_EQ(text_of(path), "PERFILE2more");
  }
}

TEST(PublishedFile, DestroyedWithoutCommitLeavesNoFileUnderAnyPolicy) {
  for (publish_policy policy : all_policies) {
    test::temp_dir dir;
    {
      published_file file(dir.file("out"), policy);
      put(file.fd(), "half");
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  }
}

TEST(PublishedFile, AnExceptionBeforeCommitLeavesTheOldDestinationAndNoTemporary) {
  for (publish_policy policy : {publish_policy::replace, publish_policy::replace_durably}) {
    test::temp_dir dir;
    write_text(dir.file("out"), "old");
    try {
      published_file file(dir.file("out"), policy);
      put(file.fd(), "half of the new");
      throw std::runtime_error("disk full");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(text_of(dir.file("out")), "old");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
  }
}

TEST(PublishedFile, NewOnlyKeepsAnExistingDestinationWithAClearError) {
  test::temp_dir dir;
  std::string path = dir.file("out");
  published_file file(path, publish_policy::new_only);
  put(file.fd(), "new");
  write_text(path, "there first");
  try {
    file.commit();
    ADD_FAILURE() << "published over an existing file";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::file_exists);
    EXPECT_EQ(std::string(error.what()), "create " + path + ": File exists");
  }
  EXPECT_FALSE(file.committed());
  EXPECT_EQ(text_of(path), "there first");
}

TEST(PublishedFile, NewOnlyNeverFollowsAPlantedSymlink) {
  test::temp_dir dir;
  std::string path = dir.file("out");
  published_file file(path, publish_policy::new_only);
  ASSERT_EQ(::symlink(dir.file("target").c_str(), path.c_str()), 0);
  EXPECT_THROW(file.commit(), std::system_error);
  EXPECT_FALSE(exists(dir.file("target")));
}

TEST(PublishedFile, ReplaceRenamesOverAnExistingDestination) {
  for (publish_policy policy : {publish_policy::replace, publish_policy::replace_durably}) {
    test::temp_dir dir;
    std::string path = dir.file("out");
    write_text(path, "old contents");
    published_file file(path, policy);
    put(file.fd(), "new");
    EXPECT_EQ(text_of(path), "old contents");
    file.commit();
    EXPECT_EQ(text_of(path), "new");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
  }
}

TEST(PublishedFile, ReplaceDurablyThroughADirectoryFdIsVisibleAndComplete) {
  test::temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("spool").c_str(), 0700), 0);
  unique_fd spool = unique_fd::open(dir.file("spool").c_str(), O_RDONLY | O_DIRECTORY);
  std::string window(100000, 'w');
  published_file file(spool.get(), "window.pb", dir.file("spool/window.pb"),
                      publish_policy::replace_durably);
  put(file.fd(), window);
  file.commit();
  struct stat status {};
  ASSERT_EQ(::stat(dir.file("spool/window.pb").c_str(), &status), 0);
  EXPECT_EQ(status.st_size, 100000);
  EXPECT_EQ(names_in(dir.file("spool")), std::vector<std::string>{"window.pb"});
}

// The directory fd, not its path: a directory renamed (or swapped) meanwhile gets the file.
TEST(PublishedFile, ADirectoryFdVariantWritesIntoThatDirectoryWhateverItsPathHoldsNow) {
  for (publish_policy policy : all_policies) {
    test::temp_dir dir;
    ASSERT_EQ(::mkdir(dir.file("cache").c_str(), 0700), 0);
    unique_fd cache = unique_fd::open(dir.file("cache").c_str(), O_RDONLY | O_DIRECTORY);
    published_file file(cache.get(), "elf", "cache/elf", policy, 0644);
    put(file.fd(), "ELF");
    ASSERT_EQ(::rename(dir.file("cache").c_str(), dir.file("moved").c_str()), 0);
    ASSERT_EQ(::mkdir(dir.file("cache").c_str(), 0700), 0);
    file.commit();
    EXPECT_EQ(text_of(dir.file("moved/elf")), "ELF");
    EXPECT_TRUE(std::filesystem::is_empty(dir.file("cache")));
  }
}

TEST(PublishedFile, TwoPublishersOfOneDestinationNeverSeeEachOthersTemporary) {
  for (publish_policy policy : {publish_policy::replace, publish_policy::replace_durably}) {
    test::temp_dir dir;
    std::string path = dir.file("out.pb.gz");
    published_file first(path, policy);
    published_file second(path, policy);
    put(first.fd(), "first export");
    put(second.fd(), "second export, longer");
    first.commit();
    EXPECT_EQ(text_of(path), "first export");
    second.commit();
    EXPECT_EQ(text_of(path), "second export, longer");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.pb.gz"});
  }
  test::temp_dir dir;
  std::string path = dir.file("perf.data");
  published_file first(path, publish_policy::new_only);
  published_file second(path, publish_policy::new_only);
  put(first.fd(), "first");
  put(second.fd(), "second");
  first.commit();
  EXPECT_THROW(second.commit(), std::system_error);
  EXPECT_EQ(text_of(path), "first");
}

TEST(PublishedFile, AMovedFileIsCommittedOrRemovedOnceByItsNewOwner) {
  test::temp_dir dir;
  published_file moved = [&] {
    published_file file(dir.file("out"), publish_policy::replace);
    put(file.fd(), "moved");
    return file;
  }();
  EXPECT_FALSE(exists(dir.file("out")));
  published_file owner(std::move(moved));
  owner.commit();
  EXPECT_EQ(text_of(dir.file("out")), "moved");
}

TEST(PublishedFile, CreatingInAMissingDirectoryFailsNamingTheDestination) {
  for (publish_policy policy : all_policies) {
    try {
      published_file file("/nonexistent-arec-dir/out.data", policy);
      ADD_FAILURE() << "created";
    } catch (const std::system_error& error) {
      EXPECT_EQ(std::string(error.what()),
                "create /nonexistent-arec-dir/out.data: No such file or directory");
    }
  }
}

TEST(PublishedFile, LinkExistingGivesAnOpenFileANewNameOnlyWhenNothingIsThere) {
  test::temp_dir dir;
  write_text(dir.file("library.so"), "ELF library");
  unique_fd library = unique_fd::open(dir.file("library.so").c_str(), O_RDONLY);
  // Its path now holds another file: the open one is linked.
  ASSERT_EQ(::rename(dir.file("library.so").c_str(), dir.file("old.so").c_str()), 0);
  write_text(dir.file("library.so"), "replaced");
  EXPECT_TRUE(published_file::link_existing(library.get(), AT_FDCWD, dir.file("elf"), "elf"));
  EXPECT_EQ(text_of(dir.file("elf")), "ELF library");
  try {
    published_file::link_existing(library.get(), AT_FDCWD, dir.file("elf"), "cache/elf");
    ADD_FAILURE() << "linked over an existing file";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()), "create cache/elf: File exists");
  }
}

TEST(PublishedFile, NewOnlyWithoutUnnamedFilesUsesAHiddenTemporaryAndNeverReplaces) {
  for (bool no_noreplace : {false, true}) {
    test::temp_dir dir;
    test::forked_result child = test::run_forked([&](std::string& report) {
      if (!refuse_unnamed_files(no_noreplace, report)) return test::cannot_run_here;
      return publish_new_only_without_unnamed_files(dir, report);
    });
    if (child.status == test::cannot_run_here) GTEST_SKIP() << child.text;
    EXPECT_EQ(child.status, 0) << (no_noreplace ? "without RENAME_NOREPLACE: " : "") << child.text;
  }
}

TEST(PublishedFile, ItsTemporariesAreRecognisedForCleanUp) {
  test::temp_dir dir;
  published_file file(dir.file("window.pb"), publish_policy::replace);
  std::vector<std::string> names = names_in(dir.path());
  ASSERT_EQ(names.size(), 1u);
  EXPECT_TRUE(is_publish_temporary(names.front())) << names.front();
  EXPECT_TRUE(is_publish_temporary(".window-00000000000000000004.pb.tmp"));  // older arec
  EXPECT_FALSE(is_publish_temporary("window-00000000000000000004.pb"));
}

}  // namespace
}  // namespace arec::io

namespace arec::io {
namespace {

// A character device like the one -o /dev/null names, made in the test's own directory (a
// copy of /dev/null's node: root may make one, and CI runs as root).
std::string null_device_in(const test::temp_dir& dir) {
  std::string path = dir.file("null");
  EXPECT_EQ(::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0) << std::strerror(errno);
  return path;
}

TEST(PublishedFileOnADevice, ACharacterDeviceIsWrittenIntoAndStaysADeviceUnderEveryPolicy) {
  for (publish_policy policy :
       {publish_policy::new_only, publish_policy::replace, publish_policy::replace_durably}) {
    test::temp_dir dir;
    std::string device = null_device_in(dir);
    {
      published_file file(device, policy);
      ASSERT_EQ(::write(file.fd(), "PERFILE2", 8), 8);
      file.commit();
    }
    struct stat status {};
    ASSERT_EQ(::lstat(device.c_str(), &status), 0);
    EXPECT_TRUE(S_ISCHR(status.st_mode)) << "the device was replaced by a file";
    EXPECT_EQ(status.st_rdev, ::makedev(1, 3));
    EXPECT_EQ(std::filesystem::directory_iterator(dir.path())->path(), device)
        << "a temporary was left beside the device";
  }
}

TEST(PublishedFileOnADevice, AFifoIsWrittenIntoForItsReader) {
  test::temp_dir dir;
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  unique_fd reader{::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  ASSERT_TRUE(reader);
  published_file file(fifo, publish_policy::replace);
  ASSERT_EQ(::write(file.fd(), "profile", 7), 7);
  file.commit();
  char got[8] = {};
  EXPECT_EQ(::read(reader.get(), got, sizeof got), 7);
  EXPECT_STREQ(got, "profile");
  struct stat status {};
  ASSERT_EQ(::lstat(fifo.c_str(), &status), 0);
  EXPECT_TRUE(S_ISFIFO(status.st_mode));
}

TEST(PublishedFileOnADevice, ASocketIsRefusedNamingIt) {
  test::temp_dir dir;
  std::string path = dir.file("socket");
  unique_fd listening{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listening.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  try {
    published_file file(path, publish_policy::replace);
    ADD_FAILURE() << "wrote over a socket";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "create " + path + ": a socket is there, and arec writes neither over it nor into it: " +
                  std::strerror(EEXIST));
  }
}

}  // namespace
}  // namespace arec::io
