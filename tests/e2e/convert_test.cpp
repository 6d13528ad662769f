// `arec convert` on real recordings of hot_loop: the samples perf script sees (time, cpu, tid,
// ip) are the same multiset before and after, and hotspot's parser reads the output with every
// sample and no sample out of time order. Also the command line: errors exit 1 with one line.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "perf_data/perf_abi.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

constexpr const char* hotspot_parser = "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser";

bool exists(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0;
}

// perf script's "time cpu tid ip" lines (call chains hidden: one line per sample), sorted: the
// sample multiset of a file or directory.
std::vector<std::string> sample_multiset(const std::string& input, std::string& err) {
  test::command_result run =
      test::run_command({"perf", "script", "-i", input, "-F", "time,cpu,tid,ip", "-G"});
  err = run.describe();
  std::vector<std::string> lines;
  if (run.exit_code != 0) return lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// The value of "NAME: N" in hotspot-perfparser --print-stats output, or -1.
long stat_value(const std::string& text, const std::string& name) {
  auto at = text.find(name + ": ");
  if (at == std::string::npos) return -1;
  return std::stol(text.substr(at + name.size() + 2));
}

// `command > path`, through sh.
std::vector<std::string> saved_to(const std::string& path,
                                  const std::vector<std::string>& command) {
  std::vector<std::string> argv{"sh", "-c", "\"$@\" > \"$0\"", path};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

struct convert_case {
  const char* name;
  std::vector<std::string> record_args;
  bool pipe = false;  // recorded with -o - into the file
};

class ConvertRecording : public ::testing::TestWithParam<convert_case> {};

TEST_P(ConvertRecording, KeepsEverySampleAndHotspotReadsThemInOrder) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "convert is arec's own command";
  test::temp_dir dir;
  const std::string data = dir.file("rec.data");
  const std::string out = dir.file("rec.perf");
  std::vector<std::string> args{"-o", GetParam().pipe ? "-" : data, "-F", "2000"};
  args.insert(args.end(), GetParam().record_args.begin(), GetParam().record_args.end());
  args.insert(args.end(), {"--", test_program("hot_loop"), "500"});
  test::command_result recorded =
      test::run_command(GetParam().pipe ? saved_to(data, rec.command(args)) : rec.command(args));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();

  test::command_result converted =
      test::run_command({arec_binary(), "convert", "-i", data, "-o", out});
  ASSERT_EQ(converted.exit_code, 0) << converted.describe();
  EXPECT_EQ(converted.err.find("warning"), std::string::npos) << converted.err;

  std::string before_err, after_err;
  std::vector<std::string> before = sample_multiset(data, before_err);
  std::vector<std::string> after = sample_multiset(out, after_err);
  ASSERT_GE(before.size(), 100u) << before_err;
  EXPECT_EQ(after, before) << after_err;

  if (!exists(hotspot_parser)) GTEST_SKIP() << hotspot_parser << " is not installed";
  test::command_result parsed =
      test::run_command({hotspot_parser, "--input", out, "--print-stats"});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.describe();
  std::string stats = parsed.out + parsed.err;
  EXPECT_EQ(stat_value(stats, "samples"), static_cast<long>(before.size())) << stats;
  EXPECT_EQ(stat_value(stats, "samples time violations"), 0) << stats;
  EXPECT_EQ(stat_value(stats, "mmaps time violations"), 0) << stats;
  EXPECT_EQ(stats.find("unhandled event type"), std::string::npos) << stats;
}

// perf record's pipe stream, and the one perf inject -b makes of it (build-ids in mid-stream
// HEADER_BUILD_ID records), convert with every sample and their build-ids.
TEST(ConvertPipeStream, PerfRecordsStreamKeepsEverySampleAndBuildId) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string stream = dir.file("stream"), out = dir.file("out.data");
  for (const std::string& inject : {std::string("cat"), std::string("perf inject -b")}) {
    SCOPED_TRACE(inject);
    test::command_result recorded = test::run_command(
        {"sh", "-c",
         "perf record -q -e cpu-clock --sample-cpu -o - -- \"$1\" 300 | " + inject + " > \"$0\"",
         stream, test_program("hot_loop")});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
    test::command_result converted =
        test::run_command({arec_binary(), "convert", "-q", "-i", stream, "-o", out});
    ASSERT_EQ(converted.exit_code, 0) << converted.describe();
    std::string before_err, after_err;
    std::vector<std::string> before = sample_multiset(stream, before_err);
    ASSERT_GE(before.size(), 100u) << before_err;
    EXPECT_EQ(sample_multiset(out, after_err), before) << after_err;
    test::command_result ids = test::run_command({"perf", "buildid-list", "-i", out});
    ASSERT_EQ(ids.exit_code, 0) << ids.describe();
    if (inject != "cat") {
      EXPECT_NE(ids.out.find("/hot_loop"), std::string::npos) << ids.out;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Recordings, ConvertRecording,
    ::testing::Values(convert_case{"SingleFile", {}},
                      convert_case{"ThreadsCpuDirectory", {"--threads=cpu"}},
                      convert_case{"Compressed", {"-z"}},
                      convert_case{"CompressedDirectory", {"--threads=cpu", "-z"}},
                      convert_case{"CallGraph", {"-g"}},
                      // The id first in samples and last in other records.
                      convert_case{"SampleIdentifierDirectory",
                                   {"--threads=cpu", "--sample-identifier"}},
                      // ADDR before the id, registers after it.
                      convert_case{"DataAddressesAndRegisters", {"-z", "-d", "-Iip"}},
                      // A pipe stream saved to a file: its head records stand for the header.
                      convert_case{"PipeStream", {"-g"}, true},
                      convert_case{"CompressedPipeStream", {"-z"}, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ConvertCommand, BadInputExitsOneWithOneLineAndNoOutput) {
  test::temp_dir dir;
  const std::string bad = std::string(AREC_TEST_SOURCE_DIR) + "/fixtures/convert/bad_magic.data";
  const std::string out = dir.file("out.perf");
  test::command_result run = test::run_command({arec_binary(), "convert", "-i", bad, "-o", out});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_EQ(run.err,
            "arec: error: " + bad + ": offset 0: bad magic: not a perf.data file (no PERFILE2)\n");
  EXPECT_FALSE(exists(out));
}

TEST(ConvertCommand, MissingInputNamesIt) {
  test::temp_dir dir;
  test::command_result run = test::run_command(
      {arec_binary(), "convert", "-i", dir.file("nope.data"), "-o", dir.file("o")});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find(dir.file("nope.data")), std::string::npos) << run.err;
  EXPECT_FALSE(exists(dir.file("o")));
}

// Where feature `bit`'s payload starts in the perf.data file `bytes` (0 without it).
std::uint64_t feature_offset(const std::string& bytes, unsigned bit) {
  perf_data::file_header header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  if (!(header.features[bit / 64] >> (bit % 64) & 1)) return 0;
  unsigned index = 0;
  for (unsigned b = 0; b < bit; ++b) index += header.features[b / 64] >> (b % 64) & 1;
  perf_data::file_section section{};
  std::memcpy(&section,
              bytes.data() + header.data.offset + header.data.size + index * sizeof section,
              sizeof section);
  return section.offset;
}

// One field of an arec recording's PMU_MAPPINGS (its count) or MEM_TOPOLOGY (the first node's
// bitmap size) set to an extreme: perf report SIGSEGVed on what convert copied. Now convert
// drops the feature, names it, and perf reads the output.
TEST(ConvertCommand, DropsADamagedFeatureNamingItAndPerfReadsTheOutput) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "convert is arec's own command";
  test::temp_dir dir;
  const std::string data = dir.file("rec.data");
  test::command_result recorded =
      test::run_command(rec.command({"-q", "-o", data, "--", test_program("hot_loop"), "50"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::ifstream in(data, std::ios::binary);
  const std::string original{std::istreambuf_iterator<char>(in), {}};
  struct damage {
    unsigned bit;
    const char* name;
    std::size_t at;  // the field's offset in the payload
    std::uint64_t value;
    std::size_t width;
  };
  for (const damage& d : {damage{16, "PMU_MAPPINGS", 0, 0x41000000, 4},
                          damage{22, "MEM_TOPOLOGY", 40, ~std::uint64_t{0}, 8}}) {
    std::uint64_t offset = feature_offset(original, d.bit);
    if (offset == 0) continue;  // sysfs gave this machine no such feature
    std::string damaged = original;
    std::memcpy(damaged.data() + offset + d.at, &d.value, d.width);
    const std::string input = dir.file(std::string("damaged-") + d.name);
    std::ofstream(input, std::ios::binary) << damaged;
    for (bool salvage : {false, true}) {
      SCOPED_TRACE(std::string(d.name) + (salvage ? " --salvage" : ""));
      const std::string out = dir.file(std::string("out-") + d.name + (salvage ? "-s" : ""));
      std::vector<std::string> convert{arec_binary(), "convert", "-i", input, "-o", out};
      if (salvage) convert.push_back("--salvage");
      test::command_result converted = test::run_command(convert);
      ASSERT_EQ(converted.exit_code, 0) << converted.describe();
      EXPECT_NE(converted.err.find("arec: warning: dropped a feature perf 6.1 cannot read: byte "),
                std::string::npos)
          << converted.err;
      EXPECT_NE(converted.err.find(std::string(" of the ") + d.name + " feature: "),
                std::string::npos)
          << converted.err;
      for (std::vector<std::string> perf :
           {std::vector<std::string>{"perf", "report", "--stdio", "-i", out},
            std::vector<std::string>{"perf", "report", "--header-only", "-I", "-i", out}}) {
        test::command_result read = test::run_command(perf);
        EXPECT_EQ(read.term_signal, 0) << read.describe();
        EXPECT_EQ(read.exit_code, 0) << read.describe();
      }
    }
  }
}

}  // namespace
}  // namespace arec::e2e
