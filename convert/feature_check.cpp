#include "convert/feature_check.hpp"

#include <linux/bpf.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "perf_data/build_id_feature.hpp"
#include "perf_data/byte_cursor.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::convert {
namespace {

using perf_data::byte_cursor;
using perf_data::format_error;

constexpr std::uint32_t max_cpus = 2048;  // perf 6.1's MAX_NR_CPUS
constexpr std::uint64_t name_align = 64;  // perf's NAME_ALIGN: string lengths it counts

// perf 6.1's HEADER_* names (util/header.h), by bit.
constexpr std::array<std::string_view, 32> feature_names{
    "RESERVED",        "TRACING_DATA", "BUILD_ID",     "HOSTNAME",     "OSRELEASE",
    "VERSION",         "ARCH",         "NRCPUS",       "CPUDESC",      "CPUID",
    "TOTAL_MEM",       "CMDLINE",      "EVENT_DESC",   "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
    "BRANCH_STACK",    "PMU_MAPPINGS", "GROUP_DESC",   "AUXTRACE",     "STAT",
    "CACHE",           "SAMPLE_TIME",  "MEM_TOPOLOGY", "CLOCKID",      "DIR_FORMAT",
    "BPF_PROG_INFO",   "BPF_BTF",      "COMPRESSED",   "CPU_PMU_CAPS", "CLOCK_DATA",
    "HYBRID_TOPOLOGY", "PMU_CAPS"};

// One payload read as perf reads it: every read inside the payload (byte_cursor), failures
// named at their offset.
class reader {
 public:
  reader(std::span<const std::byte> payload, std::string_view name)
      : in_(payload, 0, name, name), name_(name) {}

  std::uint32_t u32() { return in_.value<std::uint32_t>(); }
  std::uint64_t u64() { return in_.value<std::uint64_t>(); }
  void skip(std::uint64_t bytes) { in_.take(bytes); }
  std::span<const std::byte> bytes(std::uint64_t count) { return in_.take(count); }
  // perf's do_read_string: u32 length, that many bytes; perf then uses it with strlen.
  std::string string() { return in_.string(); }
  void strings(std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) in_.string();
  }
  // `count` entries of at least `min_bytes` each must fit in what is left: checked before a
  // loop, so that a huge count fails at once rather than after reading every entry.
  void expect_entries(std::uint64_t count, std::uint64_t min_bytes, const char* what) {
    if (min_bytes != 0 && count > in_.left() / min_bytes)
      fail(std::to_string(count) + " " + what + " cannot fit in the " + std::to_string(in_.left()) +
           " bytes left");
  }
  // A u32 (or u64) count of entries of at least `min_bytes` each, checked as expect_entries.
  std::uint32_t count32(std::uint64_t min_bytes, const char* what) {
    std::uint32_t count = u32();
    expect_entries(count, min_bytes, what);
    return count;
  }
  std::uint64_t count64(std::uint64_t min_bytes, const char* what) {
    std::uint64_t count = u64();
    expect_entries(count, min_bytes, what);
    return count;
  }
  std::uint64_t left() const { return in_.left(); }
  std::uint64_t offset() const { return in_.offset(); }
  [[noreturn]] void fail(const std::string& problem) const {
    throw format_error(name_, in_.offset(), problem);
  }

 private:
  byte_cursor in_;
  std::string_view name_;
};

void check_cmdline(reader& in) {
  std::uint32_t count = in.count32(8, "arguments");
  in.strings(count);
}

void check_event_desc(reader& in) {
  std::uint32_t count = in.u32();
  std::uint32_t attr_size = in.u32();
  in.expect_entries(count, std::uint64_t{attr_size} + 8, "events");
  for (std::uint32_t i = 0; i < count; ++i) {
    in.skip(attr_size);
    std::uint32_t ids = in.u32();
    in.string();
    in.skip(std::uint64_t{ids} * sizeof(std::uint64_t));
  }
}

// perf's string_size(): what it counts for a string, whatever length the file gave it.
std::uint64_t counted_size(const std::string& text) {
  return (text.size() + 1 + name_align - 1) / name_align * name_align + 4;
}

std::uint64_t counted_strings(reader& in) {
  std::uint32_t count = in.count32(8, "cpu lists");
  std::uint64_t size = 4;
  for (std::uint32_t i = 0; i < count; ++i) size += counted_size(in.string());
  return size;
}

// perf 6.1 decides whether core and die ids follow from its own count of the bytes read so
// far (string_size), then reads one entry per available CPU of NRCPUS.
void check_cpu_topology(reader& in, std::uint64_t section, const feature_context& context) {
  std::uint64_t counted = counted_strings(in);  // cores
  counted += counted_strings(in);               // threads
  if (section <= counted) return;
  in.skip(std::uint64_t{context.cpus_avail} * 8);  // core and socket id per CPU
  counted += std::uint64_t{context.cpus_avail} * 8;
  if (section <= counted) return;
  counted_strings(in);                             // dies
  in.skip(std::uint64_t{context.cpus_avail} * 4);  // die id per CPU
}

