// perf_header: read_perf_header's checks of the header, the attrs and their ids, the feature
// sections and EVENT_DESC, each with its exact message, and what salvage mode keeps instead.
#include "perf_data/perf_header.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "patchable_file.hpp"
#include "perf_data/pipe_stream.hpp"

using namespace arec::perf_data;
using namespace arec::test::perf_files;

namespace {

// The message of the format_error that reading the header strictly throws.
std::string error_of(const std::string& path) {
  try {
    read_perf_header(path, header_mode::strict);
  } catch (const format_error& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST(PerfHeader, RejectsWrongMagic) {
  patchable_file file;
  write_valid(file);
  file.put(0, std::uint64_t{0x454c494646524550});  // "PERFFILE", the legacy v1 magic
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: bad magic: not a perf.data file (no PERFILE2)");
}

TEST(PerfHeader, RejectsOtherByteOrder) {
  patchable_file file;
  write_valid(file);
  file.put(0, __builtin_bswap64(file_magic));
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 0: perf.data of the other byte order is not supported");
}

// A pipe stream saved to a file: its head records stand for the header.
class PerfHeaderPipeStream : public ::testing::Test {
 protected:
  void SetUp() override {
    events_ = one_event();
    events_.push_back(events_.front());
    events_[1].name = "sched:sched_switch";
    events_[1].attr.type = PERF_TYPE_TRACEPOINT;
    events_[1].ids = {7, 8};
    features_.set(feature_hostname, {std::byte{'h'}, std::byte{0}});
    features_.set(feature_tracing_data, std::vector<std::byte>(13, std::byte{0x5a}));
    head_ = pipe_stream_head(events_, features_);
    for (std::size_t i = 0; i < head_.size(); ++i) file_.put(i, head_[i]);
    file_.put(head_.size(), record_header{record_finished_round, 0, 8});
  }

  std::vector<event_entry> events_;
  feature_set features_;
  std::vector<std::byte> head_;
  patchable_file file_;
};

TEST_F(PerfHeaderPipeStream, HeadRecordsGiveTheAttrsNamesFeaturesAndWhereDataBegins) {
  perf_header read = read_perf_header(file_.path(), header_mode::strict);
  EXPECT_TRUE(read.pipe);
  ASSERT_EQ(read.events.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(read.events[i].name, events_[i].name);
    EXPECT_EQ(read.events[i].ids, events_[i].ids);
    EXPECT_EQ(read.events[i].attr.type, events_[i].attr.type);
  }
  ASSERT_NE(read.features.find(feature_hostname), nullptr);
  EXPECT_EQ(*read.features.find(feature_hostname), *features_.find(feature_hostname));
  ASSERT_NE(read.features.find(feature_tracing_data), nullptr);
  EXPECT_EQ(read.features.find(feature_tracing_data)->size(), 16u) << "the blob with its padding";
  EXPECT_TRUE(read.features.has(feature_event_desc)) << "the names are kept for a file";
  EXPECT_EQ(read.header.data.offset, head_.size());
  EXPECT_EQ(read.header.data.size, 8u);
}

TEST_F(PerfHeaderPipeStream, AStreamCutInItsHeadIsAnErrorOrSalvaged) {
  std::uint64_t cut = head_.size() - 10;  // inside the tracing data's blob
  file_.truncate(cut);
  std::string error = error_of(file_.path());
  EXPECT_NE(error.find("the stream ends inside the tracing data"), std::string::npos) << error;
  perf_header salvaged = read_perf_header(file_.path(), header_mode::salvage);
  EXPECT_EQ(salvaged.events.size(), 2u);
  EXPECT_EQ(salvaged.header.data.size, 0u);
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
}

TEST(PerfHeader, RejectsAPipeStreamWithoutAttrs) {
  patchable_file file;
  file.put(0, file_magic);
  file.put(8, std::uint64_t{16});
  file.put(16, record_header{record_finished_round, 0, 8});
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 16: pipe-mode stream without HEADER_ATTR");
}

TEST(PerfHeader, RejectsTruncatedHeader) {
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

TEST(PerfHeader, RejectsZeroAttrSize) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, attr_size), std::uint64_t{0});
  EXPECT_EQ(error_of(file.path()),
            file.path() + ": offset 16: attr size 0 is below the 80 bytes of the oldest attr");
}

TEST(PerfHeader, RejectsAttrsOutsideTheFile) {
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

TEST(PerfHeader, RejectsAttrSizeDisagreeingWithTheHeader) {
  patchable_file file;
  write_valid(file);
  std::uint64_t attr_entry = 104 + 8;
  file.put(attr_entry + offsetof(perf_event_attr, size), std::uint32_t{120});
  EXPECT_EQ(error_of(file.path()), file.path() + ": offset " + std::to_string(attr_entry + 4) +
                                       ": attr 0 has size 120 but the header's attr size says 128");
}

TEST(PerfHeader, RejectsIdsOutsideTheFile) {
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

TEST(PerfHeader, RejectsDataOutsideTheFile) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, data), file_section{data_offset, 1 << 20});
  EXPECT_NE(error_of(file.path())
                .find(file.path() + ": offset 40: data section runs past the end of the file"),
            std::string::npos)
      << error_of(file.path());
}

