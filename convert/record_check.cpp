#include "convert/record_check.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/unaligned.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/record_cursor.hpp"
#include "perf_data/sample_layout.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t header_bytes = sizeof(perf_data::record_header);
// The sample_type bits perf 6.1 parses (PERF_SAMPLE_MAX = 1 << 25 there).
constexpr std::uint64_t known_sample_bits = (std::uint64_t{1} << 25) - 1;
constexpr std::size_t comm_length = 16;     // a THREAD_MAP entry's comm (TASK_COMM_LEN)
constexpr std::size_t build_id_bytes = 20;  // perf's BUILD_ID_SIZE

int words(std::uint64_t sample_type, std::uint64_t bits) {
  return std::popcount(sample_type & bits);
}

// perf's id_pos: the id's index among a SAMPLE's words; -1 without one.
int sample_id_word(std::uint64_t type) {
  if (type & PERF_SAMPLE_IDENTIFIER) return 0;
  if (!(type & PERF_SAMPLE_ID)) return -1;
  return words(type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
}

// perf's is_pos: the id's index counted back from the end of other records; -1 without one.
int trailer_id_word(std::uint64_t type) {
  if (type & PERF_SAMPLE_IDENTIFIER) return 1;
  if (!(type & PERF_SAMPLE_ID)) return -1;
  return 1 + words(type, PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID);
}

void skip_registers(perf_data::record_cursor& in, std::uint64_t mask) {
  if (in.word() != PERF_SAMPLE_REGS_ABI_NONE) in.skip_items(std::popcount(mask), 8);
}

void skip_read(perf_data::record_cursor& in, std::uint64_t format) {
  std::uint64_t first = in.word();
  if (format & PERF_FORMAT_TOTAL_TIME_ENABLED) in.word();
  if (format & PERF_FORMAT_TOTAL_TIME_RUNNING) in.word();
  if (format & PERF_FORMAT_GROUP) {
    std::uint64_t per_value =
        8 * (1 + ((format & PERF_FORMAT_ID) ? 1 : 0) + ((format & PERF_FORMAT_LOST) ? 1 : 0));
    in.skip_items(first, per_value);
  } else {
    if (format & PERF_FORMAT_ID) in.word();
    if (format & PERF_FORMAT_LOST) in.word();
  }
}

// A NUL within [from, to) of `record`: a string perf reads with strlen ends inside it.
bool has_nul(std::span<const std::byte> record, std::size_t from, std::size_t to) {
  return from < to && std::memchr(record.data() + from, 0, to - from) != nullptr;
}

// A cpu map's data at `at` in `record`: u16 kind, then u16 cpus (0), a mask (1) or a range (2).
bool cpu_map_fits(std::span<const std::byte> record, std::size_t at) {
  if (record.size() < at + 4) return false;
  std::size_t body = record.size() - at;
  std::uint16_t kind = base::load<std::uint16_t>(record, at);
  std::uint64_t count = base::load<std::uint16_t>(record, at + 2);
  if (kind == 0) return 4 + 2 * count <= body;
  if (kind == 1 && body >= 8) {
    std::uint16_t long_size = base::load<std::uint16_t>(record, at + 4);
    // Mask words start at byte 6 or, 8-aligned, at 8: the larger bound covers both layouts.
    return (long_size == 4 || long_size == 8) && 8 + count * long_size <= body;
  }
  return kind == 2 && body >= 8;
}

struct kernel_layout {
  std::size_t fixed;  // body bytes before any string or array
  bool string_after;  // a NUL-terminated string follows (file name, comm, path, symbol)
};

// perf 6.1's structs of the kernel's record types 1..21 (SAMPLE, 9, is parsed instead).
kernel_layout layout_of(std::uint32_t type) {
  switch (type) {
    case PERF_RECORD_MMAP:
      return {32, true};
    case PERF_RECORD_LOST:
      return {16, false};
    case PERF_RECORD_COMM:
      return {8, true};
    case PERF_RECORD_EXIT:
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
    case PERF_RECORD_FORK:
    case PERF_RECORD_AUX:
      return {24, false};
    case PERF_RECORD_READ:
      return {16, false};
    case PERF_RECORD_MMAP2:
      return {64, true};
    case PERF_RECORD_NAMESPACES:
      return {16, false};
    case PERF_RECORD_KSYMBOL:
      return {16, true};
    case PERF_RECORD_BPF_EVENT:
      return {16, false};
    case PERF_RECORD_CGROUP:
      return {8, true};
    case PERF_RECORD_TEXT_POKE:
      return {12, false};
    case PERF_RECORD_SWITCH:
      return {0, false};
    default:
      return {8, false};  // ITRACE_START, LOST_SAMPLES, SWITCH_CPU_WIDE, AUX_OUTPUT_HW_ID
  }
}

}  // namespace

