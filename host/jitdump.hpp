// jitdump: the dump a JIT runtime writes of the code it generates (jit-PID.dump: node
// --perf-prof, CPython -X perf_jit, .NET, Java's perf agent; the format is perf's
// jitdump-specification.txt). The runtime marks it by mapping it executable, so the recording
// sees a MMAP of it; arec reads it through that mapping (/proc/PID/map_files), never by its
// path, and keeps only whole records: the runtime appends while it runs, and a record that is
// not all there yet is read at the next look. A dump is untrusted input: a size that no record
// can have stops the reading of that dump (docs/symbols.md, "JIT code: jitdumps").
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/unaligned.hpp"
#include "host/mapped_file.hpp"
#include "io/unique_fd.hpp"

namespace arec::host {

inline constexpr std::uint32_t jitdump_magic = 0x4A695444;  // "JiTD" as a native u32
inline constexpr std::size_t jitdump_header_min = 40;       // the version 1 header
inline constexpr std::size_t jitdump_record_header = 16;    // id, total_size, timestamp
// No runtime writes a record this large (a CODE_LOAD holds one function's code); a size beyond
// it is a broken or hostile dump, not one to wait for.
inline constexpr std::uint32_t jitdump_max_record = 64u << 20;

// The u32 or u64 at `offset` of a dump's bytes, in the dump's byte order.
template <typename T>
requires(sizeof(T) == 4 || sizeof(T) == 8) T
    jitdump_value(std::span<const std::byte> bytes, std::size_t offset, bool swapped) {
  auto value = base::load<T>(bytes, offset);
  if (!swapped) return value;
  if constexpr (sizeof(T) == 4)
    return __builtin_bswap32(value);
  else
    return __builtin_bswap64(value);
}

// True for a jitdump's marker mapping (a file named jit-<digits>.dump).
bool is_jitdump(std::string_view path);

// Where the reading of one dump stands: the bytes after `offset` are not read yet.
struct jitdump_cursor {
  std::uint64_t offset = 0;
  bool swapped = false;  // the dump was written in the other byte order
  std::string problem;   // set once the dump is refused: it is read no further
};

// The whole records at the start of `bytes` (the header first when `cursor.offset` is 0): how
// many bytes of `bytes` they span, and how many of those arec keeps (append_kept_records), at
// most `room` kept. A record cut short by the end of `bytes` ends the span (it is read later);
// so does one that would not fit in `room` (`cut` is set). A header or record no runtime writes
// sets `cursor.problem`. Advances `cursor.offset`.
struct jitdump_span {
  std::size_t whole = 0;
  std::size_t kept = 0;
  bool cut = false;
};
jitdump_span whole_jitdump_records(std::span<const std::byte> bytes, jitdump_cursor& cursor,
                                   std::size_t room);

// Appends `whole` (whole records, after `records_at` bytes of header kept as they are) to
// `into` as arec keeps them: a CODE_LOAD without its code (its total_size says so; code_size
// still says how much code there was), every other record as it is. Names, ranges, times,
// line tables and unwinding information need no instructions, which are ~80 % of a node dump:
// the per-process bound then lasts five times longer.
void append_kept_records(std::string& into, std::span<const std::byte> whole,
                         std::size_t records_at, bool swapped);

// A dump a process maps, opened through the mapping.
struct process_jitdump {
  io::unique_fd fd;     // empty when it is gone or refused
  std::string problem;  // why a dump that is there was refused ("is a FIFO", "is owned by ...")
};

// Opens the file process `place.pid` maps at [start, end) through /proc/PID/map_files: the
// mapped file itself, in a container, after its path was removed or replaced (a link or a FIFO
// put at the path is never followed). Accepted by perf_map_problem with the process's own uids
// as owners. An empty fd and no problem when the process or its mapping is gone.
process_jitdump open_process_jitdump(const mapping_place& place, const proc_root& proc = {});

// Appends to `into` the whole records of `fd` after `cursor.offset` as arec keeps them
// (append_kept_records), at most `room` bytes kept (records that would not fit are not read,
// and `cut` says so). Throws std::system_error naming
// `name` when the file cannot be read.
jitdump_span read_jitdump_records(int fd, jitdump_cursor& cursor, std::string& into,
                                  std::size_t room, const std::string& name);

}  // namespace arec::host