TEST(PerfHeader, RejectsFeatureSectionOutsideTheFile) {
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

TEST(PerfHeader, RejectsTruncatedEventDesc) {
  patchable_file file;
  write_valid(file);
  std::uint64_t event_desc_descriptor = data_offset + 16 + 16;  // second set bit
  file_section section{};
  ASSERT_EQ(::pread(file.fd(), &section, sizeof section, static_cast<off_t>(event_desc_descriptor)),
            static_cast<ssize_t>(sizeof section));
  section.size = 8 + 128 + 4 + 2;  // cut inside the name's length field
  file.put(event_desc_descriptor, section);
  EXPECT_EQ(error_of(file.path()), file.path() + ": offset " +
                                       std::to_string(section.offset + 8 + 128 + 4) +
                                       ": EVENT_DESC needs 4 more bytes but its section has 2");
}

// One header reader serves strict readers and salvage: there a broken EVENT_DESC only costs the
// event names, and says so; the payload is dropped, so a converted file does not hand it to perf.
TEST(PerfHeader, SalvageKeepsAFileWhoseEventDescIsCutWithoutTheNames) {
  patchable_file file;
  write_valid(file);
  std::uint64_t event_desc_descriptor = data_offset + 16 + 16;
  file_section section{};
  ASSERT_EQ(::pread(file.fd(), &section, sizeof section, static_cast<off_t>(event_desc_descriptor)),
            static_cast<ssize_t>(sizeof section));
  section.size = 8 + 128 + 4 + 2;
  file.put(event_desc_descriptor, section);
  perf_header salvaged = read_perf_header(file.path(), header_mode::salvage);
  ASSERT_EQ(salvaged.events.size(), 1u);
  EXPECT_EQ(salvaged.events[0].name, "");
  EXPECT_FALSE(salvaged.features.has(feature_event_desc));
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
  EXPECT_EQ(salvaged.salvage_notes[0],
            file.path() + ": offset " + std::to_string(section.offset + 8 + 128 + 4) +
                ": EVENT_DESC needs 4 more bytes but its section has 2; dropping it, the events "
                "stay unnamed");
}

TEST(PerfHeader, RejectsAFileWithoutAttrs) {
  patchable_file file;
  write_valid(file);
  file.put(offsetof(file_header, attrs) + 8, std::uint64_t{0});
  EXPECT_EQ(error_of(file.path()), file.path() + ": offset 32: no attrs");
}

// A recording cut short by a full disk or a kill: the data runs to the end of the file and the
// feature table that was to follow it is gone.
TEST(PerfHeader, SalvageReadsADataSectionCutShortUpToTheEndOfTheFileWithoutFeatures) {
  patchable_file file;
  write_valid(file, 3);
  file.truncate(data_offset + 8 + 4);  // one whole record and half of the next
  perf_header salvaged = read_perf_header(file.path(), header_mode::salvage);
  EXPECT_EQ(salvaged.header.data.offset, data_offset);
  EXPECT_EQ(salvaged.header.data.size, 12u);
  EXPECT_EQ(salvaged.features.size(), 0u);
  ASSERT_EQ(salvaged.events.size(), 1u);
  EXPECT_EQ(salvaged.events[0].ids, std::vector<std::uint64_t>{5});
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
  EXPECT_EQ(salvaged.salvage_notes[0],
            file.path() +
                ": offset 48: data size 24 (file cut short); reading records up to the "
                "end of the file and dropping the features");
}

TEST(PerfHeader, SalvageDropsAFeatureOutsideTheFileAndKeepsTheOthers) {
  patchable_file file;
  write_valid(file);
  std::uint64_t table = data_offset + 16;
  file.put(table, file_section{table, 1 << 20});  // HOSTNAME's descriptor, the table's first
  perf_header salvaged = read_perf_header(file.path(), header_mode::salvage);
  EXPECT_FALSE(salvaged.features.has(feature_hostname));
  EXPECT_TRUE(salvaged.features.has(feature_event_desc));
  ASSERT_EQ(salvaged.events.size(), 1u);
  EXPECT_EQ(salvaged.events[0].name, "cpu-clock");
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
  EXPECT_EQ(salvaged.salvage_notes[0],
            file.path() + ": offset " + std::to_string(table) +
                ": section of feature 3 is outside the file; dropping that feature");
}

// A feature larger than any reader takes is refused as too large, not as outside the file (it
// used to be "outside the file" in salvage: a 293 MB perf-map feature arec itself wrote, well
// inside the file). The file is sparse: its 300 MiB cost no disk.
TEST(PerfHeader, AFeatureSectionTooLargeIsSaidToBeTooLarge) {
  patchable_file file;
  write_valid(file);
  std::uint64_t table = data_offset + 16;
  std::uint64_t size = std::uint64_t{300} << 20;
  ASSERT_EQ(::ftruncate(file.fd(), static_cast<off_t>(table + size + 4096)), 0);
  file.put(table, file_section{table, size});  // HOSTNAME's descriptor, the table's first
  EXPECT_EQ(error_of(file.path()), file.path() + ": offset " + std::to_string(table) +
                                       ": section of feature 3 is too large: it claims " +
                                       std::to_string(size) + " bytes, at most 268435456 are read");
  perf_header salvaged = read_perf_header(file.path(), header_mode::salvage);
  EXPECT_FALSE(salvaged.features.has(feature_hostname));
  ASSERT_EQ(salvaged.salvage_notes.size(), 1u);
  EXPECT_EQ(salvaged.salvage_notes[0], file.path() + ": offset " + std::to_string(table) +
                                           ": section of feature 3 is too large (" +
                                           std::to_string(size) +
                                           " bytes, at most 268435456); dropping that feature");
}
