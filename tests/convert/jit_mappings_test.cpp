// jit_mappings: anonymous executable mappings of a process whose perf map was captured become
// MMAP2s of the ELF of that map's code in the mapping (pgoff 0: the ELF is laid out as the
// mapping's file), their sample_id trailer kept; the ELF is in the build-id cache and in
// BUILD_ID. Anything else passes unchanged, and a cache that cannot be written is said.
#include "convert/jit_mappings.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "convert/converter.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "perf_data/record_walker.hpp"
#include "records.hpp"
#include "support/temp_dir.hpp"
#include "symbols/build_id_cache_layout.hpp"
#include "support/jitdump_bytes.hpp"
#include "symbols/elf_symbols.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

constexpr std::uint64_t code_start = 0x7f0000001000;
constexpr std::uint64_t code_len = 0x2000;
const std::string map_text = "7f0000001100 80 JS:*jsHotFunction hot.js:1:1\n";

// An MMAP2 of process 7 named `name`, with a TID+TIME trailer (time `time`).
std::vector<std::byte> mmap2(const std::string& name, std::uint32_t prot, std::uint64_t time = 5,
                             std::uint32_t pid = 7) {
  std::vector<std::uint64_t> words{
      pid | std::uint64_t{pid} << 32,         code_start, code_len, 0, 0, 0, 0,
      prot | std::uint64_t{MAP_PRIVATE} << 32};
  for (std::uint64_t word : string_words(name)) words.push_back(word);
  words.push_back(pid | std::uint64_t{pid} << 32);
  words.push_back(time);
  return record_of(PERF_RECORD_MMAP2, words);
}

template <typename T>
T field(std::span<const std::byte> record, std::size_t at) {
  T value{};
  std::memcpy(&value, record.data() + at, sizeof value);
  return value;
}

std::string name_of(std::span<const std::byte> record) {
  return reinterpret_cast<const char*>(record.data() + 72);
}

class JitMappings : public ::testing::Test {
 protected:
  jit_mappings make(std::string text = map_text) {
    return jit_mappings({{7, std::move(text)}}, cache_.path());
  }
  test::temp_dir cache_;
};

TEST_F(JitMappings, AnonymousCodeOfAMappedProcessNamesItsElf) {
  jit_mappings jit = make();
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC, 1234);
  std::span<const std::byte> rewritten = jit.rewrite(anon);
  std::vector<std::byte> out{rewritten.begin(), rewritten.end()};
  EXPECT_EQ(field<std::uint32_t>(out, 0), PERF_RECORD_MMAP2);
  EXPECT_EQ(field<std::uint16_t>(out, 6), out.size());
  EXPECT_EQ(name_of(out), "/jit/perf-7.map.7f0000001000-7f0000003000.elf");
  EXPECT_EQ(field<std::uint64_t>(out, 16), code_start);
  EXPECT_EQ(field<std::uint64_t>(out, 24), code_len);
  EXPECT_EQ(field<std::uint64_t>(out, 32), 0u) << "pgoff: the ELF is the mapping's file";
  EXPECT_EQ(field<std::uint64_t>(out, 48), 0u) << "no inode: found by name";
  EXPECT_EQ(field<std::uint32_t>(out, 64), std::uint32_t{PROT_READ | PROT_EXEC});
  EXPECT_EQ(field<std::uint64_t>(out, out.size() - 8), 1234u) << "the trailer's time kept";
  EXPECT_EQ(jit.rewritten(), 1u);

  std::vector<perf_data::build_id_entry> ids = jit.build_ids();
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ids[0].filename, "/jit/perf-7.map.7f0000001000-7f0000003000.elf");
  EXPECT_EQ(ids[0].cpumode, PERF_RECORD_MISC_USER);
  auto table = symbols::read_elf_symbols(
      (symbols::build_id_link_path(cache_.path(), ids[0].id.hex()) + "/elf").c_str());
  ASSERT_TRUE(table) << "the ELF is where perf looks for that build-id";
  ASSERT_EQ(table->symbols.size(), 1u);
  EXPECT_EQ(table->symbols[0].name, "JS:*jsHotFunction hot.js:1:1");
  EXPECT_EQ(table->id, ids[0].id);
}

