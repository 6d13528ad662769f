// proc_maps: the lines of /proc/<pid>/maps as values, parsed in place with string_view so that
// scanning every process's mappings allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "io/small_file.hpp"

namespace arec::host {

// One mapping: "55bd...000-55bd...000 r-xp 00002000 fe:00 10953317      /usr/bin/cat".
struct maps_entry {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t prot = 0;  // PROT_READ | PROT_WRITE | PROT_EXEC from "rwx"
  bool shared = false;     // 's' rather than 'p'
  std::uint64_t pgoff = 0;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t inode = 0;
  // The name as the kernel prints it, empty for anonymous memory; "[heap]", "[vdso]" and
  // "... (deleted)" pass through. The kernel escapes '\n' in file names as "\012"
  // (decode_maps_path undoes that). Points into the caller's buffer.
  std::string_view path;
  bool path_truncated = false;  // the line did not fit the buffer; `path` is its beginning
};

// Parses one line (without its '\n'). Returns nullopt for a line that is not a mapping.
std::optional<maps_entry> parse_maps_line(std::string_view line);

// Decodes a maps path into `out` ("\012" becomes '\n'; the kernel escapes nothing else, so a
// file whose name literally contains "\012" cannot be told apart). Returns the decoded length,
// or nullopt if it does not fit. Does not NUL-terminate.
std::optional<std::size_t> decode_maps_path(std::string_view path, std::span<char> out);

// Reads a whole maps file through a fixed buffer, in pieces, without losing a line.
class maps_reader {
 public:
  // `file` must be open and outlive the reader; `buffer` should hold a maximal line
  // (PATH_MAX plus ~100 bytes); longer lines come back with path_truncated.
  maps_reader(io::small_file& file, std::span<char> buffer) noexcept : lines_(file, buffer) {}

  // The next mapping, or nullopt at end of file or when the task vanished (gone()). Lines that
  // are not mappings are skipped. The entry's path is valid until the next call.
  std::optional<maps_entry> next();

  bool gone() const noexcept { return lines_.gone(); }

 private:
  io::line_reader lines_;
};

}  // namespace arec::host
