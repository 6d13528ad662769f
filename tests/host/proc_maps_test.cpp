#include "host/proc_maps.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using arec::host::decode_maps_path;
using arec::host::maps_entry;
using arec::host::maps_reader;
using arec::host::parse_maps_line;
using arec::io::small_file;

namespace {

std::string fixture_path(const char* name) {
  return std::string{AREC_TEST_SOURCE_DIR} + "/fixtures/proc/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Entries copied out of the reader, so they outlive its buffer.
struct owned_entry {
  maps_entry entry;
  std::string path;
};

std::vector<owned_entry> read_all(const std::string& path, std::size_t buffer_size) {
  small_file file = small_file::open_at(AT_FDCWD, path.c_str());
  EXPECT_TRUE(file) << path;
  std::vector<char> buffer(buffer_size);
  maps_reader reader{file, buffer};
  std::vector<owned_entry> entries;
  while (auto entry = reader.next()) entries.push_back({*entry, std::string{entry->path}});
  EXPECT_FALSE(reader.gone());
  return entries;
}

// A scratch file removed at the end.
struct temp_file {
  std::string path = "/tmp/arec_maps_" + std::to_string(::getpid());
  ~temp_file() { std::remove(path.c_str()); }
};

}  // namespace

TEST(ProcMaps, ParsesEveryFieldOfAFileMapping) {
  auto entry = parse_maps_line(
      "7f080bce5000-7f080be3b000 r-xp 00026000 fe:00 332835                     "
      "/usr/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->start, 0x7f080bce5000u);
  EXPECT_EQ(entry->end, 0x7f080be3b000u);
  EXPECT_EQ(entry->prot, static_cast<std::uint32_t>(PROT_READ | PROT_EXEC));
  EXPECT_FALSE(entry->shared);
  EXPECT_EQ(entry->pgoff, 0x26000u);
  EXPECT_EQ(entry->major, 0xfeu);
  EXPECT_EQ(entry->minor, 0u);
  EXPECT_EQ(entry->inode, 332835u);
  EXPECT_EQ(entry->path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(ProcMaps, StrangeNamesPassThroughIntact) {
  auto entries = read_all(fixture_path("maps_strange"), 8192);
  ASSERT_EQ(entries.size(), 13u);
  EXPECT_EQ(entries[0].path, "/tmp/esc/a b\\012c\\d");
  EXPECT_EQ(entries[2].path, "[heap]");
  EXPECT_EQ(entries[3].path, "") << "anonymous, with the kernel's trailing space";
  EXPECT_EQ(entries[3].entry.prot, static_cast<std::uint32_t>(PROT_READ | PROT_WRITE));
  EXPECT_TRUE(entries[5].entry.shared);
  EXPECT_EQ(entries[6].path, "/home/user/my lib  (v2).so (deleted)");
  EXPECT_EQ(entries[6].entry.major, 0x103u);
  EXPECT_EQ(entries[6].entry.minor, 5u);
  EXPECT_EQ(entries[6].entry.inode, 4294967295u);
  EXPECT_EQ(entries[7].path, "/memfd:jit code (deleted)");
  EXPECT_TRUE(entries[7].entry.shared);
  EXPECT_EQ(entries[8].path, "[anon:jit stubs]");
  EXPECT_EQ(entries[9].path, read_text(fixture_path("long_path.txt")));
  EXPECT_FALSE(entries[9].entry.path_truncated);
  EXPECT_EQ(entries[10].path, "[stack]");
  EXPECT_EQ(entries[11].path, "[vdso]");
  EXPECT_EQ(entries[12].path, "[vsyscall]");
  EXPECT_EQ(entries[12].entry.start, 0xffffffffff600000u);
  EXPECT_EQ(entries[12].entry.prot, static_cast<std::uint32_t>(PROT_EXEC));
}

TEST(ProcMaps, TinyBufferLosesNoLineAtPieceBoundaries) {
  // 200 bytes is smaller than the long-path line but larger than every other line.
  auto whole = read_all(fixture_path("maps_strange"), 8192);
  auto pieces = read_all(fixture_path("maps_strange"), 200);
  ASSERT_EQ(pieces.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i == 9) {
      EXPECT_TRUE(pieces[i].entry.path_truncated);
      EXPECT_TRUE(whole[i].path.starts_with(pieces[i].path));
      continue;
    }
    EXPECT_EQ(pieces[i].path, whole[i].path) << i;
    EXPECT_EQ(pieces[i].entry.start, whole[i].entry.start) << i;
  }
}

TEST(ProcMaps, HugeMapsFileIsParsedCompletely) {
  temp_file file;
  constexpr int count = 20000;
  {
    std::ofstream out{file.path};
    for (int i = 0; i < count; ++i) {
      char line[256];
      std::snprintf(
          line, sizeof line,
          "%012x-%012x r-xp %08x fd:01 %d                     /usr/lib/lib number %d.so\n",
          0x10000 * i, 0x10000 * i + 0x1000, i * 0x1000, i, i);
      out << line;
    }
  }
  ASSERT_GT(read_text(file.path).size(), 1u << 20);
  auto entries = read_all(file.path, 4096 + 256);
  ASSERT_EQ(entries.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    ASSERT_EQ(entries[i].entry.start, 0x10000u * i);
    ASSERT_EQ(entries[i].entry.inode, static_cast<std::uint64_t>(i));
    ASSERT_EQ(entries[i].path, "/usr/lib/lib number " + std::to_string(i) + ".so");
  }
}

TEST(ProcMaps, RejectsLinesThatAreNotMappings) {
  EXPECT_FALSE(parse_maps_line("").has_value());
  EXPECT_FALSE(parse_maps_line("garbage").has_value());
  EXPECT_FALSE(parse_maps_line("1000-2000 rwzp 00000000 00:00 0").has_value());
  EXPECT_FALSE(parse_maps_line("1000-2000 r-xq 00000000 00:00 0").has_value());
  EXPECT_FALSE(parse_maps_line("1000-2000 r-xp 00000000 00:00").has_value());
  auto bare = parse_maps_line("1000-2000 r-xp 00000000 00:00 0");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->path, "");
}

TEST(ProcMaps, DecodesTheKernelsNewlineEscape) {
  char out[32];
  auto size = decode_maps_path("/tmp/a b\\012c\\d", out);
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ((std::string_view{out, *size}), "/tmp/a b\nc\\d");
  char small[4];
  EXPECT_FALSE(decode_maps_path("/tmp/x", small).has_value());
}

TEST(ProcMaps, OwnMapsShowTheTestBinaryExecutable) {
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe);
  ASSERT_GT(n, 0);
  auto entries = read_all("/proc/self/maps", 8192);
  bool found = false;
  for (const auto& e : entries)
    found = found || (e.path == std::string_view{exe, static_cast<std::size_t>(n)} &&
                      (e.entry.prot & PROT_EXEC));
  EXPECT_TRUE(found);
}
