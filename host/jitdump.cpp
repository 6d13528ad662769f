#include "host/jitdump.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "base/system_error.hpp"
#include "host/process_perf_map.hpp"

namespace arec::host {
namespace {

constexpr std::uint32_t jitdump_version = 1;
// A header that states more than this is not one a runtime wrote (version 1's is 40 bytes;
// later versions may add fields, which are kept as they are).
constexpr std::uint32_t jitdump_header_max = 4096;
// Bytes read with one pread: a busy runtime appends many small records between two looks.
constexpr std::size_t read_chunk = std::size_t{1} << 20;

std::uint32_t u32_at(std::span<const std::byte> bytes, std::size_t at, bool swapped) {
  return jitdump_value<std::uint32_t>(bytes, at, swapped);
}

// Reads the header's fixed part; sets cursor.problem when it is not a jitdump's. The whole
// header's size, or 0 when more bytes are needed first.
std::size_t header_size(std::span<const std::byte> bytes, jitdump_cursor& cursor) {
  if (bytes.size() < jitdump_header_min) return 0;
  auto magic = base::load<std::uint32_t>(bytes, 0);
  if (magic != jitdump_magic && magic != __builtin_bswap32(jitdump_magic)) {
    cursor.problem = "is not a jitdump (its magic is not JiTD)";
    return 0;
  }
  cursor.swapped = magic != jitdump_magic;
  std::uint32_t version = u32_at(bytes, 4, cursor.swapped);
  std::uint32_t size = u32_at(bytes, 8, cursor.swapped);
  if (version != jitdump_version)
    cursor.problem = "is a jitdump of version " + std::to_string(version) + ", not 1";
  else if (size < jitdump_header_min || size > jitdump_header_max)
    cursor.problem = "has a header of " + std::to_string(size) + " bytes";
  return cursor.problem.empty() ? size : 0;
}

// A CODE_LOAD's fixed part: the record header, pid, tid, vma, code_addr, code_size, code_index.
constexpr std::uint32_t code_load_id = 0;
constexpr std::size_t code_load_fixed = jitdump_record_header + 40;
constexpr std::size_t code_size_at = jitdump_record_header + 24;

// How many of a whole record's bytes are code: a CODE_LOAD's last code_size bytes, after its
// name; 0 for any other record, and for a CODE_LOAD whose sizes do not add up (kept whole: the
// readers skip what they cannot use).
std::size_t code_bytes(std::span<const std::byte> record, bool swapped) {
  if (record.size() < code_load_fixed || u32_at(record, 0, swapped) != code_load_id) return 0;
  auto code = jitdump_value<std::uint64_t>(record, code_size_at, swapped);
  if (code > record.size() - code_load_fixed) return 0;
  std::span<const std::byte> name = record.subspan(code_load_fixed, record.size() -
                                                                        code_load_fixed - code);
  bool terminated = std::find(name.begin(), name.end(), std::byte{0}) != name.end();
  return terminated ? static_cast<std::size_t>(code) : 0;
}

std::string record_problem(std::uint32_t size, std::uint64_t at) {
  return "has a record of " + std::to_string(size) + " bytes at offset " + std::to_string(at);
}

}  // namespace

bool is_jitdump(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("jit-") || !name.ends_with(".dump")) return false;
  std::string_view digits = name.substr(4, name.size() - 4 - 5);
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

jitdump_span whole_jitdump_records(std::span<const std::byte> bytes, jitdump_cursor& cursor,
                                   std::size_t room) {
  jitdump_span span;
  if (!cursor.problem.empty()) return span;
  if (cursor.offset == 0) {
    std::size_t header = header_size(bytes, cursor);
    if (header == 0 || header > bytes.size()) return span;
    if (header > room) {
      span.cut = true;
      return span;
    }
    span.whole = span.kept = header;
  }
  while (bytes.size() - span.whole >= jitdump_record_header) {
    std::uint32_t size = u32_at(bytes, span.whole + 4, cursor.swapped);
    if (size < jitdump_record_header || size > jitdump_max_record) {
      cursor.problem = record_problem(size, cursor.offset + span.whole);
      break;
    }
    if (size > bytes.size() - span.whole) break;  // not all there yet
    std::size_t kept = size - code_bytes(bytes.subspan(span.whole, size), cursor.swapped);
    if (kept > room - span.kept) {
      span.cut = true;
      break;
    }
    span.whole += size;
    span.kept += kept;
  }
  cursor.offset += span.whole;
  return span;
}

void append_kept_records(std::string& into, std::span<const std::byte> whole,
                         std::size_t records_at, bool swapped) {
  records_at = std::min(records_at, whole.size());
  into.append(reinterpret_cast<const char*>(whole.data()), records_at);
  for (std::size_t at = records_at; at + jitdump_record_header <= whole.size();) {
    std::span<const std::byte> record =
        whole.subspan(at, std::min<std::size_t>(u32_at(whole, at + 4, swapped), whole.size() - at));
    std::size_t code = code_bytes(record, swapped);
    std::size_t start = into.size();
    into.append(reinterpret_cast<const char*>(record.data()), record.size() - code);
    if (code != 0) {
      auto kept = static_cast<std::uint32_t>(record.size() - code);
      if (swapped) kept = __builtin_bswap32(kept);
      std::memcpy(into.data() + start + 4, &kept, sizeof kept);
    }
    at += record.size();
  }
}

process_jitdump open_process_jitdump(const mapping_place& place, const proc_root& proc) {
  process_jitdump dump;
  std::optional<std::array<uid_t, 4>> owners = process_uids(place.pid, proc);
  if (!owners) return dump;  // gone
  std::array<char, 64> range{};
  std::snprintf(range.data(), range.size(), "/%llx-%llx",
                static_cast<unsigned long long>(place.start),
                static_cast<unsigned long long>(place.end));
  std::string path = proc.path + "/" + std::to_string(place.pid) + "/map_files" + range.data();
  // O_NONBLOCK: a FIFO (which no mapping can be, but a test's /proc may name) never blocks.
  io::unique_fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (!file && (errno == EACCES || errno == EPERM)) {
    // map_files asks for CAP_SYS_ADMIN (CAP_CHECKPOINT_RESTORE since Linux 5.9): an arec
    // without it keeps no dump, and says so rather than leave the frames unnamed unexplained.
    dump.problem = "cannot be opened through " + path + ": " + std::strerror(errno);
    return dump;
  }
  if (!file) return dump;  // the process or its mapping is gone
  struct stat about {};
  base::check_syscall(::fstat(file.get(), &about), "fstat", path);
  dump.problem = perf_map_problem(about, *owners, "the process's user");
  if (dump.problem.empty()) dump.fd = std::move(file);
  return dump;
}

jitdump_span read_jitdump_records(int fd, jitdump_cursor& cursor, std::string& into,
                                  std::size_t room, const std::string& name) {
  jitdump_span total;
  std::string chunk;
  std::size_t chunk_size = read_chunk;
  for (;;) {
    struct stat now {};
    base::check_syscall(::fstat(fd, &now), "fstat", name);
    auto size = static_cast<std::uint64_t>(now.st_size);
    if (!cursor.problem.empty() || size <= cursor.offset) return total;
    std::uint64_t left = size - cursor.offset;
    std::size_t want = left < chunk_size ? static_cast<std::size_t>(left) : chunk_size;
    chunk.resize(want);
    ssize_t got = ::pread(fd, chunk.data(), want, static_cast<off_t>(cursor.offset));
    base::check_syscall(got, "pread", name);
    auto bytes = std::as_bytes(std::span(chunk.data(), static_cast<std::size_t>(got)));
    bool header = cursor.offset == 0;
    jitdump_span span = whole_jitdump_records(bytes, cursor, room - total.kept);
    std::size_t records_at =
        header && span.whole > 0 ? u32_at(bytes, 8, cursor.swapped) : std::size_t{0};
    append_kept_records(into, bytes.first(span.whole), records_at, cursor.swapped);
    total.whole += span.whole;
    total.kept += span.kept;
    total.cut = span.cut;
    if (span.cut || !cursor.problem.empty()) return total;
    if (span.whole == 0) {
      // The next record is larger than a chunk: read it whole (at most jitdump_max_record).
      if (static_cast<std::size_t>(got) < want || want == left || chunk_size > read_chunk)
        return total;
      chunk_size = jitdump_max_record + jitdump_header_max;
    }
  }
}

}  // namespace arec::host
