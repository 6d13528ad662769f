#include "symbols/jitdump_symbols.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "host/jitdump.hpp"

namespace arec::symbols {
namespace {

enum : std::uint32_t { code_load = 0, code_move = 1, debug_info = 2, unwinding_info = 4 };

// The fixed part of each record's payload, after its 16-byte prefix.
constexpr std::size_t load_fixed = 40;  // pid, tid, vma, code_addr, code_size, code_index
constexpr std::size_t move_fixed = 48;  // pid, tid, vma, old, new, code_size, code_index
constexpr std::size_t unwinding_fixed = 24;  // unwinding_size, eh_frame_hdr_size, mapped_size
constexpr std::size_t debug_fixed = 16;      // code_addr, nr_entry

// The fields of one record, in the dump's byte order.
class record_reader {
 public:
  record_reader(std::span<const std::byte> bytes, bool swapped)
      : bytes_(bytes), swapped_(swapped) {}
  template <typename T>
  T at(std::size_t offset) const {
    return host::jitdump_value<T>(bytes_, offset, swapped_);
  }

 private:
  std::span<const std::byte> bytes_;
  bool swapped_;
};

// The .eh_frame part of an UNWINDING_INFO record (its data is .eh_frame then .eh_frame_hdr),
// or nothing when its sizes do not fit the record.
std::span<const std::byte> eh_frame_of(std::span<const std::byte> body, const record_reader& in) {
  constexpr std::size_t data_at = host::jitdump_record_header + unwinding_fixed;
  if (body.size() < data_at) return {};
  auto unwinding = in.at<std::uint64_t>(16);
  auto header = in.at<std::uint64_t>(24);
  if (header > unwinding || unwinding > body.size() - data_at) return {};
  return body.subspan(data_at, unwinding - header);
}

// The lines of DEBUG_INFO record `record` for the code loaded at `start`, or null when it
// describes other code, or none.
std::shared_ptr<const jit_line_table> lines_of(std::span<const std::byte> record, bool swapped,
                                               std::uint64_t start, std::uint64_t size,
                                               std::string_view name) {
  if (record.empty()) return nullptr;
  record_reader in(record, swapped);
  if (in.at<std::uint64_t>(16) != start) return nullptr;
  constexpr std::size_t entries_at = host::jitdump_record_header + debug_fixed;
  auto table = std::make_shared<const jit_line_table>(
      record.subspan(entries_at), in.at<std::uint64_t>(24), swapped, start, size, name);
  return table->size() == 0 ? nullptr : table;
}

void add_line(std::string& text, std::uint64_t start, std::uint64_t size, std::string_view name) {
  if (size == 0) return;
  std::array<char, 48> numbers{};
  int length =
      std::snprintf(numbers.data(), numbers.size(), "%llx %llx ",
                    static_cast<unsigned long long>(start), static_cast<unsigned long long>(size));
  text.append(numbers.data(), static_cast<std::size_t>(length));
  std::size_t at = text.size();
  text += name;
  for (std::size_t i = at; i < text.size(); ++i)
    if (text[i] == '\n' || text[i] == '\r') text[i] = ' ';  // one line per function
  text += '\n';
}

}  // namespace

std::vector<jitdump_code> jitdump_code_records(std::span<const std::byte> dump) {
  host::jitdump_cursor cursor;
  host::jitdump_span whole = host::whole_jitdump_records(dump, cursor, dump.size());
  std::span<const std::byte> records = dump.first(whole.whole);
  // The records start after the header, whose size it states (whole: so it is all there).
  std::size_t at =
      records.empty() ? 0 : record_reader(records, cursor.swapped).at<std::uint32_t>(8);
  std::vector<jitdump_code> code;
  // By code_index: the name and lines a CODE_MOVE's code was loaded with.
  std::unordered_map<std::uint64_t, std::pair<std::string_view, std::shared_ptr<const jit_line_table>>>
      loaded;
  std::span<const std::byte> eh_frame;  // for the next CODE_LOAD
  std::span<const std::byte> debug;     // a DEBUG_INFO record for the next CODE_LOAD
  while (at + host::jitdump_record_header <= records.size()) {
    record_reader in(records.subspan(at), cursor.swapped);
    auto id = in.at<std::uint32_t>(0);
    auto size = in.at<std::uint32_t>(4);
    std::span<const std::byte> body = records.subspan(at, size);
    if (id == unwinding_info && !cursor.swapped) eh_frame = eh_frame_of(body, in);
    if (id == debug_info && body.size() >= host::jitdump_record_header + debug_fixed) debug = body;
    std::size_t fixed = host::jitdump_record_header + (id == code_load ? load_fixed : move_fixed);
    if ((id == code_load || id == code_move) && body.size() >= fixed) {
      auto time = in.at<std::uint64_t>(8);
      if (id == code_load) {
        auto chars = reinterpret_cast<const char*>(body.data() + fixed);
        std::string_view rest(chars, body.size() - fixed);
        std::string_view name = rest.substr(0, rest.find('\0'));
        auto start = in.at<std::uint64_t>(32);
        auto size = in.at<std::uint64_t>(40);
        std::shared_ptr<const jit_line_table> lines =
            lines_of(std::exchange(debug, {}), cursor.swapped, start, size, name);
        loaded[in.at<std::uint64_t>(48)] = {name, lines};
        code.push_back({time, start, size, {}, name,
                        std::exchange(eh_frame, {}), std::move(lines)});
      } else if (auto known = loaded.find(in.at<std::uint64_t>(56)); known != loaded.end()) {
        code.push_back({time, in.at<std::uint64_t>(40), in.at<std::uint64_t>(48),
                        in.at<std::uint64_t>(32), known->second.first, {}, known->second.second});
      }
    }
    at += size;
  }
  return code;
}

bool jitdump_times_are_arch(std::span<const std::byte> dump) {
  host::jitdump_cursor cursor;
  host::jitdump_span whole = host::whole_jitdump_records(dump, cursor, dump.size());
  if (whole.whole < host::jitdump_header_min) return false;  // no header: no times either
  constexpr std::size_t flags = 32;  // after magic, version, size, elf_mach, pad, pid, timestamp
  return (host::jitdump_value<std::uint64_t>(dump, flags, cursor.swapped) & 1) != 0;
}

std::string perf_map_of(std::span<const jitdump_code> records) {
  std::string text;
  for (const jitdump_code& code : records) add_line(text, code.start, code.size, code.name);
  return text;
}

std::string jitdump_as_perf_map(std::span<const std::byte> dump) {
  return perf_map_of(jitdump_code_records(dump));
}

}  // namespace arec::symbols
