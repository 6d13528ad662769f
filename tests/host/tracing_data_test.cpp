#include "host/tracing_data.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <system_error>

#include "host/tracefs.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "support/child_process.hpp"
#include "support/temp_file.hpp"

using namespace arec::host;
using namespace arec::perf_data;
using arec::test::perf_installed;
using arec::test::run_command;
using arec::test::temp_file;

namespace {

// Reads the blob back field by field; every read is bounds-checked by the test.
class blob_reader {
 public:
  explicit blob_reader(const std::vector<std::byte>& bytes) : bytes_(bytes) {}
  std::string raw(std::size_t count) {
    if (count > bytes_.size() - pos_) throw std::out_of_range("blob ends early");
    std::string out(reinterpret_cast<const char*>(bytes_.data() + pos_), count);
    pos_ += count;
    return out;
  }
  std::string c_string() {
    std::string out;
    for (char c; (c = raw(1)[0]) != '\0';) out += c;
    return out;
  }
  template <typename T>
  T value() {
    T out;
    std::memcpy(&out, raw(sizeof out).data(), sizeof out);
    return out;
  }
  std::string sized_u64() { return raw(value<std::uint64_t>()); }
  std::string sized_u32() { return raw(value<std::uint32_t>()); }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  const std::vector<std::byte>& bytes_;
  std::size_t pos_ = 0;
};

struct parsed_blob {
  std::string version;
  int endian;
  int long_size;
  std::uint32_t page_size;
  std::string header_page, header_event;
  std::vector<std::string> ftrace_formats;
  std::vector<std::pair<std::string, std::vector<std::string>>> systems;
  std::string kallsyms, printk, saved_cmdlines;
};

parsed_blob parse(const std::vector<std::byte>& bytes) {
  blob_reader in(bytes);
  parsed_blob blob;
  EXPECT_EQ(in.raw(3), std::string("\x17\x08\x44"));
  EXPECT_EQ(in.raw(7), "tracing");
  blob.version = in.c_string();
  blob.endian = in.value<std::uint8_t>();
  blob.long_size = in.value<std::uint8_t>();
  blob.page_size = in.value<std::uint32_t>();
  EXPECT_EQ(in.c_string(), "header_page");
  blob.header_page = in.sized_u64();
  EXPECT_EQ(in.c_string(), "header_event");
  blob.header_event = in.sized_u64();
  for (auto n = in.value<std::uint32_t>(); n > 0; --n)
    blob.ftrace_formats.push_back(in.sized_u64());
  for (auto systems = in.value<std::uint32_t>(); systems > 0; --systems) {
    auto& system = blob.systems.emplace_back(in.c_string(), std::vector<std::string>{});
    for (auto n = in.value<std::uint32_t>(); n > 0; --n) system.second.push_back(in.sized_u64());
  }
  blob.kallsyms = in.sized_u32();
  blob.printk = in.sized_u32();
  blob.saved_cmdlines = in.sized_u64();
  EXPECT_TRUE(in.at_end()) << "bytes left after saved_cmdlines";
  return blob;
}

const std::vector<std::pair<std::string, std::string>> sched_switch{{"sched", "sched_switch"}};

// The tracefs root and the sched_switch id, or a skip reason.
struct tracefs_access {
  std::string root;
  std::uint64_t id = 0;
  std::string problem;
};

tracefs_access find_sched_switch() {
  tracefs_access access;
  try {
    access.root = tracefs::root();
    access.id = tracefs::read_tracepoint_id(access.root, "sched", "sched_switch");
  } catch (const std::exception& error) {
    access.problem = error.what();
  }
  return access;
}

constexpr std::uint32_t prev_pid = 100;
constexpr std::uint32_t next_pid = 200;

// A file with one sched:sched_switch attr, a COMM per task and one RAW sample, with or
// without the TRACING_DATA feature.
void write_tracepoint_file(int fd, const tracefs_access& access, bool with_tracing_data) {
  event_entry event;
  event.attr.type = PERF_TYPE_TRACEPOINT;
  event.attr.config = access.id;
  event.attr.sample_period = 1;
  event.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                           PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  event.attr.sample_id_all = 1;
  event.name = "sched:sched_switch";
  std::vector<event_entry> events{event};

  perf_file_writer writer(fd);
  std::uint64_t offset = writer.write_prologue(events);
  std::uint64_t start = offset;
  auto put = [&](const void* bytes, std::size_t size) {
    ASSERT_EQ(::pwrite(fd, bytes, size, static_cast<off_t>(offset)), static_cast<ssize_t>(size));
    offset += size;
  };
  struct comm_record {
    record_header header{PERF_RECORD_COMM, 0, sizeof(comm_record)};
    std::uint32_t pid, tid;
    char comm[16];
    std::uint32_t trailer_pid, trailer_tid;
    std::uint64_t time = 0;
    std::uint32_t cpu = 0, reserved = 0;
  };
  for (auto [pid, name] : {std::pair{prev_pid, "arec-prev"}, {next_pid, "arec-next"}}) {
    comm_record comm{};
    comm.header = {PERF_RECORD_COMM, 0, sizeof comm};
    comm.pid = comm.tid = comm.trailer_pid = comm.trailer_tid = pid;
    std::strncpy(comm.comm, name, sizeof comm.comm - 1);
    put(&comm, sizeof comm);
  }
  // The raw bytes as the sched_switch format lays them out (offsets from its format file).
  struct switch_raw {
    std::uint16_t common_type;
    std::uint8_t common_flags, common_preempt_count;
    std::int32_t common_pid;
    char prev_comm[16];
    std::int32_t prev_pid, prev_prio;
    std::int64_t prev_state;
    char next_comm[16];
    std::int32_t next_pid, next_prio;
  };
  static_assert(sizeof(switch_raw) == 64);
  struct sample_record {
    record_header header;
    std::uint64_t ip;
    std::uint32_t pid, tid;
    std::uint64_t time;
    std::uint32_t cpu, reserved;
    std::uint64_t period;
    std::uint32_t raw_size;  // u32 size + data must fill a multiple of 8
    switch_raw raw;
    std::uint32_t raw_padding;
  } __attribute__((packed));
  static_assert(sizeof(sample_record) == 120);
  sample_record sample{};
  sample.header = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof sample};
  sample.ip = 0xffffffff81000000;
  sample.pid = sample.tid = prev_pid;
  sample.time = 2'000'000'000;
  sample.period = 1;
  sample.raw_size = sizeof sample.raw + sizeof sample.raw_padding;
  sample.raw.common_type = static_cast<std::uint16_t>(access.id);
  sample.raw.common_pid = prev_pid;
  std::strcpy(sample.raw.prev_comm, "arec-prev");
  sample.raw.prev_pid = prev_pid;
  sample.raw.prev_prio = 120;
  sample.raw.prev_state = 1;  // TASK_INTERRUPTIBLE: "S"
  std::strcpy(sample.raw.next_comm, "arec-next");
  sample.raw.next_pid = next_pid;
  sample.raw.next_prio = 120;
  put(&sample, sizeof sample);