std::string attrs_problem(std::span<const perf_data::event_entry> events) {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].attr.sample_type & ~known_sample_bits)
      return "attr " + std::to_string(i) + " has sample_type bits perf 6.1 does not know";
  if (events.empty()) return {};
  const perf_event_attr& first = events.front().attr;
  if ((first.sample_type & PERF_SAMPLE_READ) && !(first.read_format & PERF_FORMAT_ID))
    return "attr 0 samples PERF_SAMPLE_READ without PERF_FORMAT_ID, which perf 6.1 requires";
  if (events.size() == 1) return {};
  int id_word = sample_id_word(first.sample_type);
  int trailer_word = trailer_id_word(first.sample_type);
  if (id_word < 0)
    return "attr 0 has no sample id (PERF_SAMPLE_ID or IDENTIFIER) but the file has " +
           std::to_string(events.size()) + " attrs: perf 6.1 refuses it (non matching sample_type)";
  for (std::size_t i = 1; i < events.size(); ++i) {
    const perf_event_attr& attr = events[i].attr;
    if (sample_id_word(attr.sample_type) != id_word ||
        trailer_id_word(attr.sample_type) != trailer_word)
      return "attr " + std::to_string(i) +
             " keeps the sample id elsewhere than attr 0: perf 6.1 refuses it (non matching "
             "sample_type)";
    if (attr.sample_id_all != first.sample_id_all)
      return "attr " + std::to_string(i) +
             " differs from attr 0 in sample_id_all: perf 6.1 refuses it (non matching "
             "sample_id_all)";
  }
  return {};
}

std::uint32_t record_check::cpu_count(const perf_data::feature_set& features) {
  const std::vector<std::byte>* payload = features.find(perf_data::feature_nrcpus);
  std::uint32_t available = 0;
  if (payload && payload->size() >= sizeof available)
    std::memcpy(&available, payload->data(), sizeof available);
  return available == 0 ? max_cpus : std::min(available, max_cpus);
}

record_check::record_check(std::span<const perf_data::event_entry> events, std::uint32_t cpus)
    : cpus_(cpus) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    attrs_.push_back(events[i].attr);
    for (std::uint64_t id : events[i].ids) ids_.emplace_back(id, i);
  }
  std::sort(ids_.begin(), ids_.end());
  if (!attrs_.empty()) {
    sample_id_word_ = sample_id_word(attrs_.front().sample_type);
    trailer_id_word_ = trailer_id_word(attrs_.front().sample_type);
  }
}

int record_check::attr_of(std::span<const std::byte> record, bool sample) const {
  if (attrs_.size() == 1) return 0;
  if (!sample && !attrs_.front().sample_id_all) return 0;
  auto count = static_cast<int>((record.size() - header_bytes) / 8);
  int word = sample ? sample_id_word_ : count - trailer_id_word_;
  if (sample_id_word_ < 0 || word < 0 || word >= count) return -1;
  std::uint64_t id =
      base::load<std::uint64_t>(record, header_bytes + 8 * static_cast<std::size_t>(word));
  if (id == 0) return 0;  // synthesized records: perf reads them with the first attr
  if (!owns(id)) return -1;
  return static_cast<int>(
      std::lower_bound(ids_.begin(), ids_.end(), std::pair{id, std::size_t{0}})->second);
}

bool record_check::owns(std::uint64_t id) const {
  auto found = std::lower_bound(ids_.begin(), ids_.end(), std::pair{id, std::size_t{0}});
  return found != ids_.end() && found->first == id;
}

