// Cost of walking /proc at start-up: the whole system-wide synthesis (FORK, COMM, MMAP2 for every
// task) into a sink that only counts, and the bare directory walk with dir_reader beneath it.
// Results depend on how many tasks run: bench/scenarios/task_swarm adds thousands.
#include <benchmark/benchmark.h>
#include <fcntl.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "io/dir_reader.hpp"
#include "io/record_sink.hpp"
#include "io/unique_fd.hpp"
#include "record/synthesis/synthesizer.hpp"

namespace {

using arec::io::dir_reader;
using arec::io::unique_fd;

class counting_sink final : public arec::io::record_sink {
 public:
  void write(std::span<const std::byte> record) override {
    ++records;
    bytes += record.size();
  }
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
};

void bm_synthesize_all_tasks(benchmark::State& state) {
  arec::record::synthesis_config config;
  arec::record::synthesis_counts counts;
  counting_sink sink;
  for (auto _ : state) counts = arec::record::synthesize_all_tasks(sink, config);
  state.counters["tasks"] = static_cast<double>(counts.threads);
  state.counters["processes"] = static_cast<double>(counts.processes);
  state.counters["mmaps"] = static_cast<double>(counts.mmaps);
  state.counters["record_bytes"] =
      static_cast<double>(sink.bytes) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(counts.threads) * state.iterations());
}
BENCHMARK(bm_synthesize_all_tasks)->Unit(benchmark::kMillisecond);

// The same measurement as `perf bench internals synthesize`: the benchmark's own process
// described (COMM and MMAP2 of its threads and mappings), without and with data mappings.
// Compare its time per event (1 / items_per_second) with perf's "Average time per event".
void bm_synthesize_own_process(benchmark::State& state) {
  arec::record::synthesis_config config;
  config.data_mmaps = state.range(0) != 0;
  std::array<int, 1> self{static_cast<int>(::getpid())};
  counting_sink sink;
  for (auto _ : state) arec::record::synthesize_processes(sink, self, config);
  double events = static_cast<double>(sink.records) / static_cast<double>(state.iterations());
  state.counters["events"] = events;
  // Seconds per event, as perf prints it: the inverse of an events-per-second rate.
  state.counters["s_per_event"] = benchmark::Counter(
      static_cast<double>(sink.records), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(sink.records));
}
BENCHMARK(bm_synthesize_own_process)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

bool is_pid(std::string_view name) {
  return !name.empty() && name.front() >= '0' && name.front() <= '9';
}

// /proc and every /proc/PID/task, as the synthesizer lists them (openat relative to /proc).
void bm_list_proc_tasks(benchmark::State& state) {
  std::uint64_t tasks = 0;
  for (auto _ : state) {
    tasks = 0;
    dir_reader processes{unique_fd::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    while (auto process = processes.next()) {
      if (!is_pid(process->name)) continue;
      char path[32];  // "PID/task": a pid has at most 10 digits
      std::copy_n("/task", 6, std::copy(process->name.begin(), process->name.end(), path));
      int fd = ::openat(processes.fd(), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) continue;  // the process exited meanwhile
      dir_reader threads{unique_fd(fd)};
      while (auto thread = threads.next()) tasks += is_pid(thread->name);
    }
  }
  state.counters["tasks"] = static_cast<double>(tasks);
  state.SetItemsProcessed(static_cast<std::int64_t>(tasks) * state.iterations());
}
BENCHMARK(bm_list_proc_tasks)->Unit(benchmark::kMicrosecond);

// /proc alone: the getdents64 cost per process.
void bm_list_proc(benchmark::State& state) {
  std::uint64_t entries = 0;
  for (auto _ : state) {
    entries = 0;
    dir_reader processes{unique_fd::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    while (auto entry = processes.next()) entries += is_pid(entry->name);
  }
  state.counters["processes"] = static_cast<double>(entries);
  state.SetItemsProcessed(static_cast<std::int64_t>(entries) * state.iterations());
}
BENCHMARK(bm_list_proc)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
