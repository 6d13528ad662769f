// arec convert's parts: where records keep their time, the reorder window, and whole
// conversions of hand-made files (tests/fixtures/convert/make_fixtures.py): each kind of bad
// input gets its exact message and leaves no output behind; salvage keeps what is complete.
#include "convert/converter.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "base/usage_error.hpp"
#include "convert/record_clock.hpp"
#include "convert/reorder_window.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "perf_data/pipe_stream.hpp"
#include "perf_data/record_walker.hpp"
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
  auto file = perf_data::perf_file_reader::open(path);
  const auto& header = file.header();
  auto source = perf_data::record_walker::open(
      {path, header.data.offset, header.data.offset + header.data.size});
  read_back out;
  record_clock clock(file.events());
  while (auto r = source.next()) {
    out.types.push_back(r->header.type);
    if (r->header.type == perf_data::record_finished_round) ++out.rounds;
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
  EXPECT_EQ(convert_error(fixture(GetParam().file), dir), fixture("") + GetParam().message);
  EXPECT_TRUE(entries(dir).empty()) << entries(dir).front();
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ConvertBadInput,
    ::testing::Values(
        bad_input{"bad_magic.data",
                  "bad_magic.data: offset 0: bad magic: not a perf.data file (no PERFILE2)"},
        bad_input{
            "short_header.data",
            "short_header.data: offset 0: header truncated: the file has 50 of its 104 bytes"},
        bad_input{"attrs_outside.data",
                  "attrs_outside.data: offset 24: attrs section runs past the end of the file "
                  "(offset 1048576 + size 144 > 752 bytes)"},
        bad_input{"record_size_zero.data",
                  "record_size_zero.data: offset 360: record size 0 is smaller than its 8-byte "
                  "header (type 9)"},
        bad_input{"record_past_end.data",
                  "record_past_end.data: offset 696: record of size 200 runs past the end of the "
                  "data (56 bytes left, type 9); cut short? --salvage keeps the records before "
                  "it"},
        bad_input{"truncated.data",
                  "truncated.data: offset 40: data section runs past the end of the file (offset "
                  "248 + size 504 > 492 bytes); cut short? --salvage keeps its complete records"},
        bad_input{
            "unfinished.data",
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
                  "data (26 bytes left, type 9); cut short? --salvage keeps the records before "
                  "it"}));

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

  auto file = perf_data::perf_file_reader::open(options.output);
  EXPECT_FALSE(file.feature(perf_data::feature_dir_format));
  EXPECT_FALSE(file.feature(perf_data::feature_compressed));
  ASSERT_TRUE(file.feature(perf_data::feature_sample_time));
  read_back back = read_output(options.output);
  EXPECT_EQ(back.sample_times,
            (std::vector<std::uint64_t>{1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070}));
  EXPECT_EQ(back.types.front(), static_cast<std::uint32_t>(PERF_RECORD_COMM));
  EXPECT_EQ(back.types.back(), perf_data::record_finished_round);
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
  auto file = perf_data::perf_file_reader::open(options.output);
  auto feature = file.feature(perf_data::feature_compressed);
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
  ASSERT_EQ(report.notes.size(), 3u);
  // Its features were never written: salvage names its one attr from its type and config.
  EXPECT_EQ(report.notes[1], fixture("unfinished.data") +
                                 ": no EVENT_DESC; named 1 of its 1 events from their attrs (as "
                                 "perf 6.1 does; offcpu-time for arec's off-CPU event)");
  EXPECT_EQ(report.notes[2], fixture("unfinished.data") +
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
  EXPECT_THROW(convert(options), base::usage_error);
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

// Damaged recordings (random byte changes of arec recordings) whose conversion perf 6.1 crashed
// on (SIGSEGV, or a stack overflow abort) before arec checked what perf reads; perf must now
// read the whole output. Made by mutating `arec -e cpu-clock` recordings, then shrunk to the
// records that still crashed perf and a few good samples.
struct damaged_input {
  const char* file;  // in tests/fixtures/convert/damaged/
  bool salvage;
  std::uint64_t samples;  // what the conversion keeps, and perf script prints
};

class ConvertDamagedInput : public ::testing::TestWithParam<damaged_input> {};

// Runs `command` (stderr discarded); its wait status and what it printed on stdout.
std::pair<int, std::string> run(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return {-1, {}};
  std::string out;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  return {::pclose(pipe), out};
}

TEST_P(ConvertDamagedInput, PerfReadsTheOutputWhole) {
  test::temp_dir dir;
  convert_options options;
  options.input = fixture(std::string("damaged/") + GetParam().file);
  options.output = dir.file("out.perf");
  options.salvage = GetParam().salvage;
  convert_report report = convert(options);
  EXPECT_EQ(report.samples, GetParam().samples);
  EXPECT_FALSE(report.rejected.empty() && report.dropped_features.empty());

  auto [report_status, report_out] = run("perf report --stdio -i " + options.output);
  EXPECT_TRUE(WIFEXITED(report_status))
      << "perf report ended by signal " << WTERMSIG(report_status);
  EXPECT_EQ(WEXITSTATUS(report_status), 0);
  EXPECT_NE(report_out.find("# Samples: " + std::to_string(report.samples)), std::string::npos)
      << report_out.substr(0, 600);
  auto [script_status, script_out] = run("perf script -F pid -i " + options.output);
  EXPECT_TRUE(WIFEXITED(script_status))
      << "perf script ended by signal " << WTERMSIG(script_status);
  EXPECT_EQ(WEXITSTATUS(script_status), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(std::count(script_out.begin(), script_out.end(), '\n')),
            report.samples);
}

INSTANTIATE_TEST_SUITE_P(
    Reproducers, ConvertDamagedInput,
    ::testing::Values(damaged_input{"sample_cpu.data", false, 4},  // a SAMPLE's cpu 0xe0000000
                      damaged_input{"sample_cpu.data", true, 4},
                      damaged_input{"pipe_sample_cpu.data", false,
                                    4},                               // the same, in a pipe stream
                      damaged_input{"callchain_cpu.data", false, 4},  // -g: cpu, cut callchain
                      damaged_input{"build_id_size.data", false, 5},  // a build-id of 160 bytes
                      damaged_input{"event_desc_salvage.data", true, 4}));  // broken EVENT_DESC

// Its attrs disagree on where the sample id is: perf says "non matching sample_type".
TEST(Convert, RefusesAttrsPerfRefusesTogether) {
  test::temp_dir dir;
  EXPECT_EQ(convert_error(fixture("damaged/attr_id_moved.data"), dir),
            fixture("damaged/attr_id_moved.data") +
                ": offset 136: attr 1 keeps the sample id elsewhere than attr 0: perf 6.1 refuses "
                "it (non matching sample_type)");
  EXPECT_TRUE(entries(dir).empty());
}

// Each problem is counted once with the first place it was seen; the rest of the file is kept.
TEST(Convert, DropsRecordsPerfCannotReadCountingEachProblem) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1}), event(sample_type, {2})};
  constexpr std::uint64_t pid_tid = 0x0000000700000007;
  write_recording(dir.file("in.perf"), events,
                  {record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1),
                   record(PERF_RECORD_SAMPLE, 99, 0x1000, pid_tid, 110, 0, 1),
                   record(PERF_RECORD_SAMPLE, 2, 0x1000, pid_tid),
                   record(PERF_RECORD_SAMPLE, 98, 0x1000, pid_tid, 120, 0, 1),
                   record(PERF_RECORD_SAMPLE, 2, 0x1000, pid_tid, 130, 1, 1)});
  convert_options options;
  options.input = dir.file("in.perf");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.samples, 2u);
  ASSERT_EQ(report.rejected.size(), 2u);
  EXPECT_EQ(report.rejected[0].problem, "record whose sample id no attr owns");
  EXPECT_EQ(report.rejected[0].count, 2u);
  EXPECT_EQ(report.rejected[0].first, options.input + ": offset 464");  // the second record
  EXPECT_EQ(report.rejected[1].problem, "SAMPLE shorter than its attr's sample_type says");
  EXPECT_EQ(report.rejected[1].count, 1u);
  EXPECT_EQ(read_output(options.output).sample_times, (std::vector<std::uint64_t>{100, 130}));
}