const char* record_check::sample_problem(std::span<const std::byte> record,
                                         const perf_event_attr& attr) const {
  std::uint64_t type = attr.sample_type;
  perf_data::record_cursor in(record);
  in.skip_items(words(type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD),
                8);
  if (type & PERF_SAMPLE_READ) skip_read(in, attr.read_format);
  if (type & PERF_SAMPLE_CALLCHAIN) in.skip_items(in.word(), 8);
  if (type & PERF_SAMPLE_RAW) {
    // u32 size, then the data: the size word's upper half is the data's start.
    std::uint64_t size = in.word() & 0xffffffffu;
    if (size >= 4) in.skip(size - 4);
  }
  if (type & PERF_SAMPLE_BRANCH_STACK) {
    std::uint64_t count = in.word();
    if (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) in.word();
    in.skip_items(count, 24);
  }
  if (type & PERF_SAMPLE_REGS_USER) skip_registers(in, attr.sample_regs_user);
  if (type & PERF_SAMPLE_STACK_USER) {
    std::uint64_t size = in.word();
    if (size != 0) {
      in.skip(size);
      if (in.word() > size) return "SAMPLE whose user stack says it holds more than it has";
    }
  }
  in.skip_items(
      words(type, PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION), 8);
  if (type & PERF_SAMPLE_REGS_INTR) skip_registers(in, attr.sample_regs_intr);
  in.skip_items(words(type, PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
                                PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE),
                8);
  if (type & PERF_SAMPLE_AUX) in.skip(in.word());
  return in.ok() ? nullptr : "SAMPLE shorter than its attr's sample_type says";
}

