// kallsyms: the lines of /proc/kallsyms (or perf's cached copy of it), read in pieces through a
// fixed buffer: the file is several megabytes and is never held whole.
#pragma once

#include <fcntl.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "io/small_file.hpp"

namespace arec::symbols {

struct kallsyms_entry {
  std::uint64_t address = 0;
  char type = 0;            // 't'/'T': text, 'w'/'W': weak ...
  std::string_view name;    // without the module
  std::string_view module;  // "ext4" for "...\t[ext4]"; empty for the kernel image
  bool is_text() const noexcept { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }
};

// "ffffffff81000000 T _text" or "ffffffffc0a01000 t ext4_foo\t[ext4]", or nullopt for a line
// that is neither.
std::optional<kallsyms_entry> parse_kallsyms_line(std::string_view line);

// Calls `each(const kallsyms_entry&)` for every well-formed line of the file at `path`; it
// returns false to stop early. False when the file cannot be opened.
template <typename Visitor>
bool for_each_kallsyms_entry(const char* path, Visitor&& each) {
  io::small_file file = io::small_file::open_at(AT_FDCWD, path);
  if (!file) return false;
  char buffer[16384];
  io::line_reader lines{file, buffer};
  while (auto line = lines.next()) {
    if (line->truncated) continue;
    if (auto entry = parse_kallsyms_line(line->text); entry && !each(*entry)) break;
  }
  return true;
}

}  // namespace arec::symbols
