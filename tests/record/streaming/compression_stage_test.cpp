// Specification of a streaming thread's -z stage: drains of several rings gather into segments,
// sealed by size or at a round; on the file, every COMPRESSED record decodes to something and to
// no more than max_decoded_bytes (what perf's reader allocates per record, from mmap_len), the
// records decode to exactly the input, and each ring's drains are counted once written.
#include "record/streaming/compression_stage.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <asio/use_future.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "async/executor_thread.hpp"
#include "io/append_writer.hpp"
#include "perf_data/decompressor.hpp"
#include "perf_data/perf_abi.hpp"
#include "support/allocation_counter.hpp"
#include "support/temp_file.hpp"

namespace arec::record {
namespace {

constexpr std::size_t seal_bytes = 16 * 1024;  // a 4-page ring: many seals in a short test
constexpr std::size_t rings = 2;

// Text-like input that compresses ~10:1, so one record can carry many segments' worth: the
// case that could overflow perf's buffer if segments were not bounded.
std::vector<std::byte> compressible_input(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  const std::string words[] = {"cpu-clock ", "hot_function ", "caller_function ",
                               "main ",      "0x401136 ",     "[kernel.kallsyms] "};
  std::vector<std::byte> out;
  out.reserve(size + 32);
  while (out.size() < size) {
    const std::string& word = words[random() % std::size(words)];
    for (char c : word) out.push_back(static_cast<std::byte>(c));
    if (random() % 8 == 0) out.push_back(static_cast<std::byte>(random()));
  }
  out.resize(size);
  return out;
}

struct written_totals {
  std::array<std::uint64_t, rings> samples{};
  std::array<std::uint64_t, rings> bytes_in{};
  std::uint64_t file_bytes = 0;
  std::uint64_t segments = 0;
};

// Drives the stage from a coroutine on a streaming thread the way the streamer does: each
// "drain" takes up to seal_bytes of the input for a ring, split in two pieces like a ring wrap;
// a segment is sealed when full() and every `round_every` drains.
class stage_run {
 public:
  explicit stage_run(std::span<const std::byte> input) : input_(input) {}

  written_totals run(std::uint32_t seed, int round_every) {
    auto [writer, choice] = io::make_append_writer(file_.fd(), file_.path(), 0,
                                                   {.queue_depth = 4, .force_plain = true});
    async::executor_thread thread({}, "stage-test");
    data_stream stream(thread.executor(), std::move(writer), [] {});
    written_totals totals;
    compression_stage stage(thread.executor(), 1, seal_bytes, rings,
                            [&](std::span<const stream_stats> by_ring, std::uint64_t bytes) {
                              for (std::size_t i = 0; i < by_ring.size(); ++i) {
                                totals.samples[i] += by_ring[i].samples;
                                totals.bytes_in[i] += by_ring[i].bytes_in;
                              }
                              totals.file_bytes += bytes;
                              ++totals.segments;
                            });
    auto done = asio::co_spawn(thread.executor(), drive(stream, stage, seed, round_every),
                               asio::use_future);
    done.get();
    thread.join();
    return totals;
  }

  const std::string& path() const { return file_.path(); }
  std::uint64_t add_allocations() const { return add_allocations_; }

 private:
  async::task<void> drive(data_stream& stream, compression_stage& stage, std::uint32_t seed,
                          int round_every) {
    std::mt19937 random(seed);
    for (std::size_t at = 0, drain = 0; at < input_.size(); ++drain) {
      const std::size_t size = std::min<std::size_t>(1 + random() % seal_bytes, input_.size() - at);
      const auto chunk = input_.subspan(at, size);
      const std::size_t cut = random() % (size + 1);
      const std::array<std::span<const std::byte>, 2> pieces{chunk.first(cut), chunk.subspan(cut)};
      co_await stage.ready(stream);
      const std::uint64_t before = test::allocations();
      stage.add(pieces, drain % rings, stream_stats{.samples = 1, .bytes_in = size});
      if (drain > 0) add_allocations_ += test::allocations() - before;
      at += size;
      if (stage.full() || drain % round_every == 0) co_await stage.seal(stream);
    }
    co_await stage.seal(stream);
    stream.close();
  }