TEST_F(JitMappings, AnMmapOfAnonymousCodeBecomesAnMmap2) {
  jit_mappings jit = make();
  std::vector<std::uint64_t> words{7 | std::uint64_t{7} << 32, code_start, code_len, 0};
  for (std::uint64_t word : string_words("//anon")) words.push_back(word);
  words.push_back(7 | std::uint64_t{7} << 32);
  words.push_back(99);
  std::vector<std::byte> mmap = record_of(PERF_RECORD_MMAP, words);
  std::span<const std::byte> out = jit.rewrite(mmap);
  EXPECT_EQ(field<std::uint32_t>(out, 0), PERF_RECORD_MMAP2);
  EXPECT_EQ(name_of(out), "/jit/perf-7.map.7f0000001000-7f0000003000.elf");
  EXPECT_EQ(field<std::uint32_t>(out, 64), std::uint32_t{PROT_READ | PROT_EXEC});
  EXPECT_EQ(field<std::uint64_t>(out, out.size() - 8), 99u);
}

TEST_F(JitMappings, EverythingElsePassesUnchanged) {
  jit_mappings jit = make();
  for (const std::vector<std::byte>& record :
       {mmap2("//anon", PROT_READ | PROT_WRITE), mmap2("/usr/bin/node", PROT_READ | PROT_EXEC),
        mmap2("//anon", PROT_READ | PROT_EXEC, 5, 8), record(PERF_RECORD_SAMPLE, 1, 2, 3)}) {
    std::span<const std::byte> out = jit.rewrite(record);
    EXPECT_EQ(out.data(), record.data());
  }
  EXPECT_EQ(jit.rewritten(), 0u);
  EXPECT_TRUE(jit.build_ids().empty()) << "no ELF for a process none of whose code was mapped";
}

// Two maps for one pid in one file are two processes that had it in turn: samples cannot tell
// them apart, so neither map names its code (as in export).
TEST_F(JitMappings, APidTwoCapturedMapsNameGetsNoElf) {
  jit_mappings jit({{7, map_text}, {7, map_text}}, cache_.path());
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC);
  EXPECT_EQ(jit.rewrite(anon).data(), anon.data());
  EXPECT_TRUE(jit.build_ids().empty());
}

TEST_F(JitMappings, AMapWithoutFunctionsChangesNothing) {
  jit_mappings jit = make("not a perf map\n");
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC);
  EXPECT_EQ(jit.rewrite(anon).data(), anon.data());
  EXPECT_TRUE(jit.build_ids().empty());
  EXPECT_TRUE(jit.warnings().empty());
}

TEST_F(JitMappings, ACacheThatCannotBeWrittenIsSaidAndLeavesTheMappingAnonymous) {
  std::string blocker = cache_.file("file");
  std::ofstream{blocker} << "not a directory";
  jit_mappings jit({{7, map_text}}, blocker);
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC);
  EXPECT_EQ(jit.rewrite(anon).data(), anon.data());
  ASSERT_EQ(jit.warnings().size(), 1u);
  EXPECT_NE(jit.warnings()[0].find("process 7"), std::string::npos) << jit.warnings()[0];
  EXPECT_NE(jit.warnings()[0].find(blocker), std::string::npos) << jit.warnings()[0];
  EXPECT_TRUE(jit.build_ids().empty());
}

TEST_F(JitMappings, WhatAConversionAddsToTheCacheIsBounded) {
  jit_mappings jit({{7, map_text}}, cache_.path(), 100);
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC);
  EXPECT_EQ(jit.rewrite(anon).data(), anon.data());
  ASSERT_EQ(jit.warnings().size(), 1u);
  EXPECT_NE(jit.warnings()[0].find("process 7"), std::string::npos) << jit.warnings()[0];
  EXPECT_TRUE(jit.build_ids().empty());
}

// Converts `dir`'s in.data to out.data, its JIT ELFs into `dir`'s cache.
convert_report convert_in(const test::temp_dir& dir) {
  convert_options options;
  options.input = dir.file("in.data");
  options.output = dir.file("out.data");
  return convert(options, {.build_id_dir = dir.file("cache")});
}