const char* record_check::kernel_record_problem(std::span<const std::byte> record,
                                                std::uint32_t type, std::size_t trailer) const {
  kernel_layout layout = layout_of(type);
  std::size_t body_end = record.size() - std::min(record.size(), trailer);
  std::size_t fixed_end = header_bytes + layout.fixed;
  if (body_end < fixed_end || record.size() < trailer)
    return "record too short for its fields and sample_id trailer";
  if (layout.string_after && !has_nul(record, fixed_end, body_end))
    return "record whose name (file, comm, symbol or cgroup path) has no NUL inside it";
  std::uint64_t array_bytes = 0;
  if (type == PERF_RECORD_NAMESPACES) {
    std::uint64_t count = base::load<std::uint64_t>(record, header_bytes + 8);
    if (count > (body_end - fixed_end) / 16)
      return "NAMESPACES record with more entries than it holds";
  } else if (type == PERF_RECORD_TEXT_POKE) {
    array_bytes = std::uint64_t{base::load<std::uint16_t>(record, header_bytes + 8)} +
                  base::load<std::uint16_t>(record, header_bytes + 10);
    if (array_bytes > body_end - fixed_end) return "TEXT_POKE record with more bytes than it holds";
  } else if (type == PERF_RECORD_MMAP2 &&
             (base::load<std::uint16_t>(record, 4) & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
             std::to_integer<std::size_t>(record[header_bytes + 32]) > build_id_bytes) {
    return "MMAP2 record with a build-id longer than 20 bytes";
  }
  return nullptr;
}

const char* record_check::user_record_problem(std::span<const std::byte> record,
                                              std::uint32_t type) const {
  std::size_t body = record.size() - header_bytes;
  switch (type) {
    case perf_data::record_thread_map: {  // u64 nr, then nr × {u64 pid; char comm[16]}
      if (body < 8) return "THREAD_MAP record too short for its count";
      std::uint64_t count = base::load<std::uint64_t>(record, header_bytes);
      if (count > (body - 8) / (8 + comm_length))
        return "THREAD_MAP record with more entries than it holds";
      for (std::uint64_t i = 0; i < count; ++i) {
        std::size_t comm = header_bytes + 8 + static_cast<std::size_t>(i) * (8 + comm_length) + 8;
        if (!has_nul(record, comm, comm + comm_length))
          return "THREAD_MAP record whose comm has no NUL";
      }
      return nullptr;
    }
    case perf_data::record_cpu_map:
      return cpu_map_fits(record, header_bytes)
                 ? nullptr
                 : "CPU_MAP record of an unknown kind or with more cpus than it holds";
    case perf_data::record_id_index: {  // u64 nr, then nr × {u64 id, idx, cpu, tid}
      if (body < 8) return "ID_INDEX record too short for its count";
      std::uint64_t count = base::load<std::uint64_t>(record, header_bytes);
      if (count > (body - 8) / 32) return "ID_INDEX record with more entries than it holds";
      for (std::uint64_t i = 0; i < count; ++i)
        if (!owns(base::load<std::uint64_t>(record,
                                            header_bytes + 8 + static_cast<std::size_t>(i) * 32)))
          return "ID_INDEX or EVENT_UPDATE record for an id no attr owns";
      return nullptr;
    }
    case perf_data::record_event_update: {  // u64 type, u64 id, then unit, scale, name or cpus
      if (body < 16) return "EVENT_UPDATE record too short for its kind and id";
      // perf reads it with the first attr when there is one attr or the id is 0.
      std::uint64_t id = base::load<std::uint64_t>(record, header_bytes + 8);
      if (attrs_.size() != 1 && id != 0 && !owns(id))
        return "ID_INDEX or EVENT_UPDATE record for an id no attr owns";
      std::uint64_t kind = base::load<std::uint64_t>(record, header_bytes);
      constexpr std::size_t data = header_bytes + 16;
      bool fits = (kind == 0 || kind == 2) ? has_nul(record, data, record.size())  // unit, name
                  : kind == 1              ? body >= 24                            // scale
                  : kind == 3              ? cpu_map_fits(record, data)            // cpus
                                           : false;
      return fits ? nullptr : "EVENT_UPDATE record of an unknown kind or longer than it is";
    }
    case perf_data::record_header_build_id: {  // perf inject -b puts them among the records
      // s32 pid, 20 build-id bytes, u8 size and 3 reserved, then the file name.
      constexpr std::size_t name_at = header_bytes + 4 + 24;
      if (!has_nul(record, name_at, record.size()))
        return "HEADER_BUILD_ID record whose file name has no NUL inside it";
      if ((base::load<std::uint16_t>(record, 4) & perf_data::misc_build_id_size) &&
          std::to_integer<std::size_t>(record[header_bytes + 4 + 20]) > build_id_bytes)
        return "HEADER_BUILD_ID record with a build-id longer than 20 bytes";
      return nullptr;
    }
    case perf_data::record_time_conv:
      return body >= 24 ? nullptr : "TIME_CONV record too short for its fields";
    default:
      return "a record of perf's own types that perf reads only in a pipe stream's head or in "
             "its other tools";
  }
}

// The cpu word: after the fields before CPU in a SAMPLE (whose size sample_problem checked), or
// before IDENTIFIER at the end of other records (whose trailer kernel_record_problem checked).
bool record_check::cpu_beyond(std::span<const std::byte> record, const perf_event_attr& attr,
                              bool sample) const {
  std::uint64_t type = attr.sample_type;
  if (!(type & PERF_SAMPLE_CPU) || (!sample && !attr.sample_id_all)) return false;
  std::size_t at =
      sample
          ? header_bytes + 8 * static_cast<std::size_t>(words(
                                   type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                             PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                             PERF_SAMPLE_STREAM_ID))
          : record.size() - 8 - 8 * static_cast<std::size_t>(words(type, PERF_SAMPLE_IDENTIFIER));
  std::uint32_t cpu = 0;
  std::memcpy(&cpu, record.data() + at, sizeof cpu);
  return cpu >= cpus_;
}

const char* record_check::problem(std::span<const std::byte> record) const {
  std::uint32_t type = 0;
  std::memcpy(&type, record.data(), sizeof type);
  // perf's own records need not be (perf inject -b's HEADER_BUILD_ID are 4 bytes off).
  if (type >= perf_data::record_header_attr) return user_record_problem(record, type);
  if (record.size() % 8 != 0) return "record size not a multiple of 8 bytes";
  if (attrs_.empty()) return "record without an attr to read it with";
  bool sample = type == PERF_RECORD_SAMPLE;
  int index = attr_of(record, sample);
  if (index < 0) return "record whose sample id no attr owns";
  const perf_event_attr& attr = attrs_[static_cast<std::size_t>(index)];
  const char* found = nullptr;
  if (sample) {
    found = sample_problem(record, attr);
  } else {
    std::size_t trailer =
        attr.sample_id_all ? perf_data::sample_id_trailer_size(attr.sample_type) : 0;
    found = kernel_record_problem(record, type, trailer);
  }
  if (!found && cpu_beyond(record, attr, sample))
    found = "record whose cpu is beyond the recording's CPUs (NRCPUS)";
  return found;
}

}  // namespace arec::convert
