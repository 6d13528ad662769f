// vdso_image: our own vdso is found, and its build-id read from memory is the one readelf reads
// from a copy of the same bytes.
#include "symbols/vdso_image.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

#include "support/temp_dir.hpp"

namespace arec::symbols {
namespace {

std::string readelf_build_id(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe{
      ::popen(("readelf -n " + path + " 2>/dev/null").c_str(), "r"), ::pclose};
  std::string out;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe.get()))
    out.append(buffer.data(), n);
  auto at = out.find("Build ID: ");
  if (at == std::string::npos) return {};
  return out.substr(at + 10, out.find('\n', at) - at - 10);
}

TEST(VdsoImage, OwnVdsoBuildIdMatchesReadelfOnItsBytes) {
  std::span<const std::byte> image = own_vdso_image();
  ASSERT_FALSE(image.empty()) << "no [vdso] in /proc/self/maps";
  EXPECT_EQ(image.size() % 4096, 0u);
  test::temp_dir dir;
  {
    std::ofstream out{dir.file("vdso"), std::ios::binary};
    out.write(reinterpret_cast<const char*>(image.data()),
              static_cast<std::streamsize>(image.size()));
  }
  std::optional<perf_data::build_id> id = elf_image_build_id(image);
  ASSERT_TRUE(id);
  EXPECT_EQ(id->hex(), readelf_build_id(dir.file("vdso")));
}

TEST(VdsoImage, NotElfHasNoBuildId) {
  std::array<std::byte, 128> junk{};
  EXPECT_FALSE(elf_image_build_id(junk));
  EXPECT_FALSE(elf_image_build_id({}));
}

}  // namespace
}  // namespace arec::symbols
