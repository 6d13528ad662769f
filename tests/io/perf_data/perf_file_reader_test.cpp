#include "io/perf_data/perf_file_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include "io/perf_data/perf_file_writer.hpp"
#include "support/temp_file.hpp"

using namespace arec::io;
using namespace arec::io::perf;

namespace {

// A temporary file with the two ways the tests damage one: overwriting a value in place and
// cutting it short.
class patchable_file : public arec::test::temp_file {
 public:
  template <typename T>
  void put(std::uint64_t offset, const T& value) {
    ASSERT_EQ(::pwrite(fd(), &value, sizeof value, static_cast<off_t>(offset)),
              static_cast<ssize_t>(sizeof value));
  }
  void truncate(std::uint64_t size) { ASSERT_EQ(::ftruncate(fd(), static_cast<off_t>(size)), 0); }
};

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

std::vector<event_entry> one_event() {
  event_entry clock;
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  clock.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  clock.name = "cpu-clock";
  clock.ids = {5};
  return {clock};
}

// A valid file: one event, `records` 8-byte records (type 68), EVENT_DESC and HOSTNAME.
// Returns the data offset.
std::uint64_t write_valid(patchable_file& file, int records = 2) {
  perf_file_writer writer(file.fd());
  auto events = one_event();
  std::uint64_t data = writer.write_prologue(events);
  for (int i = 0; i < records; ++i)
    file.put(data + 8 * static_cast<std::uint64_t>(i),
             record_header{record_finished_round, 0, 8});
  feature_set features;
  features.set(feature_event_desc, event_desc_payload(events));
  feature_encoder host;
  host.string("box");
  features.set(feature_hostname, host.take());
  writer.write_epilogue(8 * static_cast<std::uint64_t>(records), features);
  return data;
}

// 104 (header) + 8 (one id) + 144 (one attr entry)
constexpr std::uint64_t data_offset = 256;

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
  perf_file_reader::open(file.path()).for_each_record(
      [&](const record_header&, auto, std::uint64_t offset) { offsets.push_back(offset); });
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{data, data + 11}));
}

TEST(PerfFileReader, RejectsWrongMagic) {
  patchable_file file;
  write_valid(file);
  file.put(0, std::uint64_t{0x454c494646524550});  // "PERFFILE", the legacy v1 magic
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: bad magic: not a perf.data file (no PERFILE2)");
}

TEST(PerfFileReader, RejectsOtherByteOrder) {
  patchable_file file;
  write_valid(file);
  file.put(0, __builtin_bswap64(file_magic));
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: perf.data of the other byte order is not supported");
}

TEST(PerfFileReader, RejectsPipeMode) {
  patchable_file file;
  file.put(0, file_magic);
  file.put(8, std::uint64_t{16});
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 8: pipe-mode perf.data (header size 16) is not supported");
}

TEST(PerfFileReader, RejectsTruncatedHeader) {
  patchable_file file;
  write_valid(file);
  file.truncate(60);
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: header truncated: the file has 60 of its 104 bytes");
  file.truncate(3);
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: file of 3 bytes is too short for a perf.data header");
  file.truncate(0);
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: file of 0 bytes is too short for a perf.data header");
}

TEST(PerfFileReader, RejectsZeroAttrSize) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, attr_size), std::uint64_t{0});
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 16: attr size 0 is below the 80 bytes of the oldest attr");
}

TEST(PerfFileReader, RejectsAttrsOutsideTheFile) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, attrs), file_section{1'000'000, 144});
  EXPECT_NE(error_of(file.path())
                .find(file.path() +
                      ": offset 24: attrs section runs past the end of the file (offset 1000000 "
                      "+ size 144 > "),
            std::string::npos)
      << error_of(file.path());
}

TEST(PerfFileReader, RejectsAttrSizeDisagreeingWithTheHeader) {
  patchable_file file;
  write_valid(file);
  std::uint64_t attr_entry = 104 + 8;
  file.put(attr_entry + offsetof(perf_event_attr, size), std::uint32_t{120});
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset " + std::to_string(attr_entry + 4) +
                ": attr 0 has size 120 but the header's attr size says 128");
}

