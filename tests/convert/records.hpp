// records: small perf records and attrs built by hand for the converter's tests.
#pragma once

#include <fcntl.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "io/output_path.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/perf_file_writer.hpp"

namespace arec::convert::test_records {

inline constexpr std::uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                             PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                             PERF_SAMPLE_IDENTIFIER;

inline perf_data::event_entry event(std::uint64_t type, std::vector<std::uint64_t> ids) {
  perf_data::event_entry entry;
  entry.attr.size = sizeof entry.attr;
  entry.attr.sample_type = type;
  entry.attr.sample_id_all = 1;
  entry.ids = std::move(ids);
  return entry;
}

template <typename... Words>
inline std::vector<std::byte> record(std::uint32_t type, Words... words) {
  std::vector<std::uint64_t> body{static_cast<std::uint64_t>(words)...};
  std::vector<std::byte> out(8 + 8 * body.size());
  perf_data::record_header header{type, 0, static_cast<std::uint16_t>(out.size())};
  std::memcpy(out.data(), &header, sizeof header);
  if (!body.empty()) std::memcpy(out.data() + 8, body.data(), 8 * body.size());
  return out;
}

// `text` NUL-terminated and padded to 8 bytes, as u64 words for record().
inline std::vector<std::uint64_t> string_words(const std::string& text) {
  std::vector<std::uint64_t> words((text.size() + 8) / 8);
  std::memcpy(words.data(), text.data(), text.size());
  return words;
}

// A record of `type` whose body is `words`.
inline std::vector<std::byte> record_of(std::uint32_t type,
                                        const std::vector<std::uint64_t>& words) {
  std::vector<std::byte> out(8 + 8 * words.size());
  perf_data::record_header header{type, 0, static_cast<std::uint16_t>(out.size())};
  std::memcpy(out.data(), &header, sizeof header);
  if (!words.empty()) std::memcpy(out.data() + 8, words.data(), 8 * words.size());
  return out;
}

// A single-file recording at `path`: `events`, `records` as its data section, `features`.
inline void write_recording(const std::string& path, std::span<const perf_data::event_entry> events,
                            const std::vector<std::vector<std::byte>>& records,
                            const perf_data::feature_set& features = {}) {
  io::unique_fd fd =
      io::unique_fd::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  perf_data::perf_file_writer writer(fd.get(), path);
  std::uint64_t offset = writer.write_prologue(events);
  std::uint64_t size = 0;
  for (const auto& r : records) {
    io::write_all_at(fd.get(), r.data(), r.size(), offset + size, path);
    size += r.size();
  }
  writer.write_epilogue(size, features);
}

}  // namespace arec::convert::test_records