// The converted file's records but FINISHED_ROUND: each "sample", or an MMAP2's "name at time".
std::vector<std::string> converted_records(const std::string& path) {
  auto file = perf_data::perf_file_reader::open(path);
  auto walker = perf_data::record_walker::open(
      {path, file.header().data.offset, file.header().data.offset + file.header().data.size});
  std::vector<std::string> seen;
  while (auto r = walker.next()) {
    if (r->header.type == PERF_RECORD_MMAP2)
      seen.push_back(name_of(r->bytes) + " at " +
                     std::to_string(field<std::uint64_t>(r->bytes, r->bytes.size() - 8)));
    else if (r->header.type == PERF_RECORD_SAMPLE)
      seen.push_back("sample");
    else if (r->header.type != perf_data::record_finished_round)
      seen.push_back("type " + std::to_string(r->header.type));
  }
  return seen;
}

TEST(ConvertJit, TheConvertedFileNamesTheElfInItsMappingAndBuildIds) {
  test::temp_dir dir;
  perf_data::feature_set features;
  perf_data::captured_perf_map map{7, map_text};
  features.set(perf_data::feature_arec_perf_maps, perf_data::perf_maps_payload(std::span{&map, 1}));
  perf_data::build_id_entry own{PERF_RECORD_MISC_USER,
                                perf_data::build_id::from(std::vector<std::byte>(20)),
                                "/usr/bin/node"};
  features.set(perf_data::feature_build_id, perf_data::build_id_payload(std::span{&own, 1}));
  std::vector<perf_data::event_entry> events{event(PERF_SAMPLE_TID | PERF_SAMPLE_TIME, {})};
  write_recording(dir.file("in.data"), events,
                  {mmap2("//anon", PROT_READ | PROT_EXEC, 10),
                   record(PERF_RECORD_SAMPLE, 7 | std::uint64_t{7} << 32, 20)},
                  features);
  convert_report report = convert_in(dir);
  EXPECT_EQ(report.jit_mappings, 1u);
  EXPECT_TRUE(report.warnings.empty());

  EXPECT_EQ(converted_records(dir.file("out.data")),
            (std::vector<std::string>{"/jit/perf-7.map.7f0000001000-7f0000003000.elf at 10",
                                      "sample"}));
  auto file = perf_data::perf_file_reader::open(dir.file("out.data"));
  auto payload = file.feature(perf_data::feature_build_id);
  ASSERT_TRUE(payload);
  auto entries = perf_data::parse_build_id_payload(*payload, 0, "out.data");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].filename, "/usr/bin/node") << "the recording's own entries kept";
  EXPECT_EQ(entries[1].filename, "/jit/perf-7.map.7f0000001000-7f0000003000.elf");
  EXPECT_TRUE(symbols::read_elf_symbols(
      (symbols::build_id_link_path(dir.file("cache"), entries[1].id.hex()) + "/elf").c_str()));
}

// Process 7's jitdump: JS:*first over the mapping's first 0x100 bytes at 1100 (monotonic), then
// JS:*second over the same bytes at 1500; the recording's clock runs 10000 ns ahead.
constexpr perf_data::file_clocks ahead{{1000, 11000}, {2000, 12000}};

perf_data::captured_jitdumps reused_code_dump() {
  std::string bytes = test::jitdump_header(false, test::jitdump_magic, 7) +
                      test::jitdump_code_load("JS:*first", 0x100, false, code_start, 1100, 7) +
                      test::jitdump_code_load("JS:*second", 0x100, false, code_start, 1500, 7);
  return {ahead, {{7, bytes, 0}}};
}

record_clock tid_time_clock() {
  static const std::vector<perf_data::event_entry> events{
      event(PERF_SAMPLE_TID | PERF_SAMPLE_TIME, {})};
  return record_clock(events);
}

// The records a switch writes.
struct collected final : io::record_sink {
  void write(std::span<const std::byte> record) override {
    records.emplace_back(record.begin(), record.end());
  }
  std::vector<std::vector<std::byte>> records;
};

