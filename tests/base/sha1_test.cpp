// sha1: FIPS 180-1's test vectors, whole and fed in pieces across block boundaries.
#include "base/sha1.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace arec::base {
namespace {

std::string hex_digest(std::string_view text, std::size_t piece = 0) {
  base::sha1 hash;
  if (piece == 0) piece = text.empty() ? 1 : text.size();
  for (std::size_t at = 0; at < text.size(); at += piece) {
    std::string_view part = text.substr(at, piece);
    hash.add({reinterpret_cast<const std::byte*>(part.data()), part.size()});
  }
  sha1::digest digest = hash.finish();
  std::string hex;
  for (std::uint8_t byte : digest) {
    hex += "0123456789abcdef"[byte >> 4];
    hex += "0123456789abcdef"[byte & 15];
  }
  return hex;
}

TEST(Sha1, MatchesTheStandardsVectors) {
  EXPECT_EQ(hex_digest(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex_digest("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(hex_digest(two_blocks), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(hex_digest(two_blocks, 7), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(hex_digest(std::string(1000000, 'a'), 4096),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

}  // namespace
}  // namespace arec::base
