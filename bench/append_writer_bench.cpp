// The data-file write path: append_writer (io_uring writev vs plain pwritev) appending chunks of
// one ring drain's size (64 KiB .. 1 MiB) to a temporary file, one drain after another, as a
// streaming thread does. Writes land in the page cache; writeback happens in the kernel.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/system_error.hpp"
#include "io/append_writer.hpp"
#include "io/unique_fd.hpp"

namespace {

using arec::io::append_writer;

// Where the file goes: $AREC_BENCH_DIR, else /tmp (set it to the disk you record to).
std::string bench_path() {
  const char* dir = std::getenv("AREC_BENCH_DIR");
  return std::string(dir ? dir : "/tmp") + "/arec_append_writer_bench.data";
}

// Args: backend (0 io_uring, 1 plain), chunk bytes, writes in flight (1 = one ring, as arec's
// streaming thread keeps one write per ring; 4 = four rings on one thread).
void bm_append(benchmark::State& state) {
  const bool plain = state.range(0) == 1;
  const auto chunk = static_cast<std::size_t>(state.range(1));
  const auto depth = static_cast<std::size_t>(state.range(2));
  const std::string path = bench_path();
  std::vector<std::byte> data(chunk, std::byte{0x5a});  // the "ring" the iovecs point into
  const std::array<std::span<const std::byte>, 1> pieces{std::span<const std::byte>(data)};
  std::array<std::uint64_t, 16> done{};
  constexpr std::uint64_t bytes_per_file = 256ull << 20;  // start over, so the file stays small

  std::int64_t written = 0;
  while (state.KeepRunningBatch(1)) {
    state.PauseTiming();
    arec::io::unique_fd fd =
        arec::io::unique_fd::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    arec::io::append_writer_config config;
    config.force_plain = plain;
    auto [writer, choice] = arec::io::make_append_writer(fd.get(), path, 0, config);
    if (plain != (choice.backend == arec::io::writer_backend::plain)) {
      state.SkipWithError(("io_uring unavailable: " + choice.fallback_reason).c_str());
      break;
    }
    state.ResumeTiming();
    for (std::uint64_t offset = 0; offset < bytes_per_file; offset += chunk) {
      while (writer->in_flight() >= depth) {
        if (writer->reap(done) == 0) writer->wait_one();
      }
      writer->submit(pieces, offset);
    }
    while (writer->in_flight() > 0) {
      if (writer->reap(done) == 0) writer->wait_one();
    }
    written += static_cast<std::int64_t>(bytes_per_file);
    state.PauseTiming();
    writer.reset();
    ::unlink(path.c_str());  // dropping the page cache pages is not what we measure
    state.ResumeTiming();
  }
  state.SetBytesProcessed(written);
}
BENCHMARK(bm_append)
    ->ArgNames({"plain", "chunk", "in_flight"})
    ->ArgsProduct({{0, 1}, {64 << 10, 256 << 10, 1 << 20}, {1, 4}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