// The name the ELF that build-id entry `entry` names gives `address`.
std::string elf_names(const std::string& cache, const perf_data::build_id_entry& entry,
                      std::uint64_t address) {
  auto table =
      symbols::read_elf_symbols((symbols::build_id_link_path(cache, entry.id.hex()) + "/elf").c_str());
  if (!table) return "no ELF";
  for (const auto& symbol : table->symbols)
    if (symbol.start <= address && address < symbol.start + symbol.size) return symbol.name;
  return "";
}

TEST_F(JitMappings, ADumpsMappingsNameTheGenerationOfTheirTimeAndSwitchWhenTheNextBegins) {
  jit_mappings jit({}, cache_.path());
  jit.add_jitdumps(reused_code_dump(), tid_time_clock());
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC, 11050);
  std::span<const std::byte> rewritten = jit.rewrite(anon);
  EXPECT_EQ(name_of(rewritten), "/jit/jitdump-7.7f0000001000-7f0000003000.1.elf");

  collected out;
  ASSERT_TRUE(jit.switches_pending());
  jit.switch_generations(11499, out);
  EXPECT_TRUE(out.records.empty()) << "the second generation begins at 11500";
  jit.switch_generations(11600, out);
  ASSERT_EQ(out.records.size(), 1u);
  const std::vector<std::byte>& remapped = out.records[0];
  EXPECT_EQ(field<std::uint32_t>(remapped, 0), PERF_RECORD_MMAP2);
  EXPECT_EQ(name_of(remapped), "/jit/jitdump-7.7f0000001000-7f0000003000.2.elf");
  EXPECT_EQ(field<std::uint64_t>(remapped, 16), code_start);
  EXPECT_EQ(field<std::uint64_t>(remapped, 24), code_len);
  EXPECT_EQ(field<std::uint64_t>(remapped, 32), 0u);
  EXPECT_EQ(field<std::uint64_t>(remapped, remapped.size() - 8), 11500u)
      << "at the generation's time";
  EXPECT_EQ(field<std::uint64_t>(remapped, remapped.size() - 16), 7u | std::uint64_t{7} << 32);
  EXPECT_FALSE(jit.switches_pending());
  EXPECT_EQ(jit.remapped(), 1u);

  std::vector<perf_data::build_id_entry> ids = jit.build_ids();
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0].filename, "/jit/jitdump-7.7f0000001000-7f0000003000.1.elf");
  EXPECT_EQ(elf_names(cache_.path(), ids[0], code_start + 0x10), "JS:*first");
  EXPECT_EQ(ids[1].filename, "/jit/jitdump-7.7f0000001000-7f0000003000.2.elf");
  EXPECT_EQ(elf_names(cache_.path(), ids[1], code_start + 0x10), "JS:*second");
}

TEST_F(JitMappings, AMappingMadeAfterTheReuseNamesTheLaterGeneration) {
  jit_mappings jit({}, cache_.path());
  jit.add_jitdumps(reused_code_dump(), tid_time_clock());
  collected out;
  jit.switch_generations(11600, out);
  EXPECT_TRUE(out.records.empty()) << "no mapping yet";
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC, 11700);
  EXPECT_EQ(name_of(jit.rewrite(anon)), "/jit/jitdump-7.7f0000001000-7f0000003000.2.elf");
  EXPECT_EQ(jit.build_ids().size(), 1u) << "no ELF for a generation nothing names";
}

// A process with a perf map and a dump: each generation's ELF holds the map's lines too.
TEST_F(JitMappings, AProcessWithAMapAndADumpHasBothInEachGeneration) {
  jit_mappings jit({{7, "7f0000001800 80 perf-map-function\n"}}, cache_.path());
  jit.add_jitdumps(reused_code_dump(), tid_time_clock());
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC, 11050);
  EXPECT_EQ(name_of(jit.rewrite(anon)), "/jit/jitdump-7.7f0000001000-7f0000003000.1.elf");
  std::vector<perf_data::build_id_entry> ids = jit.build_ids();
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(elf_names(cache_.path(), ids[0], 0x7f0000001810), "perf-map-function");
  EXPECT_EQ(elf_names(cache_.path(), ids[0], code_start + 0x10), "JS:*first");
}

