// record_check: a record perf 6.1 would refuse ("Can't parse sample") or crash on is named with
// its problem; what perf reads passes. Records are built by hand with the layouts of
// docs/perf-data-format.md.
#include "convert/record_check.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "records.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

constexpr std::uint64_t pid_tid = 0x0000000700000007;

// SAMPLE of test_records::sample_type: IDENTIFIER, IP, TID, TIME, CPU, PERIOD.
std::vector<std::byte> sample(std::uint64_t id, std::uint64_t cpu = 0) {
  return record(PERF_RECORD_SAMPLE, id, 0x1000, pid_tid, 100, cpu, 1);
}

// COMM with `name` and the sample_id trailer of sample_type: TID, TIME, CPU, IDENTIFIER.
std::vector<std::byte> comm(const std::string& name, std::uint64_t id, std::uint64_t cpu = 0) {
  std::vector<std::uint64_t> words{pid_tid};
  for (std::uint64_t word : string_words(name)) words.push_back(word);
  for (std::uint64_t word : {pid_tid, std::uint64_t{100}, cpu, id}) words.push_back(word);
  return record_of(PERF_RECORD_COMM, words);
}

std::string problem_of(const record_check& check, const std::vector<std::byte>& record) {
  const char* problem = check.problem(record);
  return problem ? problem : "";
}

const std::vector<perf_data::event_entry> two_events{event(sample_type, {1}),
                                                     event(sample_type, {2})};

TEST(RecordCheck, PassesTheRecordsPerfReads) {
  record_check check(two_events, 2);
  EXPECT_EQ(problem_of(check, sample(1)), "");
  EXPECT_EQ(problem_of(check, sample(2, 1)), "");
  EXPECT_EQ(problem_of(check, comm("worker", 2)), "");
  EXPECT_EQ(problem_of(check, comm("synthesized", 0)), "");  // id 0: read with the first attr
}

TEST(RecordCheck, DropsASampleShorterThanItsSampleType) {
  record_check check(two_events, 2);
  EXPECT_EQ(problem_of(check, record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid)),
            "SAMPLE shorter than its attr's sample_type says");
}

TEST(RecordCheck, DropsASampleWhoseCallchainRunsPastTheRecord) {
  std::vector<perf_data::event_entry> events{event(sample_type | PERF_SAMPLE_CALLCHAIN, {1})};
  record_check check(events, 2);
  EXPECT_EQ(problem_of(check, record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1, 2, 0x1000,
                                     0x2000)),
            "");
  EXPECT_EQ(
      problem_of(check, record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1, 1000000, 0x1000)),
      "SAMPLE shorter than its attr's sample_type says");
}

// perf finds no attr for an unknown id and ends the session with "Can't parse sample".
TEST(RecordCheck, DropsARecordWhoseIdNoAttrOwns) {
  record_check check(two_events, 2);
  EXPECT_EQ(problem_of(check, sample(99)), "record whose sample id no attr owns");
  EXPECT_EQ(problem_of(check, comm("worker", 99)), "record whose sample id no attr owns");
}

// perf 6.1 indexes per-CPU tables with the cpu unchecked: a damaged cpu crashed perf report.
TEST(RecordCheck, DropsARecordWhoseCpuIsBeyondTheRecordingsCpus) {
  record_check check(two_events, 2);
  const std::string beyond = "record whose cpu is beyond the recording's CPUs (NRCPUS)";
  EXPECT_EQ(problem_of(check, sample(1, 2)), beyond);
  EXPECT_EQ(problem_of(check, sample(1, 0xe0000001)), beyond);
  EXPECT_EQ(problem_of(check, comm("worker", 1, 7)), beyond);
}

// NRCPUS: u32 available, u32 online.
std::vector<std::byte> nrcpus(std::uint32_t available) {
  perf_data::feature_encoder out;
  out.u32(available);
  out.u32(2);
  return out.take();
}

TEST(RecordCheck, CpusComeFromNrcpusAtMostPerfsLimit) {
  perf_data::feature_set features;
  EXPECT_EQ(record_check::cpu_count(features), record_check::max_cpus);
  features.set(perf_data::feature_nrcpus, nrcpus(4));
  EXPECT_EQ(record_check::cpu_count(features), 4u);
  features.set(perf_data::feature_nrcpus, nrcpus(100000));
  EXPECT_EQ(record_check::cpu_count(features), record_check::max_cpus);
}

TEST(RecordCheck, DropsARecordWhoseSizeIsNotAMultipleOf8) {
  record_check check(two_events, 2);
  std::vector<std::byte> odd = sample(1);
  odd.resize(odd.size() - 4);
  perf_data::record_header header{PERF_RECORD_SAMPLE, 0, static_cast<std::uint16_t>(odd.size())};
  std::memcpy(odd.data(), &header, sizeof header);
  EXPECT_EQ(problem_of(check, odd), "record size not a multiple of 8 bytes");
}

TEST(RecordCheck, DropsACommWithoutItsNulOrTooShortForItsTrailer) {
  record_check check(two_events, 2);
  std::vector<std::byte> unterminated =
      record_of(PERF_RECORD_COMM, {pid_tid, 0x6867666564636261, pid_tid, 100, 0, 1});
  EXPECT_EQ(problem_of(check, unterminated),
            "record whose name (file, comm, symbol or cgroup path) has no NUL inside it");
  EXPECT_EQ(problem_of(check, record(PERF_RECORD_EXIT, 1, 1, 1, 1)),
            "record too short for its fields and sample_id trailer");
}