// A cpu list as perf_cpu_map__new parses it ("0-3,8"): anything else makes perf give up on the
// rest of the header.
void check_cpu_list(reader& in, const std::string& list) {
  if (list.find_first_not_of("0123456789,-") != std::string::npos)
    in.fail("a cpu list \"" + list.substr(0, 32) + "\" that is not one");
}

void check_numa_topology(reader& in) {
  std::uint32_t count = in.count32(4 + 8 + 8 + 8, "nodes");
  for (std::uint32_t i = 0; i < count; ++i) {
    in.skip(4 + 8 + 8);  // node, mem_total, mem_free
    check_cpu_list(in, in.string());
  }
}

void check_pmu_mappings(reader& in) {
  std::uint32_t count = in.count32(4 + 8, "PMUs");
  for (std::uint32_t i = 0; i < count; ++i) {
    in.skip(4);  // type
    in.string();
  }
}

// perf rebuilds the groups over the attrs in order and leaves them half made (leaders set,
// member counts wrong) when the table does not match: each group must lie inside the attrs,
// after the previous one.
void check_group_desc(reader& in, const feature_context& context) {
  std::uint32_t count = in.count32(8 + 8, "groups");
  std::uint64_t next_free = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    in.string();
    std::uint64_t leader = in.u32();
    std::uint64_t members = in.u32();
    if (members == 0 || leader < next_free || leader + members > context.attrs)
      in.fail("group " + std::to_string(i) + " (leader " + std::to_string(leader) + ", " +
              std::to_string(members) + " members) does not fit the " +
              std::to_string(context.attrs) + " attrs after the previous group");
    next_free = leader + members;
  }
}

void check_auxtrace(reader& in) {
  std::uint64_t count = in.count64(16, "index entries");
  in.skip(count * 16);
}

void expect_version_1(reader& in, std::uint64_t version) {
  if (version != 1) in.fail("version " + std::to_string(version) + ", perf 6.1 reads only 1");
}

void check_cache(reader& in) {
  expect_version_1(in, in.u32());
  std::uint32_t count = in.count32(16 + 3 * 8, "cache levels");
  for (std::uint32_t i = 0; i < count; ++i) {
    in.skip(16);    // level, line size, sets, ways
    in.strings(3);  // type, size, map
  }
}

// Each node's bitmap is u64 bits, then that many bits rounded up to u64 words: perf sizes
// the bitmap's allocation from the bit count (overflowing on a huge one).
void check_mem_topology(reader& in) {
  expect_version_1(in, in.u64());
  in.skip(8);  // block size
  std::uint64_t count = in.count64(3 * 8, "memory nodes");
  for (std::uint64_t i = 0; i < count; ++i) {
    in.skip(16);  // node, size
    std::uint64_t bits = in.u64();
    std::uint64_t words = bits / 64 + (bits % 64 != 0);
    in.expect_entries(words, 8, "bitmap words");
    in.skip(words * 8);
  }
}

void check_clock_data(reader& in) {
  expect_version_1(in, in.u32());
  in.skip(4 + 8 + 8);  // clockid, time of day, clock time
}

// perf_bpil's arrays (perf 6.1 util/bpf-utils.c): where each array's offset into the data is,
// its element count and each element's size (a fixed size, or the field that holds it).
// perf record asks the kernel for all but the translated instructions and the map ids, whose
// counts the kernel fills in anyway (without their arrays); perf reads only the others. Records
// of the sized arrays are read as the kernel's structs, whatever size the file gives them.
struct bpil_array {
  std::size_t offset_field;
  std::size_t count_field;
  std::size_t element_size;  // the size, or with a size_field the least size perf reads
  std::size_t size_field;    // 0: a fixed size
  bool read_by_perf;
};
#define AREC_BPIL(array, count, size, read)                                       \
  bpil_array {                                                                    \
    offsetof(bpf_prog_info, array), offsetof(bpf_prog_info, count), size, 0, read \
  }
#define AREC_BPIL_SIZED(array, count, size_field, record)                           \
  bpil_array {                                                                      \
    offsetof(bpf_prog_info, array), offsetof(bpf_prog_info, count), sizeof(record), \
        offsetof(bpf_prog_info, size_field), true                                   \
  }