// perf 6.16-7.x write record types and header features perf 6.1 does not know: the converted
// file leaves them out and the report names each with its count.
TEST(Convert, DropsNewerRecordTypesAndFeaturesNamingEach) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1})};
  constexpr std::uint64_t pid_tid = 0x0000000700000007;
  perf_data::feature_set features;
  perf_data::feature_encoder hostname;
  hostname.string("host");
  features.set(perf_data::feature_hostname, hostname.take());
  features.set(static_cast<perf_data::feature>(32), std::vector<std::byte>(24, std::byte{1}));
  features.set(static_cast<perf_data::feature>(34), std::vector<std::byte>(8, std::byte{2}));
  write_recording(dir.file("in.perf"), events,
                  {record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1), record(84, 0, 0),
                   record(85, 1, 100), record(85, 1, 100), record(22, 1, 2, 3),
                   record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 130, 0, 1)},
                  features);
  convert_options options;
  options.input = dir.file("in.perf");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.samples, 2u);
  EXPECT_EQ(describe_unknown_records(report.unknown_records),
            "22 CALLCHAIN_DEFERRED (1), 84 BPF_METADATA (1), 85 SCHEDSTAT_CPU (2)");
  EXPECT_EQ(report.dropped_features,
            (std::vector<std::string>{"CPU_DOMAIN_INFO (32), newer than perf 6.1",
                                      "CLN_SIZE (34), newer than perf 6.1"}));
  auto file = perf_data::perf_file_reader::open(options.output);
  EXPECT_TRUE(file.feature(perf_data::feature_hostname));
  EXPECT_FALSE(file.feature(static_cast<perf_data::feature>(32)));
  EXPECT_FALSE(file.feature(static_cast<perf_data::feature>(34)));
  EXPECT_EQ(read_output(options.output).types,
            (std::vector<std::uint32_t>{PERF_RECORD_SAMPLE, PERF_RECORD_SAMPLE,
                                        perf_data::record_finished_round}));
}

