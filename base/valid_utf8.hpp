// valid_utf8: text as every proto3 string field must hold it. What arec puts in a profile comes
// from processes and files others control (a comm set with prctl, a path, an ELF or perf-map
// symbol), and protobuf's parsers (Go's, C++'s) refuse a whole message for one string that is
// not UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace arec::base {

// `text` with each maximal ill-formed byte sequence replaced by U+FFFD (EF BF BD), the
// replacement the Unicode standard recommends (chapter 3, "U+FFFD Substitution of Maximal
// Subparts") and Go's strings.ToValidUTF8 and Python's errors="replace" make: overlong forms,
// surrogates and code points past U+10FFFF are ill-formed too. Valid text comes back as it is.
std::string valid_utf8(std::string_view text);

// True when `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace arec::base
