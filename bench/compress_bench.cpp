// Throughput of the COMPRESSED record stage on one streaming thread: compress() MB/s at the
// levels arec offers by default, on a perf-like SAMPLE stream drained in ring-sized chunks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "perf_data/compressor.hpp"
#include "perf_data/perf_abi.hpp"

namespace {

namespace perf = arec::perf_data;

template <typename T>
void append(std::vector<std::byte>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// SAMPLE records as `perf record -g` writes them (sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|
// CALLCHAIN): a few hundred distinct call stacks of 4..40 frames with a skewed popularity, a
// handful of threads and CPUs, times increasing by a jittered ~1 ms period.
std::vector<std::byte> sample_stream(std::size_t bytes) {
  std::mt19937_64 random(42);
  std::vector<std::vector<std::uint64_t>> stacks(300);
  for (auto& stack : stacks) {
    stack.resize(4 + random() % 37);
    for (auto& ip : stack) ip = 0x55d0'0000'0000 + (random() % 0x40000) * 4;
    stack[stack.size() - 1] = 0x7f3a'1202'9d90;  // every stack ends in libc's start code
  }
  std::vector<std::byte> out;
  out.reserve(bytes + 4096);
  std::uint64_t time = 5'123'456'789'000;
  while (out.size() < bytes) {
    // Squaring the draw makes low-numbered stacks hot, as in a real profile.
    const double draw = std::uniform_real_distribution<double>(0, 1)(random);
    const auto& stack = stacks[static_cast<std::size_t>(draw * draw * stacks.size())];
    const std::uint64_t tid = 4000 + random() % 8;
    time += 900'000 + random() % 200'000;
    append(out, perf::record_header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                                    static_cast<std::uint16_t>(8 + 8 * 7 + 8 * stack.size())});
    append(out, std::uint64_t{17});                           // id
    append(out, stack.front());                               // ip
    append(out, (std::uint64_t{4000} << 32) | tid);           // pid, tid
    append(out, time);                                        // time
    append(out, std::uint64_t{tid % 4});                      // cpu, reserved
    append(out, std::uint64_t{1'000'000 + random() % 1000});  // period (frequency mode)
    append(out, std::uint64_t{stack.size()});                 // callchain nr
    for (auto ip : stack) append(out, ip);
  }
  return out;
}

const std::vector<std::byte>& input() {
  static const std::vector<std::byte> stream = sample_stream(64 << 20);
  return stream;
}

// Args: zstd level, chunk bytes (what one ring drain hands over; the ring wraps every 512 KiB).
void bm_compress(benchmark::State& state) {
  const auto& stream = input();
  const int level = static_cast<int>(state.range(0));
  const auto chunk = static_cast<std::size_t>(state.range(1));
  constexpr std::size_t ring = 512 * 1024;
  arec::perf_data::compressor c(level);
  std::vector<std::byte> out(arec::perf_data::compressor::bound(chunk));
  std::size_t position = 0;
  for (auto _ : state) {
    if (position + chunk > stream.size()) position = 0;
    const auto data = std::span(stream).subspan(position, chunk);
    // Cut where a 512 KiB ring would wrap, so wrapped chunks are measured as two pieces.
    const std::size_t cut = std::min(chunk, ring - position % ring);
    const std::array<std::span<const std::byte>, 2> pieces{data.first(cut), data.subspan(cut)};
    benchmark::DoNotOptimize(c.compress(pieces, out));
    position += chunk;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(c.bytes_in()));
  state.counters["ratio"] = static_cast<double>(c.bytes_in()) / static_cast<double>(c.bytes_out());
}

BENCHMARK(bm_compress)
    ->ArgNames({"level", "chunk"})
    ->ArgsProduct({{1, 3}, {4 * 1024, 64 * 1024, 256 * 1024}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