constexpr std::array<bpil_array, 9> bpil_arrays{
    AREC_BPIL(jited_prog_insns, jited_prog_len, 1, true),
    AREC_BPIL(xlated_prog_insns, xlated_prog_len, 1, false),
    AREC_BPIL(map_ids, nr_map_ids, 4, false),
    AREC_BPIL(jited_ksyms, nr_jited_ksyms, 8, true),
    AREC_BPIL(jited_func_lens, nr_jited_func_lens, 4, true),
    AREC_BPIL_SIZED(func_info, nr_func_info, func_info_rec_size, bpf_func_info),
    AREC_BPIL_SIZED(line_info, nr_line_info, line_info_rec_size, bpf_line_info),
    AREC_BPIL_SIZED(jited_line_info, nr_jited_line_info, jited_line_info_rec_size, std::uint64_t),
    AREC_BPIL(prog_tags, nr_prog_tags, BPF_TAG_SIZE, true),
};
#undef AREC_BPIL
#undef AREC_BPIL_SIZED

template <typename T>
T field(const bpf_prog_info& info, std::size_t offset) {
  T value;
  std::memcpy(&value, reinterpret_cast<const std::byte*>(&info) + offset, sizeof value);
  return value;
}

// perf turns the offset of each array of `arrays` into a pointer into the data and later reads
// the arrays it uses by their counts: those must be in `arrays` when they have elements, and
// every array of `arrays` must lie inside the data.
void check_bpf_arrays(reader& in, const bpf_prog_info& info, std::uint64_t arrays,
                      std::uint64_t data_len) {
  for (std::size_t i = 0; i < bpil_arrays.size(); ++i) {
    const bpil_array& array = bpil_arrays[i];
    std::uint64_t count = field<std::uint32_t>(info, array.count_field);
    bool translated = arrays >> i & 1;
    if (count == 0 || (!translated && !array.read_by_perf)) continue;
    std::uint64_t size =
        array.size_field ? field<std::uint32_t>(info, array.size_field) : array.element_size;
    std::uint64_t offset = field<std::uint64_t>(info, array.offset_field);
    bool inside =
        size >= array.element_size && offset <= data_len && count <= (data_len - offset) / size;
    if (!translated || !inside)
      in.fail("program info array " + std::to_string(i) + " of " + std::to_string(count) +
              " elements of " + std::to_string(size) + " bytes is not inside its " +
              std::to_string(data_len) + " data bytes");
  }
}

void check_bpf_prog_info(reader& in) {
  std::uint32_t count = in.count32(16, "programs");
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t info_len = in.u32();
    std::uint32_t data_len = in.u32();
    if (info_len > sizeof(bpf_prog_info))
      in.fail("program info of " + std::to_string(info_len) + " bytes, above perf's " +
              std::to_string(sizeof(bpf_prog_info)));
    std::uint64_t arrays = in.u64();
    bpf_prog_info info{};
    std::span<const std::byte> bytes = in.bytes(info_len);
    std::memcpy(&info, bytes.data(), bytes.size());
    in.skip(data_len);
    check_bpf_arrays(in, info, arrays, data_len);
  }
}

void check_bpf_btf(reader& in) {
  std::uint32_t count = in.count32(8, "BTF blobs");
  for (std::uint32_t i = 0; i < count; ++i) {
    in.skip(4);  // id
    in.skip(in.u32());
  }
}

// u32 count, then that many pairs of strings (a capability's name and value, a node's PMU and
// cpus).
void check_string_pairs(reader& in, const char* what) {
  std::uint32_t count = in.count32(2 * 8, what);
  in.strings(2 * std::uint64_t{count});
}

void check_pmu_caps(reader& in) {
  std::uint32_t count = in.count32(4 + 8, "PMUs");
  for (std::uint32_t i = 0; i < count; ++i) {
    check_string_pairs(in, "capabilities");
    in.string();  // the PMU's name
  }
}

void check_nrcpus(reader& in) {
  std::uint32_t available = in.u32();
  std::uint32_t online = in.u32();
  if (available > max_cpus || online > available)
    in.fail(std::to_string(available) + " available and " + std::to_string(online) +
            " online CPUs: perf 6.1 holds at most " + std::to_string(max_cpus));
}

// Tracing data as perf 6.1's trace_report reads it (util/trace-event-read.c): every length
// inside the payload, in this host's byte order, and the strings it reads byte by byte into a
// BUFSIZ buffer on its stack ending with a NUL before that.
std::string c_string(reader& in) {
  constexpr std::size_t stack_buffer = 8192;  // glibc's BUFSIZ
  std::string text;
  for (std::byte c = in.bytes(1)[0]; c != std::byte{0}; c = in.bytes(1)[0]) {
    text.push_back(static_cast<char>(c));
    if (text.size() + 1 >= stack_buffer) in.fail("a string longer than perf's 8192-byte buffer");
  }
  return text;
}