  std::span<const std::byte> input_;
  test::temp_file file_;
  std::uint64_t add_allocations_ = 0;
};

std::vector<std::byte> read_file(const std::string& path) {
  std::vector<std::byte> bytes;
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return bytes;
  std::array<std::byte, 65536> block;
  for (std::size_t n; (n = std::fread(block.data(), 1, block.size(), file)) > 0;)
    bytes.insert(bytes.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(n));
  std::fclose(file);
  return bytes;
}

void expect_records_decode_within_bound(std::span<const std::byte> file,
                                        std::span<const std::byte> input) {
  arec::perf_data::decompressor d;
  std::vector<std::byte> decoded;
  std::size_t records = 0;
  while (!file.empty()) {
    perf_data::record_header header;
    ASSERT_GE(file.size(), sizeof header);
    std::memcpy(&header, file.data(), sizeof header);
    ASSERT_EQ(header.type, perf_data::record_compressed) << "record " << records;
    ASSERT_GT(header.size, sizeof header);
    ASSERT_LE(header.size, file.size());
    const std::size_t before = decoded.size();
    d.feed(file.subspan(sizeof header, header.size - sizeof header), decoded);
    // perf 6.1 stops with "Couldn't decompress data" on a record that yields nothing.
    EXPECT_GT(decoded.size(), before) << "record " << records;
    EXPECT_LE(decoded.size() - before, compression_stage::max_decoded_bytes(seal_bytes))
        << "record " << records;
    file = file.subspan(header.size);
    ++records;
  }
  EXPECT_GT(records, 10u);
  EXPECT_TRUE(decoded.size() == input.size() &&
              std::equal(decoded.begin(), decoded.end(), input.begin()))
      << "decoded " << decoded.size() << " bytes of " << input.size();
}

TEST(CompressionStage, SegmentsSealedBySizeDecodeRecordByRecordWithinTheAnnouncedBuffer) {
  const auto input = compressible_input(3 << 20, 1);
  stage_run run(input);
  const written_totals totals = run.run(2, 1'000'000);  // no rounds: only size seals
  const auto file = read_file(run.path());
  expect_records_decode_within_bound(file, input);
  EXPECT_EQ(totals.file_bytes, file.size());
  EXPECT_GE(totals.segments, input.size() / (2 * seal_bytes)) << "sealed at seal_bytes";
}

TEST(CompressionStage, SegmentsSealedByRoundsDecodeAndCountEveryRingOnce) {
  const auto input = compressible_input(1 << 20, 3);
  stage_run run(input);
  const written_totals totals = run.run(4, 3);
  expect_records_decode_within_bound(read_file(run.path()), input);
  EXPECT_EQ(totals.bytes_in[0] + totals.bytes_in[1], input.size());
  EXPECT_GT(totals.samples[0], 0u);
  EXPECT_GT(totals.samples[1], 0u);
  EXPECT_LE(totals.samples[1], totals.samples[0]);  // drains alternate, ring 0 first
  EXPECT_GE(totals.samples[1] + 1, totals.samples[0]);
}

TEST(CompressionStage, AddingADrainAllocatesNothing) {
#ifdef AREC_TEST_NO_ALLOCATION_COUNTING
  GTEST_SKIP() << "this runtime owns the allocation functions (see allocation_counter.hpp)";
#else
  ASSERT_TRUE(test::counting_works());
  const auto input = compressible_input(1 << 20, 5);
  stage_run run(input);
  run.run(6, 5);
  EXPECT_EQ(run.add_allocations(), 0u);
#endif
}

}  // namespace
}  // namespace arec::record