// Two dumps for one pid: the pid was reused, and neither dump (nor a map) names its code.
TEST_F(JitMappings, APidTwoCapturedDumpsNameGetsNoElf) {
  perf_data::captured_jitdumps dumps = reused_code_dump();
  dumps.dumps.push_back(dumps.dumps.front());
  jit_mappings jit({{7, map_text}}, cache_.path());
  jit.add_jitdumps(std::move(dumps), tid_time_clock());
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC);
  EXPECT_EQ(jit.rewrite(anon).data(), anon.data());
  EXPECT_TRUE(jit.build_ids().empty());
  EXPECT_FALSE(jit.switches_pending());
}

// A dump timed by the CPU's counter: one ELF, the code written last naming reused memory, said.
TEST_F(JitMappings, ADumpWhoseTimesCannotBePlacedIsOneGenerationAndSaysSo) {
  std::string bytes = test::jitdump_header(false, test::jitdump_magic, 7, 1) +
                      test::jitdump_code_load("JS:*first", 0x100, false, code_start, 1100, 7) +
                      test::jitdump_code_load("JS:*second", 0x100, false, code_start, 1500, 7);
  jit_mappings jit({}, cache_.path());
  jit.add_jitdumps({ahead, {{7, bytes, 0}}}, tid_time_clock());
  EXPECT_FALSE(jit.switches_pending());
  ASSERT_EQ(jit.warnings().size(), 1u);
  EXPECT_NE(jit.warnings()[0].find("process 7"), std::string::npos) << jit.warnings()[0];
  std::vector<std::byte> anon = mmap2("//anon", PROT_READ | PROT_EXEC, 11050);
  EXPECT_EQ(name_of(jit.rewrite(anon)), "/jit/jitdump-7.7f0000001000-7f0000003000.1.elf");
  EXPECT_EQ(elf_names(cache_.path(), jit.build_ids().at(0), code_start + 0x10), "JS:*second");
}

// The whole conversion: the converted file maps node's code to the first generation's ELF, then
// to the second's at its time, between the samples of each.
TEST(ConvertJit, TheConvertedFileSwitchesGenerationsBetweenTheSamplesOfEach) {
  test::temp_dir dir;
  perf_data::feature_set features;
  std::string bytes = test::jitdump_header(false, test::jitdump_magic, 7) +
                      test::jitdump_code_load("JS:*first", 0x100, false, code_start, 1100, 7) +
                      test::jitdump_code_load("JS:*second", 0x100, false, code_start, 1500, 7);
  std::vector<perf_data::stored_jitdump> dumps{{perf_data::store_perf_map(7, bytes), 0}};
  features.set(perf_data::feature_arec_jitdumps, perf_data::jitdumps_payload(ahead, dumps));
  std::vector<perf_data::event_entry> events{event(PERF_SAMPLE_TID | PERF_SAMPLE_TIME, {})};
  std::uint64_t pid = 7 | std::uint64_t{7} << 32;
  write_recording(dir.file("in.data"), events,
                  {mmap2("//anon", PROT_READ | PROT_EXEC, 11050),
                   record(PERF_RECORD_SAMPLE, pid, 11200), record(PERF_RECORD_SAMPLE, pid, 11600)},
                  features);
  convert_report report = convert_in(dir);
  EXPECT_EQ(report.jit_mappings, 1u);
  EXPECT_EQ(report.jit_remapped, 1u);
  EXPECT_TRUE(report.warnings.empty());

  std::vector<std::string> seen = converted_records(dir.file("out.data"));
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "/jit/jitdump-7.7f0000001000-7f0000003000.1.elf at 11050", "sample",
                      "/jit/jitdump-7.7f0000001000-7f0000003000.2.elf at 11500", "sample"}));
  auto file = perf_data::perf_file_reader::open(dir.file("out.data"));
  auto payload = file.feature(perf_data::feature_build_id);
  ASSERT_TRUE(payload);
  auto entries = perf_data::parse_build_id_payload(*payload, 0, "out.data");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(elf_names(dir.file("cache"), entries[1], code_start + 0x10), "JS:*second");
}

}  // namespace
}  // namespace arec::convert
