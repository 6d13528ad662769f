// messages: how the recorder speaks to the user on stderr (nothing with -q).
#pragma once

#include <cstdio>
#include <string>

#include "record/record_options.hpp"

namespace arec::record {

inline void say(const record_options& options, const std::string& line) {
  if (!options.quiet) std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace arec::record
