// trimmed: text without the blanks on either side, as perf's strim() leaves it: what arec reads
// from sysfs, /proc and perfconfig files, and what the tests read from perf's output.
#pragma once

#include <string_view>

namespace arec::base {

// `text` without leading and trailing std::isspace characters (spaces, tabs, line ends); a view
// into `text`, empty when it is all blanks.
std::string_view trimmed(std::string_view text);

}  // namespace arec::base
