// jit_lines: the source lines a jitdump's DEBUG_INFO record gives the code of the CODE_LOAD after
// it (file and line by address), for the pprof and OTLP lines of JIT frames. V8 writes each
// address 0x40 bytes past the instruction's (its kElfHeaderSize, for the text offset of perf
// inject's ELF of its time): read back where it applies (docs/symbols.md, "Source lines of JIT code").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arec::symbols {

struct jit_source_line {
  std::string_view file;
  std::uint32_t line = 0;
};

class jit_line_table {
 public:
  // The entries of one DEBUG_INFO record (`entries`: its bytes after code_addr and nr_entry,
  // at most `count` of them) for the `code_size` bytes of code loaded at `code_start` with
  // `name`, in the dump's byte order (`swapped`: the other one). An entry cut short ends the
  // table; one with line 0 or no file is passed over. A record with an entry no runtime
  // writes (an address outside the code, a file name with control characters, a line past
  // ten million) gives no lines at all: node 20 writes some whose file name is a few bytes of
  // garbage and whose later entries are misaligned.
  jit_line_table(std::span<const std::byte> entries, std::uint64_t count, bool swapped,
                 std::uint64_t code_start, std::uint64_t code_size, std::string_view name);

  // The line of the instruction `offset` bytes into the code: the entry with the highest
  // address at or before it; nullopt before the first.
  std::optional<jit_source_line> at(std::uint64_t offset) const;
  std::size_t size() const noexcept { return rows_.size(); }

 private:
  struct row {
    std::uint64_t offset;
    std::uint32_t line;
    std::uint32_t file;  // index into files_
  };
  std::vector<row> rows_;  // by offset
  std::vector<std::string> files_;
};

}  // namespace arec::symbols
