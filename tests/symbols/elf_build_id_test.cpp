// elf_build_id: the build-id read with libelf matches readelf -n, for a binary built here; raw
// note blobs (as sysfs exposes them) parse to the same bytes.
#include "symbols/elf_build_id.hpp"

#include <stdlib.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace arec::symbols {
namespace {

// Runs a shell command and returns its stdout.
std::string output_of(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe{::popen(command.c_str(), "r"), ::pclose};
  std::string out;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe.get()))
    out.append(buffer.data(), n);
  return out;
}

std::string readelf_build_id(const std::string& path) {
  std::string out = output_of("readelf -n " + path + " 2>/dev/null");
  auto at = out.find("Build ID: ");
  if (at == std::string::npos) return {};
  return out.substr(at + 10, out.find('\n', at) - at - 10);
}

class built_binary : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(dir_.file("main.c")) << "int main(void) { return 0; }\n"; }
  // Builds main.c with `flags`; skips the test when no C compiler works.
  std::string build(const std::string& output, const std::string& flags) {
    std::string path = dir_.file(output);
    int status = std::system(("cc " + flags + " -o " + path + " " + dir_.file("main.c")).c_str());
    if (status != 0) return {};
    return path;
  }
  test::temp_dir dir_;
};

TEST_F(built_binary, Sha1BuildIdMatchesReadelf) {
  std::string binary = build("sha1", "-Wl,--build-id=sha1");
  if (binary.empty()) GTEST_SKIP() << "cc failed";
  std::string expected = readelf_build_id(binary);
  ASSERT_EQ(expected.size(), 40u);
  auto id = read_elf_build_id(binary.c_str());
  ASSERT_TRUE(id);
  EXPECT_EQ(id->size, 20);
  EXPECT_EQ(id->hex(), expected);
}

TEST_F(built_binary, ShortMd5BuildIdKeepsItsSize) {
  std::string binary = build("md5", "-Wl,--build-id=md5");
  if (binary.empty()) GTEST_SKIP() << "cc failed";
  std::string expected = readelf_build_id(binary);
  ASSERT_EQ(expected.size(), 32u);
  auto id = read_elf_build_id(binary.c_str());
  ASSERT_TRUE(id);
  EXPECT_EQ(id->size, 16);
  EXPECT_EQ(id->hex(), expected);
}

TEST_F(built_binary, StrippedSectionHeadersStillYieldTheBuildIdFromProgramHeaders) {
  std::string binary = build("nosections", "-Wl,--build-id=sha1");
  if (binary.empty()) GTEST_SKIP() << "cc failed";
  std::string expected = readelf_build_id(binary);
  // Zero e_shoff/e_shnum/e_shstrndx: no section headers left, only PT_NOTE.
  {
    std::fstream file(binary, std::ios::in | std::ios::out | std::ios::binary);
    const char zeros[8] = {};
    file.seekp(0x28);  // e_shoff in Elf64_Ehdr
    file.write(zeros, 8);
    file.seekp(0x3c);  // e_shnum, e_shstrndx
    file.write(zeros, 4);
  }
  auto id = read_elf_build_id(binary.c_str());
  ASSERT_TRUE(id);
  EXPECT_EQ(id->hex(), expected);
}

TEST_F(built_binary, NoBuildIdIsNullopt) {
  std::string binary = build("none", "-Wl,--build-id=none");
  if (binary.empty()) GTEST_SKIP() << "cc failed";
  EXPECT_FALSE(read_elf_build_id(binary.c_str()));
  EXPECT_FALSE(read_elf_build_id(dir_.file("main.c").c_str())) << "not ELF";
  EXPECT_FALSE(read_elf_build_id(dir_.file("missing").c_str()));
}

std::vector<std::byte> note(std::uint32_t type, std::string_view name,
                            std::vector<std::uint8_t> desc) {
  std::vector<std::byte> out;
  auto put32 = [&](std::uint32_t v) {
    auto* p = reinterpret_cast<const std::byte*>(&v);
    out.insert(out.end(), p, p + 4);
  };
  put32(static_cast<std::uint32_t>(name.size() + 1));
  put32(static_cast<std::uint32_t>(desc.size()));
  put32(type);
  for (char c : name) out.push_back(std::byte(c));
  out.push_back(std::byte{0});
  while (out.size() % 4) out.push_back(std::byte{0});
  for (auto b : desc) out.push_back(std::byte(b));
  while (out.size() % 4) out.push_back(std::byte{0});
  return out;
}

TEST(BuildIdNotes, FindsTheGnuBuildIdAfterOtherNotes) {
  std::vector<std::byte> blob = note(1, "Xen", {1, 2, 3, 4, 5});
  std::vector<std::byte> gnu_other = note(1, "GNU", {9, 9, 9, 9});  // NT_GNU_ABI_TAG
  blob.insert(blob.end(), gnu_other.begin(), gnu_other.end());
  std::vector<std::byte> build = note(3, "GNU", {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02});
  blob.insert(blob.end(), build.begin(), build.end());
  auto id = parse_build_id_notes(blob);
  ASSERT_TRUE(id);
  EXPECT_EQ(id->hex(), "deadbeef0102");
  EXPECT_FALSE(parse_build_id_notes(std::span{blob}.first(blob.size() - 4))) << "truncated";
}

TEST(BuildIdNotes, RunningKernelNotesMatchPerf) {
  auto id = read_notes_file_build_id("/sys/kernel/notes");
  if (!id) GTEST_SKIP() << "/sys/kernel/notes holds no build-id here";
  std::string perf = output_of("perf buildid-list -k 2>/dev/null");
  if (perf.empty()) GTEST_SKIP() << "perf buildid-list -k printed nothing";
  EXPECT_EQ(id->hex() + "\n", perf);
}

}  // namespace
}  // namespace arec::symbols
