// record_check: whether perf 6.1 can read a record of a recording as it is. perf trusts much of
// what it reads: it parses a SAMPLE by its attr's sample_type with bounds checks that end the
// whole session ("Can't parse sample"), finds strings and arrays of other records by their NUL
// or their count without checking them against the record's size, and crashes on some of
// those. What `arec convert` writes passes these checks, so perf never meets a record it
// cannot read: a record that fails one is dropped, counted by problem (converter.hpp).
// Layouts: docs/perf-data-format.md, "SAMPLE layout" and "sample_id trailer".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "perf_data/feature_encoder.hpp"

namespace arec::convert {

// The attrs of a file as perf 6.1 requires them together (perf's "non matching sample_type",
// "non matching sample_id_all" and read_format checks, and sample_type bits it knows). Returns
// what is wrong with `events`, or an empty string. One attr is always consistent.
std::string attrs_problem(std::span<const perf_data::event_entry> events);

class record_check {
 public:
  // perf 6.1 indexes per-CPU tables with a record's cpu unchecked; MAX_NR_CPUS there.
  static constexpr std::uint32_t max_cpus = 2048;

  // `events` are the file's attrs in file order with their ids, consistent (attrs_problem);
  // `cpus` the CPUs a record's cpu field may name (NRCPUS's available CPUs).
  record_check(std::span<const perf_data::event_entry> events, std::uint32_t cpus = max_cpus);

  // The CPUs of a recording with `features`: NRCPUS's available CPUs, at most max_cpus.
  static std::uint32_t cpu_count(const perf_data::feature_set& features);

  // nullptr when perf 6.1 reads `record` (a whole record, header included, of a type perf
  // knows); else the problem, a static string: a kernel record's size that is not a multiple of
  // 8, a sample id no attr owns, a SAMPLE too short for its sample_type, a string without its NUL
  // or an array longer than the record, a record too short for its fixed fields and sample_id
  // trailer, or one of perf's own record types that perf reads only in a pipe stream's head (perf's
  // own THREAD_MAP, CPU_MAP, ID_INDEX, EVENT_UPDATE and TIME_CONV pass when they fit), a cpu
  // (SAMPLE or sample_id trailer) beyond the recording's CPUs.
  const char* problem(std::span<const std::byte> record) const;

 private:
  // The attr perf reads `record` with, or -1 when perf finds none (perf's evlist__event2evsel).
  int attr_of(std::span<const std::byte> record, bool sample) const;
  bool owns(std::uint64_t id) const;
  const char* sample_problem(std::span<const std::byte> record, const perf_event_attr& attr) const;
  const char* kernel_record_problem(std::span<const std::byte> record, std::uint32_t type,
                                    std::size_t trailer) const;
  const char* user_record_problem(std::span<const std::byte> record, std::uint32_t type) const;
  bool cpu_beyond(std::span<const std::byte> record, const perf_event_attr& attr,
                  bool sample) const;

  std::vector<perf_event_attr> attrs_;
  std::vector<std::pair<std::uint64_t, std::size_t>> ids_;  // (id, attr index), sorted
  int sample_id_word_ = -1;   // index of the id among a SAMPLE's u64 words (perf's id_pos)
  int trailer_id_word_ = -1;  // of the id counted from the end of other records (is_pos)
  std::uint32_t cpus_;
};

}  // namespace arec::convert
