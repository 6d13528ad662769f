// jit_mappings: anonymous executable mappings of a process whose perf map was captured become
// MMAP2s of that map's ELF (pgoff = start, so perf's map_ip gives the run-time address the
// ELF's symbols hold), their sample_id trailer kept; the ELF is in the build-id cache and in
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
  EXPECT_EQ(name_of(out), "/jit/perf-7.map.elf");
  EXPECT_EQ(field<std::uint64_t>(out, 16), code_start);
  EXPECT_EQ(field<std::uint64_t>(out, 24), code_len);
  EXPECT_EQ(field<std::uint64_t>(out, 32), code_start) << "pgoff: map_ip(ip) == ip";
  EXPECT_EQ(field<std::uint64_t>(out, 48), 0u) << "no inode: found by name";
  EXPECT_EQ(field<std::uint32_t>(out, 64), std::uint32_t{PROT_READ | PROT_EXEC});
  EXPECT_EQ(field<std::uint64_t>(out, out.size() - 8), 1234u) << "the trailer's time kept";
  EXPECT_EQ(jit.rewritten(), 1u);

  std::vector<perf_data::build_id_entry> ids = jit.build_ids();
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ids[0].filename, "/jit/perf-7.map.elf");
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
  EXPECT_EQ(name_of(out), "/jit/perf-7.map.elf");
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
  convert_options options;
  options.input = dir.file("in.data");
  options.output = dir.file("out.data");
  convert_report report = convert(options, {.build_id_dir = dir.file("cache")});
  EXPECT_EQ(report.jit_mappings, 1u);
  EXPECT_TRUE(report.warnings.empty());

  auto file = perf_data::perf_file_reader::open(options.output);
  auto walker =
      perf_data::record_walker::open({options.output, file.header().data.offset,
                                      file.header().data.offset + file.header().data.size});
  std::vector<std::uint32_t> types;
  std::string mapped;
  while (auto r = walker.next()) {
    if (r->header.type == perf_data::record_finished_round) continue;
    types.push_back(r->header.type);
    if (r->header.type == PERF_RECORD_MMAP2) mapped = name_of(r->bytes);
  }
  EXPECT_EQ(types, (std::vector<std::uint32_t>{PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE}));
  EXPECT_EQ(mapped, "/jit/perf-7.map.elf");
  auto payload = file.feature(perf_data::feature_build_id);
  ASSERT_TRUE(payload);
  auto entries = perf_data::parse_build_id_payload(*payload, 0, "out.data");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].filename, "/usr/bin/node") << "the recording's own entries kept";
  EXPECT_EQ(entries[1].filename, "/jit/perf-7.map.elf");
  EXPECT_TRUE(symbols::read_elf_symbols(
      (symbols::build_id_link_path(dir.file("cache"), entries[1].id.hex()) + "/elf").c_str()));
}

}  // namespace
}  // namespace arec::convert
