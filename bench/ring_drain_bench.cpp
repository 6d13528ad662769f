// Cost of one ring drain on the streaming thread without the write: ring_reader::unread() on a
// fake in-memory ring, scan_records() over the chunk (what every drain does, -z or not), consume().
#include <benchmark/benchmark.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "perf_data/perf_abi.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/events/event_attrs.hpp"
#include "record/streaming/record_scan.hpp"
#include "record/streaming/ring_reader.hpp"

namespace {

namespace perf = arec::perf_data;
using arec::record::ring_reader;

constexpr std::size_t ring_bytes = 512 * 1024;  // arec's default: 128 data pages
constexpr std::size_t time_offset = perf::sample_time_offset(arec::record::common_sample_type);

// A ring whose data area holds `-g` SAMPLE records (IDENTIFIER|IP|TID|TIME|CPU + a callchain of
// 4..40 frames) laid out so that the stream tiles the ring exactly: any record boundary stays a
// boundary after wrapping, as in a real ring the kernel keeps writing.
class fake_ring {
 public:
  fake_ring() : control_(std::make_unique<perf_event_mmap_page>()), data_(ring_bytes / 8) {
    std::mt19937_64 random(7);
    auto* bytes = reinterpret_cast<std::byte*>(data_.data());
    std::size_t at = 0;
    std::uint64_t time = 1'000'000'000;
    constexpr std::size_t largest = 8 + 5 * 8 + 8 + 40 * 8;
    while (ring_bytes - at >= largest + 8) {
      const std::size_t frames = 4 + random() % 37;
      const auto size = static_cast<std::uint16_t>(8 + 5 * 8 + 8 + frames * 8);
      put(bytes + at, perf::record_header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size});
      std::uint64_t fields[6] = {
          17, 0x55d0'0000'1000, (4000ull << 32) | 4001, time += 250'000, 1, frames};
      std::memcpy(bytes + at + 8, fields, sizeof fields);
      at += size;
      sizes_.push_back(size);
      ++samples_per_lap_;
    }
    // One filler record (an unknown type the scan skips) closes the lap exactly.
    const auto rest = static_cast<std::uint16_t>(ring_bytes - at);
    put(bytes + at, perf::record_header{PERF_RECORD_SWITCH, 0, rest});
    sizes_.push_back(rest);
  }

  perf_event_mmap_page* control() { return control_.get(); }
  std::span<std::byte> data() { return std::as_writable_bytes(std::span(data_)); }
  std::uint64_t samples_per_lap() const { return samples_per_lap_; }

  // The kernel's side: publishes whole records, at least `bytes` of them, after the current head.
  void publish(std::size_t bytes) {
    std::size_t added = 0;
    while (added < bytes) {
      added += sizes_[next_];
      next_ = (next_ + 1) % sizes_.size();
    }
    control_->data_head += added;
  }

 private:
  static void put(std::byte* at, const perf::record_header& header) {
    std::memcpy(at, &header, sizeof header);
  }
  std::unique_ptr<perf_event_mmap_page> control_;
  std::vector<std::uint64_t> data_;
  std::vector<std::uint16_t> sizes_;
  std::size_t next_ = 0;
  std::uint64_t samples_per_lap_ = 0;
};

// Arg: bytes per drain (4 KiB: a busy --mmap-flush-less drain; 256 KiB: the half-ring wakeup).
void bm_drain_and_scan(benchmark::State& state) {
  fake_ring ring;
  ring_reader reader(ring.control(), ring.data());
  arec::record::stream_stats stats;
  const auto chunk_bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    ring.publish(chunk_bytes);
    state.ResumeTiming();
    const arec::record::ring_chunk chunk = reader.unread();
    arec::record::scan_records(chunk, stats, time_offset);
    reader.consume(chunk.end_position);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(stats.bytes_in));
  state.SetItemsProcessed(static_cast<std::int64_t>(stats.samples));
  benchmark::DoNotOptimize(stats);
}
BENCHMARK(bm_drain_and_scan)->Arg(4 << 10)->Arg(64 << 10)->Arg(256 << 10);

// The same drains without PauseTiming (whose own cost swamps small chunks): publishing is a
// few adds per record, far cheaper than the scan.
void bm_publish_drain_and_scan(benchmark::State& state) {
  fake_ring ring;
  ring_reader reader(ring.control(), ring.data());
  arec::record::stream_stats stats;
  const auto chunk_bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    ring.publish(chunk_bytes);
    const arec::record::ring_chunk chunk = reader.unread();
    arec::record::scan_records(chunk, stats, time_offset);
    reader.consume(chunk.end_position);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(stats.bytes_in));
  state.SetItemsProcessed(static_cast<std::int64_t>(stats.samples));
  benchmark::DoNotOptimize(stats);
}
BENCHMARK(bm_publish_drain_and_scan)->Arg(4 << 10)->Arg(64 << 10)->Arg(256 << 10);

// A baseline: copying the same chunk out of the ring (what a recorder that copies would pay).
void bm_drain_copy(benchmark::State& state) {
  fake_ring ring;
  ring_reader reader(ring.control(), ring.data());
  const auto chunk_bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> out(ring_bytes);
  std::int64_t copied = 0;
  for (auto _ : state) {
    ring.publish(chunk_bytes);
    const arec::record::ring_chunk chunk = reader.unread();
    chunk.copy_out(0, std::span(out).first(chunk.size()));
    benchmark::ClobberMemory();
    copied += static_cast<std::int64_t>(chunk.size());
    reader.consume(chunk.end_position);
  }
  state.SetBytesProcessed(copied);
}
BENCHMARK(bm_drain_copy)->Arg(4 << 10)->Arg(64 << 10)->Arg(256 << 10);

}  // namespace

BENCHMARK_MAIN();