// An MMAP2 record carrying the build-id of `name` (PERF_RECORD_MISC_MMAP_BUILD_ID), as perf
// 6.17+ writes them by default; its trailer: TID, TIME, CPU, IDENTIFIER.
std::vector<std::byte> mmap2_with_build_id(const std::string& name, std::uint8_t first_byte,
                                           std::uint64_t time) {
  std::vector<std::uint64_t> words{0x0000000700000007, 0x400000, 0x1000, 0};
  std::array<std::uint8_t, 24> id{20};  // size 20, 3 reserved, the 20 bytes
  for (std::size_t i = 4; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(first_byte + i);
  std::uint64_t id_words[3];
  std::memcpy(id_words, id.data(), sizeof id_words);
  words.insert(words.end(), std::begin(id_words), std::end(id_words));
  words.push_back(PROT_READ | PROT_EXEC);  // prot, flags 0
  for (std::uint64_t word : string_words(name)) words.push_back(word);
  words.insert(words.end(), {0x0000000700000007, time, 0, 1});
  std::vector<std::byte> out = record_of(PERF_RECORD_MMAP2, words);
  std::uint16_t misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
  std::memcpy(out.data() + 4, &misc, sizeof misc);
  return out;
}

// perf 6.17+ puts build-ids in MMAP2 records and writes no BUILD_ID feature; hotspot's parser
// finds them only there: the converted file's feature gets an entry for each file the records
// name and the recording's own entries do not.
TEST(Convert, AddsTheBuildIdsOfMmap2RecordsToTheBuildIdFeature) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1})};
  perf_data::build_id_entry known{
      PERF_RECORD_MISC_USER,
      perf_data::build_id::from(std::as_bytes(std::span{"0123456789abcdefghij", 20})),
      "/usr/lib/known.so"};
  perf_data::feature_set features;
  features.set(perf_data::feature_build_id, perf_data::build_id_payload(std::span{&known, 1}));
  write_recording(dir.file("in.perf"), events,
                  {mmap2_with_build_id("/usr/bin/app", 0x10, 90),
                   mmap2_with_build_id("/usr/lib/known.so", 0x30, 91),
                   mmap2_with_build_id("/usr/bin/app", 0x10, 92),   // the same again
                   mmap2_with_build_id("/usr/bin/app", 0x50, 93)},  // replaced by a deploy
                  features);
  convert_options options;
  options.input = dir.file("in.perf");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.mmap_build_ids, 2u);
  auto file = perf_data::perf_file_reader::open(options.output);
  auto payload = file.feature(perf_data::feature_build_id);
  ASSERT_TRUE(payload);
  std::vector<perf_data::build_id_entry> entries =
      perf_data::parse_build_id_payload(*payload, 0, "BUILD_ID");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].filename, "/usr/lib/known.so");
  EXPECT_EQ(entries[0].id, known.id);
  EXPECT_EQ(entries[1].filename, "/usr/bin/app");
  EXPECT_EQ(entries[1].id.hex().substr(0, 4), "1415");
  EXPECT_EQ(entries[2].filename, "/usr/bin/app");
  EXPECT_EQ(entries[2].id.hex().substr(0, 4), "5455");
  EXPECT_EQ(entries[1].cpumode, PERF_RECORD_MISC_USER);
}

// AUXTRACE's trace data follows the record, outside the size its header gives: no walk of the
// data section can step over it, so the conversion stops and says why.
TEST(Convert, RefusesAuxTraceDataNamingTheRecordType) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1})};
  write_recording(dir.file("in.perf"), events,
                  {record(perf_data::record_auxtrace, 0, 0, 0, 0, 0, 0)});
  std::string error = convert_error(dir.file("in.perf"), dir);
  EXPECT_NE(error.find(": record type 71 carries data outside its size (pipe tracing data or AUX "
                       "trace); not supported"),
            std::string::npos)
      << error;
  EXPECT_EQ(entries(dir), std::vector<std::string>{"in.perf"});
}

