// Parallel synthesis: any number of workers writes the same set of records, each record whole,
// and feeds the same model; checked on a fixture /proc tree that does not change under us.
#include <linux/perf_event.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model/machine.hpp"
#include "record/synthesis/synthesizer.hpp"
#include "record/synthesis/worker_pool.hpp"
#include "support/temp_dir.hpp"

namespace arec::record {
namespace {

namespace fs = std::filesystem;

// A fake /proc: `processes` processes of 1-3 threads, each leader with a few mappings.
class fake_proc {
 public:
  explicit fake_proc(int processes) {
    for (int p = 0; p < processes; ++p) {
      int pid = 1000 + p * 10;
      int threads = 1 + p % 3;
      for (int t = 0; t < threads; ++t) {
        int tid = pid + t;
        fs::path task = fs::path(dir_.path()) / std::to_string(pid) / "task" / std::to_string(tid);
        fs::create_directories(task);
        std::ofstream(task / "status") << "Name:\tproc" << p << "\nTgid:\t" << pid
                                       << "\nPPid:\t1\nVmPeak:\t 1000 kB\nThreads:\t" << threads
                                       << "\n";
        if (t == 0) {
          std::ofstream maps(task / "maps");
          for (int m = 0; m < 3; ++m)
            maps << std::hex << 0x400000 + m * 0x10000 << "-" << 0x400000 + m * 0x10000 + 0x1000
                 << " r-xp 00000000 08:01 " << std::dec << 100 + m << "    /usr/lib/lib" << p % 7
                 << "_" << m << ".so\n";
          maps << "7ff000-800000 rw-p 00000000 00:00 0 \n";
        }
      }
    }
    fs::create_directories(fs::path(dir_.path()) / "self");  // not a process: skipped
  }
  const char* root() const { return dir_.path().c_str(); }

 private:
  test::temp_dir dir_;
};

class collecting_sink : public io::record_sink {
 public:
  void write(std::span<const std::byte> record) override {
    std::uint16_t size;
    std::memcpy(&size, record.data() + 6, sizeof size);
    if (size != record.size()) ++malformed;
    records.emplace_back(record.begin(), record.end());
  }
  std::vector<std::vector<std::byte>> records;
  std::size_t malformed = 0;
};

struct synthesis_run {
  std::vector<std::vector<std::byte>> records;  // sorted
  synthesis_counts counts;
  std::size_t model_threads = 0;
  std::size_t model_dsos = 0;
};

synthesis_run synthesize_with(const fake_proc& proc, unsigned threads) {
  collecting_sink sink;
  model::machine world;
  synthesis_config config;
  config.threads = threads;
  config.proc_root = proc.root();
  config.model = &world;
  synthesis_run run;
  run.counts = synthesize_all_tasks(sink, config);
  EXPECT_EQ(sink.malformed, 0u);
  std::sort(sink.records.begin(), sink.records.end());
  run.records = std::move(sink.records);
  run.model_threads = world.tasks().size();
  run.model_dsos = world.objects().size();
  return run;
}

TEST(ParallelSynthesis, FourWorkersWriteTheSameSetOfRecordsAsOne) {
  fake_proc proc{200};
  synthesis_run one = synthesize_with(proc, 1);
  synthesis_run four = synthesize_with(proc, 4);
  EXPECT_EQ(one.counts.processes, 200u);
  EXPECT_EQ(one.counts.threads, 200u / 3 * 6 + 2 + 1);  // 1+2+3 per three processes, + p=198,199
  EXPECT_EQ(one.counts.mmaps, 600u);
  EXPECT_EQ(one.records.size(), 2 * one.counts.threads + one.counts.mmaps);
  EXPECT_EQ(four.counts.processes, one.counts.processes);
  EXPECT_EQ(four.counts.threads, one.counts.threads);
  EXPECT_EQ(four.counts.mmaps, one.counts.mmaps);
  EXPECT_TRUE(four.records == one.records) << "the record sets differ";
}

TEST(ParallelSynthesis, EveryWorkerCountFeedsTheSameModel) {
  fake_proc proc{60};
  synthesis_run one = synthesize_with(proc, 1);
  synthesis_run three = synthesize_with(proc, 3);
  EXPECT_EQ(one.model_threads, 60u / 3 * 6 + 1) << "every task, and their parent pid 1";
  EXPECT_EQ(one.model_dsos, 21u);  // lib0..lib6 x 3 mappings
  EXPECT_EQ(three.model_threads, one.model_threads);
  EXPECT_EQ(three.model_dsos, one.model_dsos);
}

TEST(ParallelSynthesis, RealProcScanWithWorkersFindsThisProcess) {
  collecting_sink sink;
  synthesis_config config;
  config.threads = 4;
  synthesis_counts counts = synthesize_all_tasks(sink, config);
  EXPECT_EQ(sink.malformed, 0u);
  EXPECT_GT(counts.processes, 1u);
  EXPECT_GT(counts.mmaps, 0u);
  bool found_self = false;
  auto self = static_cast<std::uint32_t>(::getpid());
  for (const auto& record : sink.records) {
    std::uint32_t type, pid, tid;
    std::memcpy(&type, record.data(), 4);
    std::memcpy(&pid, record.data() + 8, 4);
    std::memcpy(&tid, record.data() + 12, 4);
    if (type == PERF_RECORD_COMM && pid == self && tid == self) found_self = true;
  }
  EXPECT_TRUE(found_self);
}

}  // namespace
}  // namespace arec::record
