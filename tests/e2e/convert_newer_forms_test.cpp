// Recordings of newer perfs through arec convert. No perf newer than 6.1 runs here, so real perf
// 6.1 recordings are rewritten into the newer forms with the published layouts (COMPRESSED2 of
// perf 6.16's -z; perf 7.x's deferred user stacks), and the converted file must read in perf
// 6.1 as the original does: the same samples with the same stacks, and hotspot's parser the
// same count.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "base/unaligned.hpp"
#include "io/output_path.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "perf_data/sample_layout.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;
using bytes = std::vector<std::byte>;
using record_change = std::function<void(std::span<const std::byte> record, bytes& out)>;

constexpr const char* hotspot_parser = "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser";
constexpr std::uint64_t context_user_deferred = static_cast<std::uint64_t>(-640);

void put(bytes& out, std::uint64_t word) {
  const auto* raw = reinterpret_cast<const std::byte*>(&word);
  out.insert(out.end(), raw, raw + sizeof word);
}

// `from` (a perf 6.1 file) written again as `to`: the same attrs and features (and `added`),
// each record replaced by what `change` appends for it.
void rewrite_recording(const std::string& from, const std::string& to, const record_change& change,
                       const perf_data::feature_set& added = {}) {
  auto source = perf_data::perf_file_reader::open(from);
  bytes data;
  source.for_each_record([&](const perf_data::record_header&, std::span<const std::byte> record,
                             std::uint64_t) { change(record, data); });
  perf_data::feature_set features;
  for (unsigned bit = 1; bit < 256; ++bit)
    if (auto payload = source.feature(static_cast<perf_data::feature>(bit)))
      features.set(static_cast<perf_data::feature>(bit), {payload->begin(), payload->end()});
  for (const auto& [bit, payload] : added) features.set(bit, payload);
  io::unique_fd fd = io::unique_fd::open(to.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  perf_data::perf_file_writer writer(fd.get(), to);
  std::uint64_t offset = writer.write_prologue(source.events());
  io::write_all_at(fd.get(), data.data(), data.size(), offset, to);
  writer.write_epilogue(data.size(), features);
}

// perf script's "tid time ip sym" lines with every frame of every sample: what perf 6.1 reads.
std::string samples_with_stacks(const std::string& file) {
  test::command_result script =
      test::run_command({"perf", "script", "-i", file, "-F", "tid,time,ip,sym"}, 60s);
  EXPECT_EQ(script.exit_code, 0) << script.describe();
  return script.out;
}

// arec export's collapsed stacks of `file`: the shares a fleet store would show.
std::string folded(const std::string& file) {
  test::command_result run = test::run_command(
      {arec_binary(), "export", "-q", "--format", "folded", "-i", file, "-o", "-"}, 60s);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  return run.out;
}

long hotspot_samples(const std::string& file) {
  test::command_result parsed =
      test::run_command({hotspot_parser, "--input", file, "--print-stats"}, 60s);
  EXPECT_EQ(parsed.exit_code, 0) << parsed.describe();
  std::string text = parsed.out + parsed.err;
  auto at = text.find("samples: ");
  return at == std::string::npos ? -1 : std::stol(text.substr(at + 9));
}

class ConvertNewerForms : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  std::string record(std::vector<std::string> options) {
    std::string data = dir_.file("perf.data");
    std::vector<std::string> command{"perf", "record", "-q", "-e", "cpu-clock", "-o", data};
    command.insert(command.end(), options.begin(), options.end());
    command.insert(command.end(), {"--", test_program("hot_loop"), "300"});
    test::command_result run = test::run_command(command, 60s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    return data;
  }
  std::string convert(const std::string& input, const std::string& name) {
    std::string out = dir_.file(name);
    test::command_result run =
        test::run_command({arec_binary(), "convert", "-i", input, "-o", out}, 60s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;
    return out;
  }
  test::temp_dir dir_;
};

// perf 6.16's -z writes COMPRESSED2: the header, u64 data_size, the zstd data, padding to 8.
TEST_F(ConvertNewerForms, Compressed2RecordsReadAsTheCompressedOnesTheyReplace) {
  std::string data = record({"-z"});
  std::string newer = dir_.file("compressed2.data");
  std::size_t rewritten = 0;
  rewrite_recording(data, newer, [&](std::span<const std::byte> record, bytes& out) {
    auto header = base::load<perf_data::record_header>(record, 0);
    if (header.type != perf_data::record_compressed) {
      out.insert(out.end(), record.begin(), record.end());
      return;
    }
    std::span<const std::byte> zstd = record.subspan(8);
    std::size_t size = (16 + zstd.size() + 7) & ~std::size_t{7};
    perf_data::record_header head{perf_data::record_compressed2, 0,
                                  static_cast<std::uint16_t>(size)};
    out.insert(out.end(), reinterpret_cast<const std::byte*>(&head),
               reinterpret_cast<const std::byte*>(&head) + sizeof head);
    put(out, zstd.size());
    out.insert(out.end(), zstd.begin(), zstd.end());
    out.resize(out.size() + size - 16 - zstd.size());
    ++rewritten;
  });
  ASSERT_GT(rewritten, 0u) << "perf -z wrote no COMPRESSED record";
  std::string expected = samples_with_stacks(convert(data, "from-compressed.perf"));
  std::string converted = convert(newer, "from-compressed2.perf");
  EXPECT_NE(expected.find("hot_function"), std::string::npos) << expected.substr(0, 2000);
  EXPECT_EQ(samples_with_stacks(converted), expected);
  EXPECT_EQ(hotspot_samples(converted), hotspot_samples(convert(data, "again.perf")));
  EXPECT_EQ(folded(newer), folded(data)) << "arec export reads the newer form as the original";
}

// perf 6.16-7.x write record types (84 BPF_METADATA, 85 SCHEDSTAT_CPU) and header features
// (32 CPU_DOMAIN_INFO, 34 CLN_SIZE) perf 6.1 does not know: the converted file leaves them out,
// names each in one warning, and reads as the original does.
TEST_F(ConvertNewerForms, NewerRecordTypesAndFeaturesAreLeftOutAndNamed) {
  std::string data = record({});
  std::string newer = dir_.file("newer-types.data");
  perf_data::feature_set added;
  added.set(static_cast<perf_data::feature>(32), bytes(40, std::byte{3}));
  added.set(static_cast<perf_data::feature>(34), bytes(8, std::byte{4}));
  std::size_t seen = 0, inserted = 0;
  rewrite_recording(
      data, newer,
      [&](std::span<const std::byte> record, bytes& out) {
        out.insert(out.end(), record.begin(), record.end());
        if (++seen % 50 != 0) return;
        std::uint32_t type = seen % 100 == 0 ? 85 : 84;
        perf_data::record_header head{type, 0, 32};
        out.insert(out.end(), reinterpret_cast<const std::byte*>(&head),
                   reinterpret_cast<const std::byte*>(&head) + sizeof head);
        out.resize(out.size() + 24, std::byte{7});
        ++inserted;
      },
      added);
  ASSERT_GT(inserted, 2u);
  std::string out = dir_.file("newer-types.perf");
  test::command_result run =
      test::run_command({arec_binary(), "convert", "-i", newer, "-o", out}, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.err.find("types perf 6.1 does not know: 84 BPF_METADATA ("), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("85 SCHEDSTAT_CPU ("), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("CPU_DOMAIN_INFO (32), newer than perf 6.1"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("CLN_SIZE (34), newer than perf 6.1"), std::string::npos) << run.err;
  std::string original = convert(data, "original.perf");
  EXPECT_EQ(samples_with_stacks(out), samples_with_stacks(original));
  EXPECT_EQ(hotspot_samples(out), hotspot_samples(original));
  EXPECT_EQ(folded(newer), folded(data));
}

// perf 7.x's --call-graph fp,defer: each sample's chain ends at PERF_CONTEXT_USER_DEFERRED and a
// cookie; the user frames follow in a CALLCHAIN_DEFERRED record (u64 cookie, u64 nr, the ips,
// the sample_id trailer). Converted, every sample has its whole stack again.
TEST_F(ConvertNewerForms, DeferredUserStacksAreStitchedBackIntoTheirSamples) {
  std::string data = record({"-g"});
  auto source = perf_data::perf_file_reader::open(data);
  std::uint64_t type = source.events().front().attr.sample_type;
  ASSERT_TRUE(type & PERF_SAMPLE_CALLCHAIN);
  ASSERT_FALSE(type & PERF_SAMPLE_READ);
  std::string newer = dir_.file("deferred.data");
  std::uint64_t cookie = 1000, deferred = 0;
  rewrite_recording(data, newer, [&](std::span<const std::byte> record, bytes& out) {
    auto header = base::load<perf_data::record_header>(record, 0);
    std::size_t chain_at = 8 + perf_data::sample_callchain_offset(type);
    std::vector<std::uint64_t> chain;
    if (header.type == PERF_RECORD_SAMPLE) {
      auto count = base::load<std::uint64_t>(record, chain_at);
      for (std::uint64_t i = 0; i < count; ++i)
        chain.push_back(base::load<std::uint64_t>(record, chain_at + 8 + 8 * i));
    }
    auto user = std::find(chain.begin(), chain.end(), std::uint64_t{PERF_CONTEXT_USER});
    if (user == chain.end()) {
      out.insert(out.end(), record.begin(), record.end());
      return;
    }
    // The sample: its frames before the user part, then the marker and a cookie.
    std::size_t rest_at = chain_at + 8 + 8 * chain.size();
    std::size_t kept = static_cast<std::size_t>(user - chain.begin());
    bytes sample(record.begin(), record.begin() + static_cast<std::ptrdiff_t>(chain_at));
    put(sample, kept + 2);
    for (std::size_t i = 0; i < kept; ++i) put(sample, chain[i]);
    put(sample, context_user_deferred);
    put(sample, ++cookie);
    sample.insert(sample.end(), record.begin() + static_cast<std::ptrdiff_t>(rest_at),
                  record.end());
    base::store(std::span<std::byte>{sample}, 6, static_cast<std::uint16_t>(sample.size()));
    out.insert(out.end(), sample.begin(), sample.end());
    // The deferred record: cookie, nr, the user part, then TID and TIME as the trailer holds them.
    bytes later(8);
    put(later, cookie);
    put(later, chain.size() - kept);
    for (auto ip = user; ip != chain.end(); ++ip) put(later, *ip);
    put(later, base::load<std::uint64_t>(record, 8 + perf_data::sample_tid_offset(type)));
    put(later, base::load<std::uint64_t>(record, 8 + perf_data::sample_time_offset(type)));
    ASSERT_EQ(perf_data::sample_id_trailer_size(type), 16u) << "a trailer of TID and TIME only";
    perf_data::record_header head{22, 0, static_cast<std::uint16_t>(later.size())};
    base::store(std::span<std::byte>{later}, 0, head);
    out.insert(out.end(), later.begin(), later.end());
    ++deferred;
  });
  ASSERT_GT(deferred, 100u) << "too few samples with a user stack to test";
  std::string expected = samples_with_stacks(convert(data, "plain.perf"));
  std::string converted = convert(newer, "stitched.perf");
  EXPECT_NE(expected.find("caller_function"), std::string::npos) << expected.substr(0, 2000);
  EXPECT_EQ(samples_with_stacks(converted), expected);
  EXPECT_EQ(hotspot_samples(converted), hotspot_samples(dir_.file("plain.perf")));
  std::string stacks = folded(data);
  EXPECT_NE(stacks.find("caller_function;hot_function"), std::string::npos) << stacks;
  EXPECT_EQ(folded(newer), stacks) << "arec export stitches the deferred stacks too";
}

// perf 6.17 and later keep build-ids in MMAP2 records and write no BUILD_ID table; perf 6.1's
// --buildid-mmap writes that very form. The converted file has the table hotspot's parser reads
// (the program's own build-id in it), and perf reports the same dsos and symbols from both.
TEST_F(ConvertNewerForms, BuildIdsOnlyInMmap2RecordsReachTheBuildIdTable) {
  const std::string data = dir_.file("mmap2.data"), out = dir_.file("mmap2.perf");
  const std::string program = test_program("hot_loop");
  test::command_result recorded =
      test::run_command({"perf", "record", "-q", "--buildid-mmap", "-e", "cpu-clock", "-o", data,
                         "--", program, "300"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result header = test::run_command({"perf", "report", "--header-only", "-i", data});
  ASSERT_NE(header.out.find("missing features: TRACING_DATA BUILD_ID"), std::string::npos)
      << "perf did not leave the BUILD_ID table out:\n"
      << header.out;

  test::command_result converted =
      test::run_command({arec_binary(), "convert", "-q", "-i", data, "-o", out});
  ASSERT_EQ(converted.exit_code, 0) << converted.describe();
  test::command_result own = test::run_command({"perf", "buildid-list", "-i", program});
  ASSERT_EQ(own.exit_code, 0) << own.describe();
  std::string id = own.out.substr(0, own.out.find_first_of(" \n"));
  ASSERT_EQ(id.size(), 40u) << own.out;
  // The table itself (perf buildid-list also lists what it gathers from the records).
  auto file = perf_data::perf_file_reader::open(out);
  auto table = file.feature(perf_data::feature_build_id);
  ASSERT_TRUE(table) << "no BUILD_ID table in the converted file";
  bool listed = false;
  for (const perf_data::build_id_entry& entry :
       perf_data::parse_build_id_payload(*table, 0, "BUILD_ID"))
    listed = listed || (entry.filename == program && entry.id.hex() == id);
  EXPECT_TRUE(listed) << program << " " << id << " is not in the BUILD_ID table";

  auto by_dso_and_symbol = [](const std::string& file) {
    return test::run_command({"perf", "report", "-i", file, "--stdio", "--sort", "dso,sym",
                              "--percent-limit", "1"})
        .out;
  };
  std::string before = by_dso_and_symbol(data), after = by_dso_and_symbol(out);
  EXPECT_NE(before.find("hot_function"), std::string::npos) << before;
  auto rows = [](const std::string& report) {
    std::string kept;
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] != '#') kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(rows(after), rows(before));

  EXPECT_GT(hotspot_samples(out), 0);
}

}  // namespace
}  // namespace arec::e2e
