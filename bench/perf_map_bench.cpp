// The cost of JIT perf maps for a 100,000-entry map (a large node or JVM service): what the
// recorder spends on each finished file (read the captured fd, compress into feature 255), and
// what export and each --push window spend to decode and parse it. docs/performance.md, "What
// each feature costs".
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>

#include "export/perf_map.hpp"
#include "io/owned_files.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/perf_maps_feature.hpp"

namespace {

namespace perf = arec::perf_data;

// Lines as node --perf-basic-prof writes them: address, size, kind, name, script position.
std::string node_like_map(std::size_t entries) {
  std::mt19937_64 random(7);
  std::string text;
  std::uint64_t address = 0x3a5f00000000;
  for (std::size_t i = 0; i < entries; ++i) {
    std::uint64_t size = 0x40 + random() % 0x600;
    char line[256];
    std::snprintf(
        line, sizeof line,
        "%lx %lx LazyCompile:*handler%zu /srv/app/node_modules/pkg%zu/lib/file%zu.js:%zu:%zu\n",
        static_cast<unsigned long>(address), static_cast<unsigned long>(size), i,
        static_cast<std::size_t>(random() % 300), static_cast<std::size_t>(random() % 40),
        static_cast<std::size_t>(random() % 2000), static_cast<std::size_t>(random() % 80));
    text += line;
    address += size + random() % 0x100;
  }
  return text;
}

struct map_file {
  std::string text = node_like_map(100'000);
  std::string path;
  arec::io::unique_fd fd;
  map_file() {
    char name[] = "/tmp/arec-perf-map-bench-XXXXXX";
    fd = arec::io::unique_fd{::mkstemp(name)};
    path = name;
    if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::abort();
  }
  ~map_file() { ::unlink(path.c_str()); }
};

// Per finished file of the recording: read the whole map through the kept fd, compress it.
void BM_CaptureIntoFeature(benchmark::State& state) {
  map_file map;
  std::size_t stored = 0;
  for (auto _ : state) {
    arec::io::bounded_file read =
        arec::io::read_bounded_open_file(map.fd.get(), map.path, perf::max_perf_map_bytes);
    std::vector<perf::captured_perf_map> maps{{1234, std::move(read.text)}};
    stored = perf::perf_maps_payload(maps).size();
    benchmark::DoNotOptimize(stored);
  }
  state.counters["map_bytes"] = static_cast<double>(map.text.size());
  state.counters["feature_bytes"] = static_cast<double>(stored);
}
BENCHMARK(BM_CaptureIntoFeature)->Unit(benchmark::kMillisecond);

// Per export, and per --push window: decompress the feature, parse the map, name one address.
void BM_DecodeAndParse(benchmark::State& state) {
  std::vector<perf::captured_perf_map> maps{{1234, node_like_map(100'000)}};
  std::vector<std::byte> payload = perf::perf_maps_payload(maps);
  for (auto _ : state) {
    std::vector<perf::captured_perf_map> back = perf::parse_perf_maps_payload(payload, 0, "bench");
    arec::exporting::perf_maps names{""};
    names.use_captured(back[0].pid, back[0].text);
    benchmark::DoNotOptimize(names.function_at(1234, 0x3a5f00000100));
  }
}
BENCHMARK(BM_DecodeAndParse)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
