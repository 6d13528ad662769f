// Parsing /proc/PID/maps: parse_maps_line on typical lines (CPU only), and maps_reader over a real
// maps file (pread + the kernel's formatting of the text, which dominates).
#include <benchmark/benchmark.h>
#include <fcntl.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/proc_maps.hpp"
#include "io/small_file.hpp"

namespace {

const std::vector<std::string>& sample_lines() {
  static const std::vector<std::string> lines = {
      "55bd4c2a2000-55bd4c2a4000 r--p 00000000 fe:00 10953317                   /usr/bin/cat",
      "55bd4c2a4000-55bd4c2a9000 r-xp 00002000 fe:00 10953317                   /usr/bin/cat",
      "55bd4d1b5000-55bd4d1d6000 rw-p 00000000 00:00 0                          [heap]",
      "7f3a12000000-7f3a12028000 r--p 00000000 fe:00 10883225                   "
      "/usr/lib/x86_64-linux-gnu/libc.so.6",
      "7f3a12028000-7f3a1219d000 r-xp 00028000 fe:00 10883225                   "
      "/usr/lib/x86_64-linux-gnu/libc.so.6",
      "7f3a121f5000-7f3a12202000 rw-p 00000000 00:00 0 ",
      "7f3a1220f000-7f3a12211000 r-xp 00000000 00:00 0                          [vdso]",
      "7ffd8a1c2000-7ffd8a1e3000 rw-p 00000000 00:00 0                          [stack]",
  };
  return lines;
}

void bm_parse_maps_line(benchmark::State& state) {
  const auto& lines = sample_lines();
  std::uint64_t parsed = 0;
  for (auto _ : state) {
    for (const std::string& line : lines) {
      auto entry = arec::host::parse_maps_line(line);
      benchmark::DoNotOptimize(entry);
      parsed += entry.has_value();
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(parsed));
}
BENCHMARK(bm_parse_maps_line);

// /proc/self/maps of this benchmark (~30 mappings), read whole and parsed through maps_reader.
void bm_read_self_maps(benchmark::State& state) {
  std::array<char, 4096 + 256> buffer;
  std::uint64_t mappings = 0;
  for (auto _ : state) {
    arec::io::small_file file = arec::io::small_file::open_at(AT_FDCWD, "/proc/self/maps");
    arec::host::maps_reader reader{file, buffer};
    while (auto entry = reader.next()) {
      benchmark::DoNotOptimize(*entry);
      ++mappings;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(mappings));
  state.counters["mappings"] =
      static_cast<double>(mappings) / static_cast<double>(state.iterations());
}
BENCHMARK(bm_read_self_maps)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
