// perf 7.x's deferred user stacks (--call-graph fp,defer): a SAMPLE's chain ends with
// PERF_CONTEXT_USER_DEFERRED and a cookie, the user frames come later in a CALLCHAIN_DEFERRED
// record of the same task and cookie. convert writes each such sample with its whole stack,
// and one whose stack never came with its own frames only; perf 6.1 reads both.
#include "convert/deferred_callchains.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "convert/converter.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "perf_data/record_walker.hpp"
#include "records.hpp"
#include "support/temp_dir.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

constexpr std::uint64_t chain_type = sample_type | PERF_SAMPLE_CALLCHAIN;
constexpr std::uint64_t kernel = PERF_CONTEXT_KERNEL, user = PERF_CONTEXT_USER;

// IDENTIFIER 1, IP, TID, TIME, CPU, PERIOD, CALLCHAIN.
std::vector<std::byte> sample(std::uint32_t tid, std::uint64_t time,
                              std::vector<std::uint64_t> chain) {
  std::vector<std::uint64_t> words{1, 0x1000,      (std::uint64_t{tid} << 32) | 7, time, 0,
                                   1, chain.size()};
  words.insert(words.end(), chain.begin(), chain.end());
  return record_of(PERF_RECORD_SAMPLE, words);
}

// cookie, nr, ips, then the trailer: TID, TIME, CPU, IDENTIFIER.
std::vector<std::byte> deferred(std::uint32_t tid, std::uint64_t time, std::uint64_t cookie,
                                std::vector<std::uint64_t> ips) {
  std::vector<std::uint64_t> words{cookie, ips.size()};
  words.insert(words.end(), ips.begin(), ips.end());
  words.insert(words.end(), {(std::uint64_t{tid} << 32) | 7, time, 0, 1});
  return record_of(record_callchain_deferred, words);
}

std::vector<std::vector<std::uint64_t>> chains_of(const std::string& path,
                                                  std::vector<std::uint32_t>& types) {
  auto file = perf_data::perf_file_reader::open(path);
  const auto& header = file.header();
  auto source = perf_data::record_walker::open(
      {path, header.data.offset, header.data.offset + header.data.size});
  std::vector<std::vector<std::uint64_t>> chains;
  while (auto r = source.next()) {
    types.push_back(r->header.type);
    if (r->header.type != PERF_RECORD_SAMPLE) continue;
    std::vector<std::uint64_t> words(r->bytes.size() / 8 - 1);
    std::memcpy(words.data(), r->bytes.data() + 8, words.size() * 8);
    chains.emplace_back(words.begin() + 7, words.begin() + 7 + static_cast<long>(words[6]));
  }
  return chains;
}

TEST(ConvertDeferredCallchains, SamplesGetTheirDeferredUserStacks) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(chain_type, {1})};
  write_recording(dir.file("in.perf"), events,
                  {sample(7, 100, {kernel, 0xf1, 0xf2, perf_context_user_deferred, 5}),
                   sample(7, 110, {kernel, 0xf3, perf_context_user_deferred, 5}),
                   sample(8, 120, {kernel, 0xf4, perf_context_user_deferred, 9}),
                   deferred(7, 130, 5, {user, 0xa1, 0xa2}), deferred(7, 140, 6, {user, 0xb1}),
                   sample(7, 150, {kernel, 0xf5, user, 0xa3})});
  convert_options options;
  options.input = dir.file("in.perf");
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.deferred_stitched, 2u);
  EXPECT_EQ(report.deferred_unmatched, 1u);
  EXPECT_TRUE(report.unknown_records.empty()) << "the deferred records were used, not dropped";
  std::vector<std::uint32_t> types;
  EXPECT_EQ(chains_of(options.output, types), (std::vector<std::vector<std::uint64_t>>{
                                                  {kernel, 0xf1, 0xf2, user, 0xa1, 0xa2},
                                                  {kernel, 0xf3, user, 0xa1, 0xa2},
                                                  {kernel, 0xf4},
                                                  {kernel, 0xf5, user, 0xa3},
                                              }));
  EXPECT_EQ(std::count(types.begin(), types.end(), record_callchain_deferred), 0);
}

}  // namespace
}  // namespace arec::convert