TEST(Convert, DropsABuildIdFeaturePerfOverflowsOn) {
  test::temp_dir dir;
  perf_data::build_id_entry entry;
  entry.cpumode = PERF_RECORD_MISC_USER;
  entry.id.size = 20;
  entry.filename = std::string(5000, 'x');
  perf_data::feature_set features;
  features.set(perf_data::feature_build_id, perf_data::build_id_payload(std::span{&entry, 1}));
  std::vector<perf_data::event_entry> events{event(sample_type, {1})};
  write_recording(dir.file("in.perf"), events,
                  {record(PERF_RECORD_SAMPLE, 1, 0x1000, 7, 100, 0, 1)}, features);
  convert_options options;
  options.input = dir.file("in.perf");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.dropped_features,
            std::vector<std::string>{"byte 0 of the BUILD_ID feature: a BUILD_ID entry whose "
                                     "filename takes 5056 bytes, more than 4096"});
  EXPECT_FALSE(
      perf_data::perf_file_reader::open(options.output).feature(perf_data::feature_build_id));
}

// A pipe stream (arec -o -) of `samples` samples, its one attr with `ids`.
std::vector<std::byte> pipe_stream(int samples, std::vector<std::uint64_t> ids = {1}) {
  std::vector<perf_data::event_entry> events{event(sample_type, std::move(ids))};
  std::vector<std::byte> bytes = perf_data::pipe_stream_head(events, {});
  for (int i = 0; i < samples; ++i) {
    auto r = record(PERF_RECORD_SAMPLE, 1, 0x1000, 7, 100 + i, 0, 1);
    bytes.insert(bytes.end(), r.begin(), r.end());
  }
  return bytes;
}

// perf reads `-i -` as a pipe stream on standard input; so does arec convert.
TEST(Convert, ReadsAPipeStreamFromStandardInput) {
  test::temp_dir dir;
  std::vector<std::byte> stream = pipe_stream(3);
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  ASSERT_EQ(::write(ends[1], stream.data(), stream.size()), static_cast<ssize_t>(stream.size()));
  ::close(ends[1]);
  int saved = ::dup(STDIN_FILENO);
  ::dup2(ends[0], STDIN_FILENO);
  ::close(ends[0]);
  convert_options options;
  options.input = "-";
  options.output = dir.file("out.perf");
  convert_report report;
  EXPECT_NO_THROW(report = convert(options));
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_EQ(report.samples, 3u);
  EXPECT_EQ(read_output(options.output).sample_times, (std::vector<std::uint64_t>{100, 101, 102}));
}

// A FIFO is read to its end as a pipe stream, as perf does; errors name the FIFO.
TEST(Convert, ReadsAPipeStreamFromAFifoNamingItInErrors) {
  test::temp_dir dir;
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::byte> stream = pipe_stream(2);
  std::size_t cut = stream.size() - 20;  // the second time the last sample is cut short
  for (std::size_t size : {stream.size(), cut}) {
    std::thread writer([&] {
      std::ofstream out(fifo, std::ios::binary);
      out.write(reinterpret_cast<const char*>(stream.data()), static_cast<std::streamsize>(size));
    });
    std::string error = convert_error(fifo, dir);
    writer.join();
    if (size == stream.size()) {
      EXPECT_EQ(error, "(no error)");
      EXPECT_EQ(read_output(dir.file("out.perf")).sample_times.size(), 2u);
    } else {
      EXPECT_EQ(error, fifo + ": offset " + std::to_string(stream.size() - 56) +
                           ": record of size 56 runs past the end of the data (36 bytes left, "
                           "type 9); cut short? --salvage keeps the records before it");
    }
  }
}

// Found by ArchiveFuzz: a HEADER_ATTR without ids made the head reader memcpy to null (UBSan).
TEST(Convert, ReadsAPipeStreamWhoseAttrHasNoIds) {
  test::temp_dir dir;
  std::vector<std::byte> stream = pipe_stream(2, {});
  std::string input = dir.file("pipe.perf");
  std::ofstream(input, std::ios::binary)
      .write(reinterpret_cast<const char*>(stream.data()),
             static_cast<std::streamsize>(stream.size()));
  convert_options options;
  options.input = input;
  options.output = dir.file("out.perf");
  EXPECT_EQ(convert(options).samples, 2u);
}

TEST(Convert, RefusesADeviceSayingWhatItIs) {
  test::temp_dir dir;
  EXPECT_EQ(convert_error("/dev/null", dir),
            "/dev/null: offset 0: a character device, not a perf.data file: arec convert reads "
            "files, data directories and pipe streams (a FIFO or -i -)");
}

}  // namespace
}  // namespace arec::convert
