#include "perf_data/perf_file_writer.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <sstream>

#include "host/host_features.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "support/child_process.hpp"
#include "support/temp_file.hpp"

using namespace arec::perf_data;
using namespace arec::perf_data;
using arec::test::perf_installed;
using arec::test::run_command;
using arec::test::temp_file;

namespace {

constexpr std::uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER;
constexpr std::uint32_t test_pid = 4242;

std::vector<event_entry> two_events() {
  event_entry clock;
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.size = sizeof(perf_event_attr);
  clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  clock.attr.sample_period = 4000;
  clock.attr.freq = 1;
  clock.attr.sample_type = sample_type;
  clock.attr.sample_id_all = 1;
  clock.attr.disabled = 1;
  clock.name = "cpu-clock";
  clock.ids = {11, 12};

  event_entry dummy;
  dummy.attr.type = PERF_TYPE_SOFTWARE;
  dummy.attr.config = PERF_COUNT_SW_DUMMY;
  dummy.attr.sample_period = 1;
  dummy.attr.sample_type = sample_type & ~std::uint64_t{PERF_SAMPLE_PERIOD};
  dummy.attr.sample_id_all = 1;
  dummy.attr.comm = 1;
  dummy.attr.task = 1;
  dummy.name = "dummy:u";
  dummy.ids = {13, 14};
  return {clock, dummy};
}

class record_builder {
 public:
  explicit record_builder(std::uint32_t type, std::uint16_t misc = 0) {
    bytes_.reserve(128);  // also spares g++ 12 a false -Wstringop-overflow on the first insert
    record_header header{type, misc, 0};
    append(header);
  }
  template <typename T>
  record_builder& append(const T& value) {
    auto raw = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), raw, raw + sizeof value);
    return *this;
  }
  record_builder& pids(std::uint32_t pid, std::uint32_t tid) { return append(pid).append(tid); }
  std::vector<std::byte> finish() {
    auto size = static_cast<std::uint16_t>(bytes_.size());
    std::memcpy(bytes_.data() + offsetof(record_header, size), &size, sizeof size);
    return bytes_;
  }

 private:
  std::vector<std::byte> bytes_;
};

constexpr std::uint64_t first_time = 1'000'000'000;
constexpr std::uint64_t second_time = 1'000'500'000;

std::vector<std::vector<std::byte>> test_records() {
  record_builder comm(PERF_RECORD_COMM);
  comm.pids(test_pid, test_pid);
  char name[16] = "arec-fixture";
  comm.append(name);
  // sample_id trailer of the dummy event: pid/tid, time, cpu/res, identifier
  comm.pids(test_pid, test_pid).append(first_time - 1).pids(0, 0).append(std::uint64_t{13});

  auto sample = [](std::uint64_t ip, std::uint64_t time, std::uint32_t cpu) {
    record_builder record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
    record.append(std::uint64_t{11}).append(ip).pids(test_pid, test_pid).append(time);
    record.pids(cpu, 0).append(std::uint64_t{250000});
    return record.finish();
  };
  return {comm.finish(), sample(0x401000, first_time, 0), sample(0x401234, second_time, 1),
          record_builder(record_finished_round).finish()};
}

struct written_file {
  std::uint64_t data_offset;
  std::uint64_t data_size;
  std::vector<std::vector<std::byte>> records;
  feature_set features;
};

written_file write_test_file(int fd, const std::vector<event_entry>& events) {
  written_file file;
  perf_file_writer writer(fd);
  file.data_offset = writer.write_prologue(events);
  file.records = test_records();
  std::uint64_t offset = file.data_offset;
  for (const auto& record : file.records) {
    if (::pwrite(fd, record.data(), record.size(), static_cast<off_t>(offset)) !=
        static_cast<ssize_t>(record.size()))
      throw std::runtime_error("pwrite of a test record failed");
    offset += record.size();
  }
  file.data_size = offset - file.data_offset;
  writer.update_data_size(file.data_size);
  arec::host::add_host_features(file.features);
  file.features.set(feature_event_desc, event_desc_payload(events));
  file.features.set(feature_sample_time, sample_time_payload(first_time, second_time));
  std::vector<std::string> argv{"arec", "record", "-a"};
  file.features.set(feature_cmdline, cmdline_payload(argv));
  writer.write_epilogue(file.data_size, file.features);
  return file;
}

utsname host_names() {
  utsname host{};
  ::uname(&host);
  return host;
}

}  // namespace