TEST(PerfFileReader, RejectsIdsOutsideTheFile) {
  patchable_file file;
  write_valid(file);
  std::uint64_t ids_descriptor = 104 + 8 + 128;
  file.put(ids_descriptor, file_section{104, 1 << 20});
  EXPECT_NE(error_of(file.path())
                .find(": offset " + std::to_string(ids_descriptor) +
                      ": ids of attr 0 runs past the end of the file"),
            std::string::npos)
      << error_of(file.path());
}

TEST(PerfFileReader, RejectsDataOutsideTheFile) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, data), file_section{data_offset, 1 << 20});
  EXPECT_NE(error_of(file.path())
                .find(file.path() + ": offset 40: data section runs past the end of the file"),
            std::string::npos)
      << error_of(file.path());
}

TEST(PerfFileReader, RejectsFeatureSectionOutsideTheFile) {
  patchable_file file;
  write_valid(file);
  std::uint64_t table = data_offset + 16;
  // bit 3 (HOSTNAME) is the first set bit, so its descriptor is the table's first entry
  file.put(table, file_section{table, 1 << 20});
  EXPECT_NE(error_of(file.path())
                .find(": offset " + std::to_string(table) +
                      ": section of feature 3 runs past the end of the file"),
            std::string::npos)
      << error_of(file.path());
}

TEST(PerfFileReader, RejectsTruncatedEventDesc) {
  patchable_file file;
  write_valid(file);
  std::uint64_t event_desc_descriptor = data_offset + 16 + 16;  // second set bit
  file_section section{};
  ASSERT_EQ(::pread(file.fd(), &section, sizeof section,
                    static_cast<off_t>(event_desc_descriptor)),
            static_cast<ssize_t>(sizeof section));
  section.size = 8 + 128 + 4 + 2;  // cut inside the name's length field
  file.put(event_desc_descriptor, section);
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset " + std::to_string(section.offset + 8 + 128 + 4) +
                ": EVENT_DESC needs 4 more bytes but its section has 2");
}

// One header reader serves strict readers and salvage: there a broken EVENT_DESC only costs the
// event names, and says so.
TEST(PerfFileReader, SalvageKeepsAFileWhoseEventDescIsCutWithoutTheNames) {
  patchable_file file;
  write_valid(file);
  std::uint64_t event_desc_descriptor = data_offset + 16 + 16;
  file_section section{};
  ASSERT_EQ(::pread(file.fd(), &section, sizeof section,
                    static_cast<off_t>(event_desc_descriptor)),
            static_cast<ssize_t>(sizeof section));
  section.size = 8 + 128 + 4 + 2;
  file.put(event_desc_descriptor, section);
  perf_header salvaged = read_perf_header(file.path(), header_mode::salvage);
  ASSERT_EQ(salvaged.events.size(), 1u);
  EXPECT_EQ(salvaged.events[0].name, "");
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
  EXPECT_EQ(salvaged.salvage_notes[0],
            file.path() + ": offset " + std::to_string(section.offset + 8 + 128 + 4) +
                ": EVENT_DESC needs 4 more bytes but its section has 2; the events stay unnamed");
}

TEST(PerfFileReader, RejectsAFileWithoutAttrs) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, attrs) + 8, std::uint64_t{0});
  EXPECT_EQ(error_of(file.path()), file.path() + ": offset 32: no attrs");
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
                "9)");
}

TEST(PerfFileReader, TruncatedRecordHeaderIsAnError) {
  patchable_file file;
  write_valid(file, 2);
  file.put(offsetof(file_header, data), file_section{data_offset, 12});
  file.put(offsetof(file_header, features), std::uint64_t{0});  // no table to look for
  EXPECT_EQ(error_of(file.path(), true), file.path() + ": offset " +
                                             std::to_string(data_offset + 8) +
                                             ": record header truncated: 4 bytes left in the data");
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