void expect_text(reader& in, std::string_view text) {  // NUL included
  std::span<const std::byte> read = in.bytes(text.size() + 1);
  if (std::memcmp(read.data(), text.data(), text.size()) != 0 || read.back() != std::byte{0})
    in.fail("no \"" + std::string(text) + "\" where perf expects it");
}

void check_sized_blobs(reader& in, std::uint64_t count) {
  in.expect_entries(count, 8, "files");
  for (std::uint64_t i = 0; i < count; ++i) in.skip(in.u64());
}

void check_tracing_data(reader& in) {
  constexpr std::string_view magic{"\027\010\104tracing"};
  std::span<const std::byte> start = in.bytes(magic.size());
  if (std::memcmp(start.data(), magic.data(), magic.size()) != 0) in.fail("no tracing magic");
  double version = std::strtod(c_string(in).c_str(), nullptr);
  if (in.bytes(1)[0] != std::byte{std::endian::native == std::endian::big})
    in.fail("tracing data of the other byte order");
  in.skip(1);  // long size
  if (in.u32() == 0) in.fail("a page size of 0");
  expect_text(in, "header_page");
  in.skip(in.u64());
  expect_text(in, "header_event");
  in.skip(in.u64());
  check_sized_blobs(in, in.u32());  // ftrace formats
  std::uint32_t systems = in.count32(2 + 4, "systems");
  for (std::uint32_t i = 0; i < systems; ++i) {
    c_string(in);
    check_sized_blobs(in, in.u32());
  }
  in.skip(in.u32());                      // kallsyms
  in.skip(in.u32());                      // printk formats
  if (version >= 0.6) in.skip(in.u64());  // saved cmdlines
}

void check(perf_data::feature bit, reader& in, std::uint64_t section,
           const feature_context& context) {
  switch (static_cast<unsigned>(bit)) {
    case 1:
      return check_tracing_data(in);
    case 3:
    case 4:
    case 5:
    case 6:
    case 8:
    case 9:  // HOSTNAME ... CPUID: one string
      in.string();
      return;
    case 7:
      return check_nrcpus(in);
    case 10:
    case 23:  // TOTAL_MEM, CLOCKID
      in.skip(8);
      return;
    case 11:
      return check_cmdline(in);
    case 12:
      return check_event_desc(in);
    case 13:
      return check_cpu_topology(in, section, context);
    case 14:
      return check_numa_topology(in);
    case 16:
      return check_pmu_mappings(in);
    case 17:
      return check_group_desc(in, context);
    case 18:
      return check_auxtrace(in);
    case 20:
      return check_cache(in);
    case 21:  // SAMPLE_TIME
      in.skip(16);
      return;
    case 22:
      return check_mem_topology(in);
    case 24:  // DIR_FORMAT
      in.skip(8);
      return;
    case 25:
      return check_bpf_prog_info(in);
    case 26:
      return check_bpf_btf(in);
    case 27:  // COMPRESSED
      in.skip(5 * 4);
      return;
    case 28:
      return check_string_pairs(in, "capabilities");  // CPU_PMU_CAPS
    case 29:
      return check_clock_data(in);
    case 30:
      return check_string_pairs(in, "nodes");  // HYBRID_TOPOLOGY
    case 31:
      return check_pmu_caps(in);
    default:  // BRANCH_STACK, STAT: perf reads nothing; newer features it skips
      return;
  }
}

std::string described(const format_error& error, std::string_view name) {
  std::string what = error.what();
  std::string prefix = std::string(name) + ": offset " + std::to_string(error.offset()) + ": ";
  return "byte " + std::to_string(error.offset()) + " of the " + std::string(name) +
         " feature: " + what.substr(what.starts_with(prefix) ? prefix.size() : 0);
}

}  // namespace

feature_context feature_context_of(const perf_data::feature_set& features, std::size_t attrs) {
  feature_context context{.attrs = attrs};
  const std::vector<std::byte>* nrcpus = features.find(perf_data::feature_nrcpus);
  if (nrcpus && feature_problem(perf_data::feature_nrcpus, *nrcpus).empty())
    std::memcpy(&context.cpus_avail, nrcpus->data(), sizeof context.cpus_avail);
  return context;
}

std::string feature_problem(perf_data::feature bit, std::span<const std::byte> payload,
                            const feature_context& context) {
  auto index = static_cast<unsigned>(bit);
  if (index == 0 || index >= feature_names.size()) return {};
  std::string_view name = feature_names[index];
  try {
    if (bit == perf_data::feature_build_id) {
      perf_data::parse_build_id_payload(payload, 0, name);
    } else {
      reader in(payload, name);
      check(bit, in, payload.size(), context);
    }
  } catch (const format_error& error) {
    return described(error, name);
  }
  return {};
}

}  // namespace arec::convert
