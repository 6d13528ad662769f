// side_band_records: COMM, MMAP2 and SAMPLE records built by hand for the export and push
// tests.
#pragma once

#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::exporting::test_records {

inline constexpr std::uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                             PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                             PERF_SAMPLE_CALLCHAIN;
inline constexpr std::uint64_t period_ns = 250'000;  // 4 kHz

// One cpu-clock event sampling `sample_type` every period_ns.
inline perf_data::event_entry cpu_clock_event() {
  perf_data::event_entry entry;
  entry.attr.size = sizeof entry.attr;
  entry.attr.type = PERF_TYPE_SOFTWARE;
  entry.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  entry.attr.sample_type = sample_type;
  entry.attr.sample_period = period_ns;
  entry.name = "cpu-clock";
  return entry;
}

// A record of `type` with `words`, then `text` NUL-terminated and padded to 8 bytes.
inline std::vector<std::byte> record_with_text(std::uint32_t type, std::uint16_t misc,
                                               std::vector<std::uint64_t> words,
                                               std::string_view text = {}, bool with_text = false) {
  std::vector<std::byte> out(8 + 8 * words.size());
  if (!words.empty()) std::memcpy(out.data() + 8, words.data(), 8 * words.size());
  if (with_text) {
    std::size_t at = out.size();
    out.resize(at + (text.size() + 1 + 7) / 8 * 8);
    std::memcpy(out.data() + at, text.data(), text.size());
  }
  perf_data::record_header header{type, misc, static_cast<std::uint16_t>(out.size())};
  std::memcpy(out.data(), &header, sizeof header);
  return out;
}

inline std::uint64_t pair(std::uint32_t low, std::uint32_t high) {
  return low | static_cast<std::uint64_t>(high) << 32;
}

inline std::vector<std::byte> comm(std::uint32_t pid, std::uint32_t tid, std::string_view name) {
  return record_with_text(PERF_RECORD_COMM, 0, {pair(pid, tid)}, name, true);
}

// MMAP2 of `file` at [start, start + len) from file offset pgoff, executable.
inline std::vector<std::byte> mmap2(std::uint32_t pid, std::uint64_t start, std::uint64_t len,
                                    std::uint64_t pgoff, std::string_view file,
                                    std::uint64_t inode = 7) {
  return record_with_text(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
                          {pair(pid, pid), start, len, pgoff, pair(8, 1), inode, 0,
                           pair(PROT_READ | PROT_EXEC, MAP_PRIVATE)},
                          file, true);
}

// The kernel's text map, as perf synthesizes it (pid -1).
inline std::vector<std::byte> kernel_mmap(std::uint64_t start, std::uint64_t len) {
  return record_with_text(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
                          {pair(static_cast<std::uint32_t>(-1), 0), start, len, start},
                          "[kernel.kallsyms]_text", true);
}

// A SAMPLE of cpu_clock_event(); `chain` as recorded (markers included), ip its first address.
inline std::vector<std::byte> sample(std::uint32_t pid, std::uint32_t tid, std::uint64_t time,
                                     std::uint32_t cpu, std::uint16_t mode,
                                     std::span<const std::uint64_t> chain) {
  std::uint64_t ip = 0;
  for (std::uint64_t entry : chain)
    if (entry < static_cast<std::uint64_t>(-4095)) {
      ip = entry;
      break;
    }
  std::vector<std::uint64_t> words{ip, pair(pid, tid), time, pair(cpu, 0), period_ns, chain.size()};
  words.insert(words.end(), chain.begin(), chain.end());
  return record_with_text(PERF_RECORD_SAMPLE, mode, words);
}

inline std::vector<std::byte> sample(std::uint32_t pid, std::uint32_t tid, std::uint64_t time,
                                     std::uint32_t cpu, std::uint16_t mode,
                                     std::initializer_list<std::uint64_t> chain) {
  return sample(pid, tid, time, cpu, mode,
                std::span<const std::uint64_t>(chain.begin(), chain.size()));
}

}  // namespace arec::exporting::test_records