TEST(PerfFileWriter, PrologueLaysOutIdsAttrsAndAFeaturelessHeader) {
  temp_file file;
  auto events = two_events();
  perf_file_writer writer(file.fd());
  std::uint64_t data_offset = writer.write_prologue(events);
  // ids (4 x 8) at 104, then two 144-byte attr entries
  EXPECT_EQ(data_offset, 104 + 32 + 2 * 144u);
  EXPECT_EQ(data_offset % 8, 0u);

  auto reader = perf_file_reader::open(file.path());
  EXPECT_EQ(reader.header().attr_size, 144u);
  EXPECT_EQ(reader.header().attrs.offset, 136u);
  EXPECT_EQ(reader.header().attrs.size, 288u);
  EXPECT_EQ(reader.header().data.offset, data_offset);
  EXPECT_EQ(reader.header().data.size, 0u);
  for (auto word : reader.header().features) EXPECT_EQ(word, 0u);
  ASSERT_EQ(reader.events().size(), 2u);
  EXPECT_EQ(reader.events()[0].ids, (std::vector<std::uint64_t>{11, 12}));
  EXPECT_EQ(reader.events()[1].ids, (std::vector<std::uint64_t>{13, 14}));
  EXPECT_EQ(reader.events()[0].attr.size, 128u);
  EXPECT_EQ(reader.events()[1].attr.size, 128u);  // was 0 in the entry given to the writer
}

TEST(PerfFileWriter, UpdateDataSizeChangesOnlyTheDataSize) {
  temp_file file;
  perf_file_writer writer(file.fd());
  auto events = two_events();
  std::uint64_t data_offset = writer.write_prologue(events);
  auto records = test_records();
  ASSERT_EQ(
      ::pwrite(file.fd(), records[0].data(), records[0].size(), static_cast<off_t>(data_offset)),
      static_cast<ssize_t>(records[0].size()));
  writer.update_data_size(records[0].size());

  auto reader = perf_file_reader::open(file.path());
  EXPECT_EQ(reader.header().data.size, records[0].size());
  EXPECT_EQ(reader.header().data.offset, data_offset);
  for (auto word : reader.header().features) EXPECT_EQ(word, 0u);
  int count = 0;
  reader.for_each_record([&](const record_header& header, auto, std::uint64_t offset) {
    EXPECT_EQ(header.type, PERF_RECORD_COMM);
    EXPECT_EQ(offset, data_offset);
    ++count;
  });
  EXPECT_EQ(count, 1);
}

TEST(PerfFileWriter, SizeUpdateOrEpilogueBeforePrologueIsALogicError) {
  temp_file file;
  perf_file_writer writer(file.fd());
  EXPECT_THROW(writer.update_data_size(8), std::logic_error);
  EXPECT_THROW(writer.write_epilogue(0, feature_set{}), std::logic_error);
}

TEST(PerfFileWriter, WriteFailureNamesTheCallAndTheFile) {
  perf_file_writer writer(-1, "out.data");
  auto events = two_events();
  try {
    writer.write_prologue(events);
    FAIL() << "write_prologue on fd -1 succeeded";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code().value(), EBADF);
    EXPECT_NE(std::string(error.what()).find("pwrite out.data"), std::string::npos) << error.what();
  }
}

TEST(PerfFileWriter, RoundTripsThroughTheReader) {
  temp_file file;
  auto events = two_events();
  auto written = write_test_file(file.fd(), events);

  auto reader = perf_file_reader::open(file.path());
  const file_header& header = reader.header();
  EXPECT_EQ(header.magic, file_magic);
  EXPECT_EQ(header.size, 104u);
  EXPECT_EQ(header.data.offset, written.data_offset);
  EXPECT_EQ(header.data.size, written.data_size);
  EXPECT_EQ(header.event_types.offset, 0u);
  EXPECT_EQ(header.event_types.size, 0u);

  ASSERT_EQ(reader.events().size(), 2u);
  for (std::size_t i = 0; i < events.size(); ++i) {
    const event_entry& read = reader.events()[i];
    perf_event_attr expected = attr_for_file(events[i].attr);
    EXPECT_EQ(std::memcmp(&read.attr, &expected, sizeof expected), 0) << "attr " << i;
    EXPECT_EQ(read.ids, events[i].ids);
    EXPECT_EQ(read.name, events[i].name);
  }

  std::vector<std::vector<std::byte>> records;
  std::vector<std::uint64_t> offsets;
  reader.for_each_record(
      [&](const record_header&, std::span<const std::byte> whole, std::uint64_t offset) {
        records.emplace_back(whole.begin(), whole.end());
        offsets.push_back(offset);
      });
  EXPECT_EQ(records, written.records);
  ASSERT_EQ(offsets.size(), 4u);
  EXPECT_EQ(offsets[0], written.data_offset);
  EXPECT_EQ(offsets[1], written.data_offset + written.records[0].size());

  unsigned set_bits = 0;
  for (const auto& entry : written.features) {
    auto payload = reader.feature(entry.bit);
    ASSERT_TRUE(payload) << "feature " << entry.bit;
    EXPECT_TRUE(
        std::equal(payload->begin(), payload->end(), entry.payload.begin(), entry.payload.end()))
        << "feature " << entry.bit;
    EXPECT_TRUE(header.features[entry.bit / 64] >> (entry.bit % 64) & 1);
    ++set_bits;
  }
  unsigned header_bits = 0;
  for (auto word : header.features)
    header_bits += static_cast<unsigned>(__builtin_popcountll(word));
  EXPECT_EQ(header_bits, set_bits);
  EXPECT_GE(set_bits, 8u);  // host features + EVENT_DESC + SAMPLE_TIME + CMDLINE
  EXPECT_FALSE(reader.feature(feature_tracing_data));
}

