// arec convert's parts: where records keep their time, the reorder window, and whole
// conversions of hand-made files (tests/fixtures/convert/make_fixtures.py): each kind of bad
// input gets its exact message and leaves no output behind; salvage keeps what is complete.
#include "convert/converter.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "convert/record_clock.hpp"
#include "convert/reorder_window.hpp"
#include "io/perf_data/perf_file_reader.hpp"
#include "io/perf_data/record_walker.hpp"
#include "io/usage_error.hpp"
#include "records.hpp"
#include "support/temp_dir.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

std::string fixture(const std::string& name) {
  return std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/convert/" + name;
}

// The names in `dir`: a failed conversion must leave nothing behind.
std::vector<std::string> entries(const test::temp_dir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    names.push_back(entry.path().filename().string());
  return names;
}

// Every record of a converted file, COMPRESSED ones expanded.
struct read_back {
  std::vector<std::uint32_t> types;
  std::vector<std::uint64_t> sample_times;
  std::size_t rounds = 0;
  std::size_t compressed = 0;
};

read_back read_output(const std::string& path) {
  auto file = io::perf::perf_file_reader::open(path);
  const auto& header = file.header();
  auto source = io::perf::record_walker::open(
      {path, header.data.offset, header.data.offset + header.data.size});
  read_back out;
  record_clock clock(file.events());
  while (auto r = source.next()) {
    out.types.push_back(r->header.type);
    if (r->header.type == io::perf::record_finished_round) ++out.rounds;
    if (r->header.type == PERF_RECORD_SAMPLE) out.sample_times.push_back(*clock.time_of(r->bytes));
  }
  out.compressed = source.compressed_records();
  return out;
}

std::string convert_error(const std::string& input, const test::temp_dir& dir,
                          bool salvage = false) {
  convert_options options;
  options.input = input;
  options.output = dir.file("out.perf");
  options.salvage = salvage;
  try {
    convert(options);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "(no error)";
}

struct bad_input {
  const char* file;
  const char* message;  // after the fixture directory
};

class ConvertBadInput : public ::testing::TestWithParam<bad_input> {};

TEST_P(ConvertBadInput, NamesFileOffsetAndProblemAndLeavesNoOutput) {
  test::temp_dir dir;
  EXPECT_EQ(convert_error(fixture(GetParam().file), dir),
            fixture("") + GetParam().message);
  EXPECT_TRUE(entries(dir).empty()) << entries(dir).front();
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ConvertBadInput,
    ::testing::Values(
        bad_input{"bad_magic.data", "bad_magic.data: offset 0: bad magic: not a perf.data file (no PERFILE2)"},
        bad_input{"short_header.data",
                  "short_header.data: offset 0: header truncated: the file has 50 of its 104 bytes"},
        bad_input{"attrs_outside.data",
                  "attrs_outside.data: offset 24: attrs section runs past the end of the file "
                  "(offset 1048576 + size 144 > 752 bytes)"},
        bad_input{"record_size_zero.data",
                  "record_size_zero.data: offset 360: record size 0 is smaller than its 8-byte "
                  "header (type 9)"},
        bad_input{"record_past_end.data",
                  "record_past_end.data: offset 696: record of size 200 runs past the end of the "
                  "data (56 bytes left, type 9)"},
        bad_input{"truncated.data",
                  "truncated.data: offset 40: data section runs past the end of the file (offset "
                  "248 + size 504 > 492 bytes)"},
        bad_input{"unfinished.data",
                  "unfinished.data: offset 48: data size is 0 but 348 bytes follow the header: the "
                  "recording was not finished (arec killed?); --salvage keeps its complete records"},
        bad_input{"corrupt_zstd.dir",
                  "corrupt_zstd.dir/data.0: offset 0: corrupt COMPRESSED record: zstd "
                  "decompression failed: Data corruption detected"},
        bad_input{"missing_data_n.dir",
                  "missing_data_n.dir/data.0: offset 0: missing: data.1 exists, so streaming "
                  "thread 0's file was lost"},
        bad_input{"cut_data_n.dir",
                  "cut_data_n.dir/data.0: offset 168: record of size 56 runs past the end of the "
                  "data (26 bytes left, type 9)"}));

TEST(Convert, MergesDirectoryFilesByTimeAndClearsDirFormat) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture("valid.dir");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.files, 3u);
  EXPECT_EQ(report.samples, 8u);
  EXPECT_EQ(report.compressed_in, 2u);
  EXPECT_EQ(report.late_records, 0u);

  auto file = io::perf::perf_file_reader::open(options.output);
  EXPECT_FALSE(file.feature(io::perf::feature_dir_format));
  EXPECT_FALSE(file.feature(io::perf::feature_compressed));
  ASSERT_TRUE(file.feature(io::perf::feature_sample_time));
  read_back back = read_output(options.output);
  EXPECT_EQ(back.sample_times, (std::vector<std::uint64_t>{1000, 1010, 1020, 1030, 1040, 1050,
                                                           1060, 1070}));
  EXPECT_EQ(back.types.front(), static_cast<std::uint32_t>(PERF_RECORD_COMM));
  EXPECT_EQ(back.types.back(), io::perf::record_finished_round);
  EXPECT_EQ(back.compressed, 0u);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.perf"});
}