  feature_set features;
  features.set(feature_event_desc, event_desc_payload(events));
  if (with_tracing_data)
    features.set(feature_tracing_data, arec::host::tracing_data_payload(access.root, sched_switch));
  writer.write_epilogue(offset - start, features);
}

}  // namespace

TEST(TracingData, BlobForSchedSwitchHasPerfsLayout) {
  auto access = find_sched_switch();
  if (!access.problem.empty()) GTEST_SKIP() << access.problem;
  auto bytes = arec::host::tracing_data_payload(access.root, sched_switch);
  auto blob = parse(bytes);

  EXPECT_EQ(blob.version, "0.6");
  EXPECT_EQ(blob.endian, std::endian::native == std::endian::little ? 0 : 1);
  EXPECT_EQ(blob.long_size, static_cast<int>(sizeof(long)));
  EXPECT_EQ(blob.page_size, static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(blob.header_page, tracefs::read_file(access.root, "events/header_page"));
  EXPECT_FALSE(blob.header_page.empty());  // perf loads no formats from a 0-size header_page
  EXPECT_EQ(blob.header_event, tracefs::read_file(access.root, "events/header_event"));
  EXPECT_TRUE(blob.ftrace_formats.empty());
  ASSERT_EQ(blob.systems.size(), 1u);
  EXPECT_EQ(blob.systems[0].first, "sched");
  ASSERT_EQ(blob.systems[0].second.size(), 1u);
  const std::string& format = blob.systems[0].second[0];
  EXPECT_NE(format.find("name: sched_switch\n"), std::string::npos) << format;
  EXPECT_NE(format.find("ID: " + std::to_string(access.id) + "\n"), std::string::npos) << format;
  EXPECT_TRUE(blob.kallsyms.empty());
  EXPECT_EQ(blob.printk, tracefs::read_file(access.root, "printk_formats"));
}

TEST(TracingData, GroupsEventsBySystemAndWritesEachOnce) {
  auto access = find_sched_switch();
  if (!access.problem.empty()) GTEST_SKIP() << access.problem;
  std::vector<std::pair<std::string, std::string>> tracepoints{{"sched", "sched_switch"},
                                                               {"irq", "irq_handler_entry"},
                                                               {"sched", "sched_wakeup"},
                                                               {"sched", "sched_switch"}};
  std::vector<std::byte> bytes;
  try {
    bytes = arec::host::tracing_data_payload(access.root, tracepoints);
  } catch (const std::system_error& error) {
    GTEST_SKIP() << error.what();
  }
  auto blob = parse(bytes);
  ASSERT_EQ(blob.systems.size(), 2u);
  EXPECT_EQ(blob.systems[0].first, "sched");
  ASSERT_EQ(blob.systems[0].second.size(), 2u);
  EXPECT_NE(blob.systems[0].second[1].find("name: sched_wakeup\n"), std::string::npos);
  EXPECT_EQ(blob.systems[1].first, "irq");
  EXPECT_EQ(blob.systems[1].second.size(), 1u);
}

TEST(TracingData, UnknownTracepointNamesTheMissingFile) {
  auto access = find_sched_switch();
  if (!access.problem.empty()) GTEST_SKIP() << access.problem;
  std::vector<std::pair<std::string, std::string>> bogus{{"sched", "no_such_event"}};
  try {
    arec::host::tracing_data_payload(access.root, bogus);
    FAIL() << "built a blob for a missing tracepoint";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code().value(), ENOENT);
    EXPECT_NE(std::string(error.what()).find("events/sched/no_such_event/format"),
              std::string::npos)
        << error.what();
  }
}