TEST(PerfFileWriter, FeatureTableSitsRightAfterTheDataSection) {
  temp_file file;
  auto events = two_events();
  auto written = write_test_file(file.fd(), events);
  auto reader = perf_file_reader::open(file.path());
  std::uint64_t table = written.data_offset + written.data_size;
  std::uint64_t expected_payload = table + written.features.size() * sizeof(file_section);
  for (const auto& entry : written.features) {
    auto payload = reader.feature(entry.bit);
    ASSERT_TRUE(payload);
    // The whole file is mapped: its first byte lies data_offset bytes before the data.
    const std::byte* file_start = reader.data().data() - written.data_offset;
    EXPECT_TRUE(std::equal(payload->begin(), payload->end(), file_start + expected_payload))
        << "feature " << entry.bit << " is not at offset " << expected_payload;
    expected_payload += entry.payload.size();
  }
}

TEST(PerfFileWriter, PerfReportReadsTheHeader) {
  if (!perf_installed()) GTEST_SKIP() << "perf is not installed";
  temp_file file;
  auto events = two_events();
  write_test_file(file.fd(), events);

  auto result = run_command({"perf", "report", "--header-only", "-I", "-i", file.path()});
  utsname host = host_names();
  ASSERT_EQ(result.exit_code, 0) << result.describe();
  EXPECT_EQ(result.err.find("arning"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("# hostname : " + std::string(host.nodename) + "\n"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# os release : " + std::string(host.release) + "\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# arch : " + std::string(host.machine) + "\n"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# perf version : " + std::string(compatible_perf_version) + "\n"),
            std::string::npos)
      << result.out;
  long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_NE(result.out.find("# nrcpus online : " + std::to_string(online) + "\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# event : name = cpu-clock, , id = { 11, 12 }"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# event : name = dummy:u, , id = { 13, 14 }"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("# cmdline : /"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("arec record -a"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# sibling threads : "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# CPU 0: Core ID "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# node0 cpu list : "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# time of first sample : 1.000000"), std::string::npos) << result.out;
}

TEST(PerfFileWriter, PerfScriptPrintsTheSamples) {
  if (!perf_installed()) GTEST_SKIP() << "perf is not installed";
  temp_file file;
  auto events = two_events();
  write_test_file(file.fd(), events);

  auto result =
      run_command({"perf", "script", "-F", "comm,pid,tid,cpu,time,event,ip", "-i", file.path()});
  ASSERT_EQ(result.exit_code, 0) << result.describe();
  EXPECT_EQ(result.err.find("arning"), std::string::npos) << result.err;
  std::istringstream lines(result.out);
  std::vector<std::string> samples;
  for (std::string line; std::getline(lines, line);) samples.push_back(line);
  ASSERT_EQ(samples.size(), 2u) << result.out;
  for (const char* expected :
       {"arec-fixture", "4242/4242", "[000]", "1.000000:", "cpu-clock:", "401000"})
    EXPECT_NE(samples[0].find(expected), std::string::npos) << expected << " in " << samples[0];
  for (const char* expected : {"arec-fixture", "[001]", "1.000500:", "401234"})
    EXPECT_NE(samples[1].find(expected), std::string::npos) << expected << " in " << samples[1];
}

TEST(PerfFileWriter, HotspotTrustsFinishedRoundsAndCountsTheSamples) {
  const std::string perfparser = "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser";
  if (::access(perfparser.c_str(), X_OK) != 0) GTEST_SKIP() << perfparser << " is not installed";
  temp_file file;
  auto events = two_events();
  write_test_file(file.fd(), events);

  // perfparser buffers by FINISHED_ROUND only when the VERSION feature reads as >= 3.17.
  auto result = run_command({"env", "QT_LOGGING_RULES=*.debug=true", perfparser, "--input",
                             file.path(), "--print-stats"});
  ASSERT_EQ(result.exit_code, 0) << result.describe();
  EXPECT_NE(result.err.find("Switching to automatic buffering"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("samples: 2\n"), std::string::npos) << result.out << result.err;
}

TEST(PerfFileWriter, ShortWriteIsContinuedUntilTheLimitFailsIt) {
  temp_file file;
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A 200-byte file size limit makes the 288-byte attrs write (at 136) stop after 64 bytes;
    // the writer must retry the rest, which then fails with EFBIG.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{200, 200};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    perf_file_writer writer(file.fd(), "limited.data");
    auto events = two_events();
    try {
      writer.write_prologue(events);
    } catch (const std::system_error& error) {
      bool named = std::string(error.what()).find("pwrite limited.data") != std::string::npos;
      ::_exit(error.code().value() == EFBIG && named ? 0 : 1);
    }
    ::_exit(2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong error, 2: the short write went unnoticed";
  struct stat info {};
  ASSERT_EQ(::fstat(file.fd(), &info), 0);
  EXPECT_EQ(info.st_size, 200);
}