TEST(RecordCheck, DropsAnMmap2WhoseBuildIdIsLongerThan20Bytes) {
  std::vector<perf_data::event_entry> one{event(sample_type, {1})};
  record_check check(one, 2);
  // pid/tid, addr, len, pgoff, build-id size byte + reserved, 20 id bytes, prot/flags, name.
  std::vector<std::uint64_t> words{pid_tid, 0x1000, 0x1000, 0, 20, 0, 0, 0};
  for (std::uint64_t word : string_words("/bin/true")) words.push_back(word);
  for (std::uint64_t word : {pid_tid, std::uint64_t{100}, std::uint64_t{0}, std::uint64_t{1}})
    words.push_back(word);
  std::vector<std::byte> mmap2 = record_of(PERF_RECORD_MMAP2, words);
  std::uint16_t misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
  std::memcpy(mmap2.data() + 4, &misc, sizeof misc);
  EXPECT_EQ(problem_of(check, mmap2), "");
  mmap2[8 + 32] = std::byte{21};
  EXPECT_EQ(problem_of(check, mmap2), "MMAP2 record with a build-id longer than 20 bytes");
}

TEST(RecordCheck, DropsPipeHeadRecordsAndCheckedUserRecordsThatDoNotFit) {
  record_check check(two_events, 2);
  EXPECT_EQ(problem_of(check, record(perf_data::record_header_attr, 0, 0)),
            "a record of perf's own types that perf reads only in a pipe stream's head or in "
            "its other tools");
  EXPECT_EQ(problem_of(check, record(perf_data::record_thread_map, 1000)),
            "THREAD_MAP record with more entries than it holds");
  EXPECT_EQ(problem_of(check, record(perf_data::record_thread_map, 1, 7, 0x6f6f66, 0)), "");
  EXPECT_EQ(problem_of(check, record(perf_data::record_cpu_map, 0x00100000)),
            "CPU_MAP record of an unknown kind or with more cpus than it holds");
  EXPECT_EQ(problem_of(check, record(perf_data::record_time_conv, 1)),
            "TIME_CONV record too short for its fields");
}

// perf record writes ID_INDEX and EVENT_UPDATE in files too: kept when they fit and name
// known ids.
TEST(RecordCheck, PassesPerfsIdIndexAndEventUpdateWhenTheyFit) {
  record_check check(two_events, 2);
  EXPECT_EQ(problem_of(check, record(perf_data::record_id_index, 1, 2, 0, 0, -1)), "");
  EXPECT_EQ(problem_of(check, record(perf_data::record_id_index, 2, 2, 0, 0, -1)),
            "ID_INDEX record with more entries than it holds");
  EXPECT_EQ(problem_of(check, record(perf_data::record_id_index, 1, 99, 0, 0, -1)),
            "ID_INDEX or EVENT_UPDATE record for an id no attr owns");
  EXPECT_EQ(problem_of(check, record(perf_data::record_event_update, 2, 1, 0x6b636f6c63)), "");
  EXPECT_EQ(problem_of(check, record(perf_data::record_event_update, 2, 1, 0x6b636f6c63757063)),
            "EVENT_UPDATE record of an unknown kind or longer than it is");
  EXPECT_EQ(problem_of(check, record(perf_data::record_event_update, 2, 99, 0)),
            "ID_INDEX or EVENT_UPDATE record for an id no attr owns");
}

// perf inject -b puts HEADER_BUILD_ID records among a pipe stream's records: kept when their
// name ends inside them and the build-id fits perf's 20 bytes.
TEST(RecordCheck, PassesHeaderBuildIdsAmongTheRecordsWhenTheyFit) {
  record_check check(two_events, 2);
  // pid -1, 20 id bytes, size byte 20 + reserved, "/bin/true" padded.
  std::vector<std::byte> entry = record(perf_data::record_header_build_id, 0x01020304ffffffff, 0, 0,
                                        0x14, 0x7275742f6e69622f, 0x65);
  std::uint16_t misc = perf_data::misc_build_id_size;
  std::memcpy(entry.data() + 4, &misc, sizeof misc);
  EXPECT_EQ(problem_of(check, entry), "");
  entry[8 + 24] = std::byte{21};
  EXPECT_EQ(problem_of(check, entry),
            "HEADER_BUILD_ID record with a build-id longer than 20 bytes");
  std::vector<std::byte> unterminated =
      record(perf_data::record_header_build_id, 0, 0, 0, 0x7275742f6e69622f);
  EXPECT_EQ(problem_of(check, unterminated),
            "HEADER_BUILD_ID record whose file name has no NUL inside it");
}

TEST(RecordCheck, AttrsPerfRefusesTogetherAreNamed) {
  EXPECT_EQ(attrs_problem(two_events), "");
  std::vector<perf_data::event_entry> one{event(PERF_SAMPLE_IP, {1})};
  EXPECT_EQ(attrs_problem(one), "");
  std::vector<perf_data::event_entry> moved{event(sample_type, {1}),
                                            event(PERF_SAMPLE_IP | PERF_SAMPLE_ID, {2})};
  EXPECT_EQ(attrs_problem(moved),
            "attr 1 keeps the sample id elsewhere than attr 0: perf 6.1 refuses it (non "
            "matching sample_type)");
  std::vector<perf_data::event_entry> no_id{event(PERF_SAMPLE_IP, {1}), event(PERF_SAMPLE_IP, {2})};
  EXPECT_EQ(attrs_problem(no_id),
            "attr 0 has no sample id (PERF_SAMPLE_ID or IDENTIFIER) but the file has 2 attrs: "
            "perf 6.1 refuses it (non matching sample_type)");
  std::vector<perf_data::event_entry> id_all = two_events;
  id_all[1].attr.sample_id_all = 0;
  EXPECT_EQ(attrs_problem(id_all),
            "attr 1 differs from attr 0 in sample_id_all: perf 6.1 refuses it (non matching "
            "sample_id_all)");
}

}  // namespace
}  // namespace arec::convert