TEST(TracingData, PerfNeedsItToOpenAFileWithATracepointAttr) {
  if (!perf_installed()) GTEST_SKIP() << "perf is not installed";
  auto access = find_sched_switch();
  if (!access.problem.empty()) GTEST_SKIP() << access.problem;
  temp_file with, without;
  write_tracepoint_file(with.fd(), access, true);
  write_tracepoint_file(without.fd(), access, false);

  auto accepted = run_command({"perf", "report", "--header-only", "-i", with.path()});
  EXPECT_EQ(accepted.exit_code, 0) << accepted.describe();
  EXPECT_EQ(accepted.err.find("incompatible"), std::string::npos) << accepted.err;
  EXPECT_NE(accepted.out.find("# event : name = sched:sched_switch"), std::string::npos)
      << accepted.out;

  // The control: the same file without the blob is refused, so the check above means something.
  auto refused = run_command({"perf", "report", "--header-only", "-i", without.path()});
  EXPECT_NE(refused.err.find("incompatible file format"), std::string::npos)
      << refused.describe() << "\nstdout:\n"
      << refused.out;
}

TEST(TracingData, PerfScriptDecodesTheRawFieldsWithIt) {
  if (!perf_installed()) GTEST_SKIP() << "perf is not installed";
  auto access = find_sched_switch();
  if (!access.problem.empty()) GTEST_SKIP() << access.problem;
  temp_file file;
  write_tracepoint_file(file.fd(), access, true);

  auto result = run_command({"perf", "script", "-F", "comm,pid,event,trace", "-i", file.path()});
  ASSERT_EQ(result.exit_code, 0) << result.describe();
  EXPECT_NE(result.out.find("arec-prev"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("sched:sched_switch:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("prev_comm=arec-prev prev_pid=100 prev_prio=120 prev_state=S ==> "
                            "next_comm=arec-next next_pid=200 next_prio=120"),
            std::string::npos)
      << result.out << result.err;
}