TEST(Convert, CompressesTheOutputWhenAsked) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture("valid.dir");
  options.output = dir.file("out.perf");
  options.compression_level = 3;
  convert(options);
  auto file = io::perf::perf_file_reader::open(options.output);
  auto feature = file.feature(io::perf::feature_compressed);
  ASSERT_TRUE(feature);
  std::uint32_t level = 0;
  std::memcpy(&level, feature->data() + 8, 4);
  EXPECT_EQ(level, 3u);
  read_back back = read_output(options.output);
  EXPECT_EQ(back.compressed, 1u);
  EXPECT_EQ(back.sample_times.size(), 8u);
  EXPECT_TRUE(std::is_sorted(back.sample_times.begin(), back.sample_times.end()));
}

TEST(Convert, SalvageKeepsCompleteRecordsOfAnUnfinishedFile) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture("unfinished.data");
  options.output = dir.file("out.perf");
  options.salvage = true;
  convert_report report = convert(options);
  EXPECT_EQ(report.samples, 5u);
  EXPECT_EQ(report.dropped_bytes, 12u);
  ASSERT_EQ(report.notes.size(), 2u);
  EXPECT_EQ(report.notes[1], fixture("unfinished.data") +
                                 ": offset 584: record of size 56 runs past the end of the data "
                                 "(12 bytes left, type 9); dropped the 12 bytes from there on");
  EXPECT_EQ(read_output(options.output).sample_times.size(), 5u);
}

TEST(Convert, SalvageDropsTheCutRecordOfADataFile) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture("cut_data_n.dir");
  options.output = dir.file("out.perf");
  options.salvage = true;
  convert_report report = convert(options);
  EXPECT_EQ(report.samples, 7u);
  EXPECT_EQ(report.dropped_bytes, 26u);
  read_back back = read_output(options.output);
  EXPECT_TRUE(std::is_sorted(back.sample_times.begin(), back.sample_times.end()));
}

TEST(Convert, AnEmptyDataDirectoryIsSaidToHoldNothing) {
  test::temp_dir input;
  test::temp_dir dir;
  std::string message = input.path() +
                        ": offset 0: an empty data directory: the recording was stopped as it "
                        "created it, before anything was recorded there";
  EXPECT_EQ(convert_error(input.path(), dir), message);
  EXPECT_EQ(convert_error(input.path(), dir, true), message);
  EXPECT_TRUE(entries(dir).empty());
}

TEST(Convert, RefusesToOverwriteItsInput) {
  convert_options options;
  options.input = fixture("valid.data");
  options.output = fixture("valid.data");
  EXPECT_THROW(convert(options), io::usage_error);
}

TEST(Convert, ReportsProgressUpToTheWholeInput) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture("valid.data");
  options.output = dir.file("out.perf");
  convert_settings settings;
  convert_progress last;
  settings.progress = [&](const convert_progress& p) { last = p; };
  convert(options, settings);
  EXPECT_EQ(last.bytes_total, 504u);
  EXPECT_EQ(last.bytes_read, 504u);
}

}  // namespace
}  // namespace arec::convert
