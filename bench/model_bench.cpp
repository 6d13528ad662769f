// Model memory and update cost at scale: 100k threads (10k processes of 10 threads), 20
// mappings per process over 2000 distinct dsos, fed through model::machine as side-band
// records would be. Memory is the heap growth glibc reports (mallinfo2) per element.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/machine.hpp"
#include "model/maps.hpp"

namespace {

using arec::model::machine;
using arec::model::mapping_event;

constexpr int processes = 10'000;
constexpr int threads_per_process = 10;
constexpr int maps_per_process = 20;
constexpr int distinct_dsos = 2'000;

std::size_t heap_in_use() { return mallinfo2().uordblks; }

std::vector<std::string> dso_names() {
  std::vector<std::string> names;
  for (int d = 0; d < distinct_dsos; ++d)
    names.push_back("/usr/lib/x86_64-linux-gnu/libsynthetic" + std::to_string(d) + ".so.1");
  return names;
}

void BM_ModelMemoryAt100kThreads(benchmark::State& state) {
  std::vector<std::string> names = dso_names();
  for (auto _ : state) {
    std::size_t start = heap_in_use();
    auto world = std::make_unique<machine>();
    std::size_t after_machine = heap_in_use();

    // Threads: each process's leader and its other threads (FORK as the kernel reports it).
    for (int p = 0; p < processes; ++p) {
      pid_t pid = 100'000 + p * threads_per_process;
      world->on_fork(pid, 1, pid, 1, false);
      world->on_comm(pid, pid, "synthetic");
      for (int t = 1; t < threads_per_process; ++t) world->on_fork(pid, pid, pid + t, pid);
    }
    std::size_t after_threads = heap_in_use();

    // Dsos: created on first mapping; map them once each into pid 1.
    for (int d = 0; d < distinct_dsos; ++d) {
      mapping_event event;
      event.pid = 1;
      event.tid = 1;
      event.start = 0x10000000ull + static_cast<std::uint64_t>(d) * 0x10000;
      event.len = 0x1000;
      event.id.inode = static_cast<std::uint64_t>(d) + 1;
      event.name = names[static_cast<std::size_t>(d)];
      world->on_mmap(event);
    }
    std::size_t after_dsos = heap_in_use();

    // Maps: 20 per process, non-overlapping, over the existing dsos.
    for (int p = 0; p < processes; ++p) {
      pid_t pid = 100'000 + p * threads_per_process;
      for (int m = 0; m < maps_per_process; ++m) {
        int d = (p * 7 + m * 13) % distinct_dsos;
        mapping_event event;
        event.pid = pid;
        event.tid = pid;
        event.start = 0x7f0000000000ull + static_cast<std::uint64_t>(m) * 0x200000;
        event.len = 0x1000 * (1 + m % 4);
        event.id.inode = static_cast<std::uint64_t>(d) + 1;
        event.name = names[static_cast<std::size_t>(d)];
        world->on_mmap(event);
      }
    }
    std::size_t after_maps = heap_in_use();

    const double threads = processes * threads_per_process + 1.0;  // + pid 1
    const double maps = static_cast<double>(processes) * maps_per_process;
    state.counters["bytes_per_thread"] =
        static_cast<double>(after_threads - after_machine) / threads;
    // pid 1's 2000 maps are counted with the dsos: a dso is one map's worth cheaper than this.
    state.counters["bytes_per_dso"] = static_cast<double>(after_dsos - after_threads) / distinct_dsos;
    state.counters["bytes_per_map"] = static_cast<double>(after_maps - after_dsos) / maps;
    state.counters["total_MiB"] = static_cast<double>(after_maps - start) / (1 << 20);
    state.counters["threads"] = threads;
    benchmark::DoNotOptimize(world.get());
  }
}
BENCHMARK(BM_ModelMemoryAt100kThreads)->Iterations(1)->Unit(benchmark::kMillisecond);

// Steady state of the streaming path: an MMAP2 that replaces an existing mapping of a known
// process and dso (lookup thread, lookup dso, fixup insert).
void BM_ModelMmapKnownProcess(benchmark::State& state) {
  std::vector<std::string> names = dso_names();
  machine world;
  for (int p = 0; p < 1000; ++p) world.on_fork(1000 + p, 1, 1000 + p, 1, false);
  std::uint64_t i = 0;
  for (auto _ : state) {
    mapping_event event;
    event.pid = 1000 + static_cast<pid_t>(i % 1000);
    event.tid = event.pid;
    event.start = 0x400000 + (i % 32) * 0x1000;
    event.len = 0x1000;
    event.id.inode = i % distinct_dsos + 1;
    event.name = names[i % distinct_dsos];
    world.on_mmap(event);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelMmapKnownProcess);

// A thread lookup by tid in a 100k-thread table (the sharded hash map's hit path).
void BM_ModelThreadLookup(benchmark::State& state) {
  machine world;
  for (int t = 0; t < 100'000; ++t) world.on_fork(t + 2, 1, t + 2, 1, false);
  std::uint64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(world.tasks().find(static_cast<pid_t>(i % 100'000 + 2)));
    i += 7919;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelThreadLookup);

// An address lookup in one address space of N mappings (a sample's ip to its map: the binary
// search, the shared lock, and the copy of the map with its dso reference).
void BM_ModelMapsLookup(benchmark::State& state) {
  const auto count = static_cast<std::uint64_t>(state.range(0));
  arec::model::maps space;
  for (std::uint64_t m = 0; m < count; ++m) {
    arec::model::map entry;
    entry.start = 0x7f0000000000ull + m * 0x10000;
    entry.end = entry.start + 0x8000;
    entry.object = std::make_shared<arec::model::dso>(
        "/usr/lib/libsynthetic.so", arec::model::dso_id{.inode = m + 1},
        arec::model::dso_kind::user);
    space.insert(entry);
  }
  std::uint64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(space.find(0x7f0000000000ull + (i % count) * 0x10000 + 0x123));
    i += 7919;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelMapsLookup)->Arg(20)->Arg(1000)->Arg(100'000);

}  // namespace

BENCHMARK_MAIN();
