#include "record/synthesis/build_id_table.hpp"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"
#include "symbols/elf_build_id.hpp"

namespace arec::record {
namespace {

std::string own_executable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

model::dso_id identity_of(const std::string& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
  return {.major = major(status.st_dev), .minor = minor(status.st_dev), .inode = status.st_ino};
}

// No process maps the file any more (no place): only its path is left to read it by.
std::shared_ptr<model::dso> add_gone(model::machine& machine, const std::string& name,
                                     const model::dso_id& id) {
  auto object = machine.objects().find_or_add(name, id, model::dso_kind::user);
  object->mark_sampled();
  return object;
}

const perf_data::build_id_entry* entry_for(const std::vector<perf_data::build_id_entry>& entries,
                                           const std::string& name) {
  for (const perf_data::build_id_entry& entry : entries)
    if (entry.filename == name) return &entry;
  return nullptr;
}

TEST(BuildIdTable, AFileGoneBeforeItWasReadWhosePathHoldsAnotherFileGetsTheUnreadMarker) {
  test::temp_dir dir;
  const std::string mapped = dir.file("mapped"), now_at_path = own_executable();
  std::ofstream{mapped} << "the file that ran";
  model::machine machine;
  add_gone(machine, now_at_path, identity_of(mapped));  // same device, another inode
  std::vector<perf_data::build_id_entry> entries = collect_build_ids(machine);
  const perf_data::build_id_entry* entry = entry_for(entries, now_at_path);
  ASSERT_NE(entry, nullptr) << "no entry: perf would read the file at the path";
  EXPECT_TRUE(entry->id.is_of_unread_file()) << entry->id.hex();
  EXPECT_EQ(unread_sampled_files(machine),
            (std::vector<unread_file>{{.name = now_at_path, .unread = 1, .files = 1}}));
}

TEST(BuildIdTable, AFileGoneBeforeItWasReadWhosePathStillHoldsItIsReadByItsPath) {
  const std::string path = own_executable();
  std::optional<perf_data::build_id> expected = symbols::read_elf_build_id(path.c_str());
  ASSERT_TRUE(expected) << path << " has no build-id";
  model::machine machine;
  add_gone(machine, path, identity_of(path));
  std::vector<perf_data::build_id_entry> entries = collect_build_ids(machine);
  const perf_data::build_id_entry* entry = entry_for(entries, path);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->id, *expected);
  EXPECT_TRUE(unread_sampled_files(machine).empty());
}

TEST(BuildIdTable, APathWithABuildIdReadFromAnotherMappingGetsNoUnreadMarker) {
  test::temp_dir dir;
  const std::string mapped = dir.file("mapped"), path = own_executable();
  std::ofstream{mapped} << "a container's file at the host's path";
  model::machine machine;
  add_gone(machine, path, identity_of(path));    // the host's file, read
  add_gone(machine, path, identity_of(mapped));  // another file at the same path, unread
  std::vector<perf_data::build_id_entry> entries = collect_build_ids(machine);
  std::size_t for_path = 0;
  for (const perf_data::build_id_entry& entry : entries)
    if (entry.filename == path) {
      ++for_path;
      EXPECT_FALSE(entry.id.is_of_unread_file());
    }
  EXPECT_EQ(for_path, 1u);
  EXPECT_EQ(unread_sampled_files(machine),
            (std::vector<unread_file>{{.name = path, .unread = 1, .files = 2}}));
}

// A file lives on one device: a path on a plain file system (tmpfs here) whose device is not the
// mapping's holds another file, however its inode compares.
TEST(BuildIdTable, APathOnAnotherDeviceOfAPlainFileSystemIsAnotherFile) {
  struct statfs shm {};
  ASSERT_EQ(::statfs("/dev/shm", &shm), 0);
  ASSERT_EQ(shm.f_type, TMPFS_MAGIC) << "/dev/shm is not a tmpfs";
  test::temp_dir dir;
  const std::string copy = "/dev/shm/arec-build-id-table-" + std::to_string(::getpid());
  std::filesystem::copy_file(own_executable(), copy);
  model::dso_id elsewhere = identity_of(copy);
  elsewhere.major ^= 1;  // the same inode number on another device
  model::machine machine;
  add_gone(machine, copy, elsewhere);
  std::vector<perf_data::build_id_entry> entries = collect_build_ids(machine);
  std::filesystem::remove(copy);
  const perf_data::build_id_entry* entry = entry_for(entries, copy);
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->id.is_of_unread_file()) << entry->id.hex();
}

TEST(BuildIdTable, AFileWithoutBuildIdThatWasReadGetsNoEntry) {
  test::temp_dir dir;
  const std::string path = dir.file("not-elf");
  std::ofstream{path} << "no ELF here";
  model::machine machine;
  add_gone(machine, path, identity_of(path));
  EXPECT_EQ(entry_for(collect_build_ids(machine), path), nullptr)
      << "perf would refuse the right file for want of a build-id";
}

}  // namespace
}  // namespace arec::record
