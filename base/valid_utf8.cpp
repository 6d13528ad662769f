#include "base/valid_utf8.hpp"

#include <cstddef>

namespace arec::base {
namespace {

// The length of the well-formed sequence at `text[at]` (1 to 4), or 0 when it is ill-formed;
// `*maximal` is then the length of its maximal subpart (at least 1): the bytes one U+FFFD
// replaces. Table 3-7 of the Unicode standard: the second byte's range depends on the first.
std::size_t sequence_at(std::string_view text, std::size_t at, std::size_t* maximal) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char first = byte(at);
  *maximal = 1;
  if (first < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) {
    length = 2;
  } else if (first >= 0xe0 && first <= 0xef) {
    length = 3;
    if (first == 0xe0) low = 0xa0;   // no overlong form
    if (first == 0xed) high = 0x9f;  // no surrogate
  } else if (first >= 0xf0 && first <= 0xf4) {
    length = 4;
    if (first == 0xf0) low = 0x90;   // no overlong form
    if (first == 0xf4) high = 0x8f;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (at + i >= text.size()) return 0;
    unsigned char next = byte(at + i);
    if (next < (i == 1 ? low : 0x80) || next > (i == 1 ? high : 0xbf)) return 0;
    *maximal = i + 1;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t maximal = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = sequence_at(text, at, &maximal);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string valid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  std::size_t maximal = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = sequence_at(text, at, &maximal);
    if (length == 0) {
      out += "\xef\xbf\xbd";
      at += maximal;
    } else {
      out.append(text.substr(at, length));
      at += length;
    }
  }
  return out;
}

}  // namespace arec::base
