#include "perf_data/perf_file_reader.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "patchable_file.hpp"
#include "perf_data/perf_file_writer.hpp"

using namespace arec::perf_data;
using namespace arec::perf_data;
using namespace arec::test::perf_files;

namespace {

// The message of the format_error that opening (and, with `walk`, iterating) the file throws.
std::string error_of(const std::string& path, bool walk = false) {
  try {
    auto reader = perf_file_reader::open(path);
    if (walk) reader.for_each_record([](auto&&...) {});
  } catch (const format_error& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST(PerfFileReader, ReadsAValidFile) {
  patchable_file file;
  ASSERT_EQ(write_valid(file), data_offset);
  auto reader = perf_file_reader::open(file.path());
  ASSERT_EQ(reader.events().size(), 1u);
  EXPECT_EQ(reader.events()[0].name, "cpu-clock");
  EXPECT_EQ(reader.events()[0].ids, std::vector<std::uint64_t>{5});
  auto host = reader.feature(feature_hostname);
  ASSERT_TRUE(host);
  ASSERT_EQ(host->size(), 68u);
  EXPECT_EQ(std::memcmp(host->data() + 4, "box", 4), 0);
  int records = 0;
  reader.for_each_record([&](const record_header& header, auto whole, std::uint64_t offset) {
    EXPECT_EQ(header.type, record_finished_round);
    EXPECT_EQ(whole.size(), 8u);
    EXPECT_EQ(offset, data_offset + 8 * static_cast<std::uint64_t>(records));
    ++records;
  });
  EXPECT_EQ(records, 2);
}

TEST(PerfFileReader, NamesAreEmptyWithoutEventDesc) {
  patchable_file file;
  perf_file_writer writer(file.fd());
  auto events = one_event();
  writer.write_prologue(events);
  writer.write_epilogue(0, feature_set{});
  auto reader = perf_file_reader::open(file.path());
  ASSERT_EQ(reader.events().size(), 1u);
  EXPECT_EQ(reader.events()[0].name, "");
  EXPECT_FALSE(reader.feature(feature_event_desc));
}

TEST(PerfFileReader, RecordsNeedNotBeEightAligned) {
  patchable_file file;
  perf_file_writer writer(file.fd());
  auto events = one_event();
  std::uint64_t data = writer.write_prologue(events);
  file.put(data, record_header{record_compressed, 0, 11});
  file.put(data + 11, record_header{record_finished_round, 0, 8});
  writer.write_epilogue(19, feature_set{});
  std::vector<std::uint64_t> offsets;
  perf_file_reader::open(file.path())
      .for_each_record(
          [&](const record_header&, auto, std::uint64_t offset) { offsets.push_back(offset); });
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{data, data + 11}));
}

TEST(PerfFileReader, RecordOfSizeZeroStopsTheWalkAfterTheRecordsBeforeIt) {
  patchable_file file;
  write_valid(file, 3);
  file.put(data_offset + 8, record_header{PERF_RECORD_SAMPLE, 0, 0});
  auto reader = perf_file_reader::open(file.path());
  int visited = 0;
  try {
    reader.for_each_record([&](auto&&...) { ++visited; });
    FAIL() << "no format_error";
  } catch (const format_error& error) {
    EXPECT_EQ(std::string(error.what()),
              file.path() + ": offset " + std::to_string(data_offset + 8) +
                  ": record size 0 is smaller than its 8-byte header (type 9)");
    EXPECT_EQ(error.offset(), data_offset + 8);
  }
  EXPECT_EQ(visited, 1);
}

TEST(PerfFileReader, RecordRunningPastTheDataSectionIsAnError) {
  patchable_file file;
  write_valid(file, 2);
  file.put(data_offset + 8, record_header{PERF_RECORD_SAMPLE, 0, 64});
  EXPECT_EQ(error_of(file.path(), true),
            file.path() + ": offset " + std::to_string(data_offset + 8) +
                ": record of size 64 runs past the end of the data (8 bytes left, type "
                "9); cut short? --salvage keeps the records before it");
}

TEST(PerfFileReader, TruncatedRecordHeaderIsAnError) {
  patchable_file file;
  write_valid(file, 2);
  file.put(offsetof(file_header, data), file_section{data_offset, 12});
  file.put(offsetof(file_header, features), std::uint64_t{0});  // no table to look for
  EXPECT_EQ(error_of(file.path(), true),
            file.path() + ": offset " + std::to_string(data_offset + 8) +
                ": record header truncated: 4 bytes left in the data; cut short? --salvage "
                "keeps the records before it");
}

TEST(PerfFileReader, MissingFileIsASystemError) {
  try {
    perf_file_reader::open("/nonexistent/perf.data");
    FAIL() << "opened a missing file";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code().value(), ENOENT);
    EXPECT_NE(std::string(error.what()).find("/nonexistent/perf.data"), std::string::npos);
  }
}
