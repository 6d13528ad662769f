// patchable_file: a small valid perf.data file written with perf_file_writer, and the two ways the
// header's and the reader's tests damage one, for perf_header_test and perf_file_reader_test.
#pragma once

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "support/temp_file.hpp"

namespace arec::test::perf_files {

// A temporary file with the two ways the tests damage one: overwriting a value in place and
// cutting it short.
class patchable_file : public temp_file {
 public:
  template <typename T>
  void put(std::uint64_t offset, const T& value) {
    ASSERT_EQ(::pwrite(fd(), &value, sizeof value, static_cast<off_t>(offset)),
              static_cast<ssize_t>(sizeof value));
  }
  void truncate(std::uint64_t size) { ASSERT_EQ(::ftruncate(fd(), static_cast<off_t>(size)), 0); }
};

inline std::vector<perf_data::event_entry> one_event() {
  perf_data::event_entry clock;
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  clock.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  clock.name = "cpu-clock";
  clock.ids = {5};
  return {clock};
}

// A valid file: one event, `records` 8-byte records (type 68), EVENT_DESC and HOSTNAME.
// Returns the data offset.
inline std::uint64_t write_valid(patchable_file& file, int records = 2) {
  perf_data::perf_file_writer writer(file.fd());
  auto events = one_event();
  std::uint64_t data = writer.write_prologue(events);
  for (int i = 0; i < records; ++i)
    file.put(data + 8 * static_cast<std::uint64_t>(i),
             perf_data::record_header{perf_data::record_finished_round, 0, 8});
  perf_data::feature_set features;
  features.set(perf_data::feature_event_desc, perf_data::event_desc_payload(events));
  perf_data::feature_encoder host;
  host.string("box");
  features.set(perf_data::feature_hostname, host.take());
  writer.write_epilogue(8 * static_cast<std::uint64_t>(records), features);
  return data;
}

// 104 (header) + 8 (one id) + 144 (one attr entry)
inline constexpr std::uint64_t data_offset = 256;

}  // namespace arec::test::perf_files
