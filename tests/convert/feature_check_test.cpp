// feature_check: every feature perf 6.1 parses, whole and with a count or length off. The
// damaged ones are named, and a conversion of a recording holding one leaves a file perf 6.1
// reads without dying by a signal (perf report SIGSEGVed on PMU_MAPPINGS' count and on a
// MEM_TOPOLOGY bitmap's size before convert checked them).
#include "convert/feature_check.hpp"

#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "convert/converter.hpp"
#include "host/host_features.hpp"
#include "perf_data/build_id_feature.hpp"
#include "records.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::convert {
namespace {

using namespace test_records;
using perf_data::feature;
using bytes = std::vector<std::byte>;

feature bit(unsigned value) {
  return static_cast<feature>(value);
}

// The payloads perf writes and arec does not (arec writes the host's: add_host_features).
perf_data::feature_set other_features() {
  perf_data::feature_set set;
  auto payload = [&](unsigned b, auto&& fill) {
    perf_data::feature_encoder out;
    fill(out);
    set.set(bit(b), out.take());
  };
  payload(11, [](auto& out) {
    out.string_list(std::vector<std::string>{"/usr/bin/perf", "record"});
  });
  payload(17, [](auto& out) {  // GROUP_DESC: one group of both attrs
    out.u32(1);
    out.string("{anon_group}");
    out.u32(0);
    out.u32(2);
  });
  payload(18, [](auto& out) { out.u64(0); });  // AUXTRACE: an empty index
  payload(23, [](auto& out) { out.u64(1); });  // CLOCKID
  payload(25, [](auto& out) { out.u32(0); });  // BPF_PROG_INFO
  payload(26, [](auto& out) {                  // BPF_BTF: one blob
    out.u32(1);
    out.u32(7);
    out.u32(4);
    out.u32(0);
  });
  payload(28, [](auto& out) {  // CPU_PMU_CAPS
    out.u32(1);
    out.string("branches");
    out.string("32");
  });
  payload(29, [](auto& out) {  // CLOCK_DATA
    out.u32(1);
    out.u32(1);
    out.u64(2);
    out.u64(3);
  });
  payload(30, [](auto& out) {  // HYBRID_TOPOLOGY
    out.u32(1);
    out.string("cpu_core");
    out.string("0-1");
  });
  payload(31, [](auto& out) {  // PMU_CAPS
    out.u32(1);
    out.u32(1);
    out.string("branches");
    out.string("32");
    out.string("cpu");
  });
  return set;
}

perf_data::feature_set all_features() {
  perf_data::feature_set set = other_features();
  host::add_host_features(set);
  return set;
}

constexpr feature_context two_attrs_two_cpus{.attrs = 2, .cpus_avail = 2};

// One field of one feature set to an extreme: a count, a length or a size perf believes.
struct damage {
  unsigned feature;
  std::size_t offset;
  std::uint64_t value;
  std::size_t width;  // 4 or 8; 0: the payload is cut to `offset` bytes instead
  const char* what;
};

const damage damages[] = {
    {3, 0, 0x7fffffff, 4, "HOSTNAME's length"},
    {4, 0, 0, 4, "OSRELEASE's length 0 (no NUL)"},
    {5, 0, 0xffffffff, 4, "VERSION's length"},
    {6, 0, 1, 4, "ARCH's string without its NUL"},
    {7, 0, 0x41000000, 4, "NRCPUS' available CPUs"},
    {8, 0, 0x41000000, 4, "CPUDESC's length"},
    {9, 0, 0xffffffff, 4, "CPUID's length"},
    {10, 4, 0, 0, "TOTAL_MEM cut short"},
    {11, 0, 0x41000000, 4, "CMDLINE's argument count"},
    {13, 0, 0x41000000, 4, "CPU_TOPOLOGY's core list count"},
    {14, 0, 0x41000000, 4, "NUMA_TOPOLOGY's node count"},
    {16, 0, 0x41000000, 4, "PMU_MAPPINGS' count"},
    {16, 0, 0xffffffff, 4, "PMU_MAPPINGS' count"},
    {17, 0, 0x41000000, 4, "GROUP_DESC's group count"},
    {17, 76, 5, 4, "GROUP_DESC's members beyond the attrs"},
    {18, 0, 0x0100000000000001, 8, "AUXTRACE's entry count (overflowing x16)"},
    {20, 4, 0x41000000, 4, "CACHE's level count"},
    {22, 16, 0x0800000000000001, 8, "MEM_TOPOLOGY's node count"},
    {22, 40, 0xffffffffffffffff, 8, "MEM_TOPOLOGY's first bitmap size"},
    {23, 4, 0, 0, "CLOCKID cut short"},
    {25, 0, 0x41000000, 4, "BPF_PROG_INFO's program count"},
    {26, 8, 0x41000000, 4, "BPF_BTF's blob size"},
    {28, 0, 0x41000000, 4, "CPU_PMU_CAPS' count"},
    {29, 0, 2, 4, "CLOCK_DATA's version"},
    {30, 0, 0x41000000, 4, "HYBRID_TOPOLOGY's node count"},
    {31, 4, 0x41000000, 4, "PMU_CAPS' capability count"},
};

bytes damaged(const bytes& payload, const damage& d) {
  bytes out = payload;
  if (d.width == 0) {
    out.resize(d.offset);
  } else if (d.offset + d.width <= out.size()) {
    std::memcpy(out.data() + d.offset, &d.value, d.width);
  }
  return out;
}

TEST(FeatureCheck, PassesEveryFeatureAsWritten) {
  perf_data::feature_set set = all_features();
  for (const auto& [b, payload] : set)
    EXPECT_EQ(feature_problem(b, payload, two_attrs_two_cpus), "") << "feature " << b;
}

TEST(FeatureCheck, NamesEveryCountOrLengthPerfWouldBelieve) {
  perf_data::feature_set set = all_features();
  for (const damage& d : damages) {
    const bytes* payload = set.find(bit(d.feature));
    if (!payload) continue;  // a host feature this machine does not have
    SCOPED_TRACE(d.what);
    std::string problem = feature_problem(bit(d.feature), damaged(*payload, d), two_attrs_two_cpus);
    EXPECT_TRUE(problem.starts_with("byte ")) << problem;
  }
}

// The per-CPU arrays of CPU_TOPOLOGY follow NRCPUS: a topology for more CPUs is dropped.
TEST(FeatureCheck, ReadsCpuTopologyWithNrcpusAvailableCpus) {
  perf_data::feature_set set;
  host::add_host_features(set);
  const bytes* topology = set.find(perf_data::feature_cpu_topology);
  if (!topology) GTEST_SKIP() << "no CPU topology in sysfs";
  feature_context context = feature_context_of(set, 1);
  EXPECT_GT(context.cpus_avail, 0u);
  EXPECT_EQ(feature_problem(perf_data::feature_cpu_topology, *topology, context), "");
  context.cpus_avail += 64;
  EXPECT_NE(feature_problem(perf_data::feature_cpu_topology, *topology, context), "");
}

// One program of BPF_PROG_INFO as perf record writes it: jited_ksyms (bit 3 of `arrays`) at
// offset 0 of 16 data bytes, the map ids counted but not fetched.
bytes one_program(bpf_prog_info info, std::uint64_t arrays) {
  perf_data::feature_encoder out;
  out.u32(1);
  out.u32(sizeof info);
  out.u32(16);
  out.u64(arrays);
  out.bytes(std::as_bytes(std::span{&info, 1}));
  out.bytes(bytes(16));
  return out.take();
}

TEST(FeatureCheck, NamesABpfProgramWhoseArraysPerfWouldReadOutsideItsData) {
  bpf_prog_info info{};
  info.nr_jited_ksyms = 2;
  info.jited_ksyms = 0;
  info.nr_map_ids = 5;  // the kernel's count, the array not asked for
  EXPECT_EQ(feature_problem(bit(25), one_program(info, 1 << 3)), "");
  // Untranslated, jited_ksyms would be a raw pointer to perf.
  EXPECT_NE(feature_problem(bit(25), one_program(info, 0)), "");
  info.jited_ksyms = 8;  // 2 u64 from byte 8 of 16
  EXPECT_NE(feature_problem(bit(25), one_program(info, 1 << 3)), "");
  bpf_prog_info funcs{};
  funcs.nr_func_info = 2;
  funcs.func_info_rec_size = sizeof(bpf_func_info);
  EXPECT_EQ(feature_problem(bit(25), one_program(funcs, 1 << 5)), "");
  funcs.func_info_rec_size = 1;  // perf reads a whole bpf_func_info at each
  EXPECT_NE(feature_problem(bit(25), one_program(funcs, 1 << 5)), "");
}

// The smallest tracing data perf 6.1 reads: no formats, version 0.6 (saved cmdlines last).
bytes tracing_data(std::uint32_t systems) {
  perf_data::feature_encoder out;
  auto text = [&](std::string_view t) {
    out.bytes(std::as_bytes(std::span{t.data(), t.size() + 1}));
  };
  text("\027\010\104tracing0.6");
  out.bytes(std::vector{std::byte{0}, std::byte{8}});  // little endian, long size 8
  out.u32(4096);
  text("header_page");
  out.u64(0);
  text("header_event");
  out.u64(0);
  out.u32(0);  // ftrace formats
  out.u32(systems);
  out.u32(0);  // kallsyms
  out.u32(0);  // printk formats
  out.u64(0);  // saved cmdlines
  return out.take();
}

TEST(FeatureCheck, ReadsTracingDataAsTraceReportDoes) {
  EXPECT_EQ(feature_problem(bit(1), tracing_data(0)), "");
  EXPECT_NE(feature_problem(bit(1), tracing_data(0x41000000)), "");  // systems
  bytes cut = tracing_data(0);
  cut.resize(cut.size() - 1);  // the saved cmdlines' size of version 0.6
  EXPECT_NE(feature_problem(bit(1), cut), "");
}

// perf 6.1 asserts on a build-id above 20 bytes and reads a name into PATH_MAX bytes of stack.
TEST(FeatureCheck, NamesABuildIdFeaturePerfOverflowsOn) {
  perf_data::build_id_entry entry;
  entry.cpumode = PERF_RECORD_MISC_USER;
  entry.id.size = 20;
  entry.filename = "/bin/true";
  bytes payload = perf_data::build_id_payload(std::span{&entry, 1});
  EXPECT_EQ(feature_problem(perf_data::feature_build_id, payload), "");
  payload[32] = std::byte{160};  // the size byte after the 20 id bytes
  EXPECT_EQ(feature_problem(perf_data::feature_build_id, payload),
            "byte 0 of the BUILD_ID feature: a BUILD_ID entry whose build-id has 160 bytes, "
            "more than 20");
}

TEST(FeatureCheck, NamesWhereAPmuMappingsCountRunsOut) {
  perf_data::feature_encoder out;
  out.u32(3);
  out.u32(4);
  out.string("cpu");
  EXPECT_EQ(feature_problem(bit(16), out.take()),
            "byte 76 of the PMU_MAPPINGS feature: PMU_MAPPINGS needs 4 more bytes but its section "
            "has 0");
}

// Each damage in a recording of two attrs; convert (strict and --salvage in turn) drops that
// feature, names it, and perf report reads the output without dying by a signal.
TEST(ConvertFeatures, PerfReadsTheOutputOfEveryDamagedFeature) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1}), event(sample_type, {2})};
  for (auto& e : events) e.attr.type = PERF_TYPE_SOFTWARE;
  constexpr std::uint64_t pid_tid = 0x0000000700000007;
  perf_data::feature_set set = all_features();
  bool salvage = false;
  for (const damage& d : damages) {
    const bytes* payload = set.find(bit(d.feature));
    if (!payload) continue;
    SCOPED_TRACE(std::string(d.what) + (salvage ? " (--salvage)" : ""));
    perf_data::feature_set features = set;
    features.set(bit(d.feature), damaged(*payload, d));
    const std::string input = dir.file("in.perf");
    const std::string output = dir.file("out.perf");
    write_recording(input, events,
                    {record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1),
                     record(PERF_RECORD_SAMPLE, 2, 0x1000, pid_tid, 110, 1, 1)},
                    features);
    convert_options options{.input = input, .output = output};
    options.salvage = salvage;
    salvage = !salvage;
    convert_report report = convert(options);
    std::string name = d.what;
    name = name.substr(0, name.find_first_of("' "));
    std::string dropped = report.dropped_features.empty() ? "" : report.dropped_features[0];
    EXPECT_NE(dropped.find(" of the " + name + " feature: "), std::string::npos) << dropped;
    test::command_result header =
        test::run_command({"perf", "report", "--header-only", "-I", "-i", output});
    EXPECT_EQ(header.term_signal, 0) << header.describe();
    test::command_result whole = test::run_command({"perf", "report", "--stdio", "-i", output});
    EXPECT_EQ(whole.term_signal, 0) << whole.describe();
  }
}

}  // namespace
}  // namespace arec::convert
