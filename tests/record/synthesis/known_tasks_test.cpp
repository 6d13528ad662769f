#include "record/synthesis/known_tasks.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "collecting_sink.hpp"

namespace arec::record {
namespace {

using test::synthesized::record;

std::vector<record> split(const std::vector<std::byte>& bytes) {
  std::vector<record> records;
  std::size_t at = 0;
  while (at + 8 <= bytes.size()) {
    std::uint16_t size = 0;
    std::memcpy(&size, bytes.data() + at + 6, sizeof size);
    EXPECT_GE(size, 8u);
    if (size < 8 || at + size > bytes.size()) break;
    records.push_back(record{{bytes.begin() + at, bytes.begin() + at + size}});
    at += size;
  }
  EXPECT_EQ(at, bytes.size());
  return records;
}

TEST(KnownTasks, DescribeEveryThreadAndEveryMappingAnonymousOnesIncluded) {
  model::machine machine;
  machine.on_comm(100, 100, "jit_host");
  machine.on_fork(100, 100, 101, 100);
  machine.on_comm(100, 101, "worker");
  model::mapping_event file{.pid = 100,
                            .tid = 100,
                            .start = 0x400000,
                            .len = 0x2000,
                            .pgoff = 0x1000,
                            .prot = PROT_READ | PROT_EXEC,
                            .flags = MAP_PRIVATE,
                            .id = {.major = 8, .minor = 1, .inode = 42},
                            .name = "/usr/bin/jit_host"};
  machine.on_mmap(file);
  model::mapping_event jit{.pid = 100,
                           .tid = 100,
                           .start = 0x7f0000000000,
                           .len = 0x10000,
                           .prot = PROT_READ | PROT_EXEC,
                           .flags = MAP_PRIVATE,
                           .name = "//anon"};
  machine.on_mmap(jit);
  constexpr std::size_t trailer = 16;
  std::vector<record> records = split(encode_known_tasks(machine, trailer));
  test::synthesized::expect_well_formed(records, trailer);

  std::vector<std::string> comms;
  std::vector<std::string> maps;
  for (const record& r : records) {
    if (r.type() == PERF_RECORD_COMM) comms.push_back(std::to_string(r.u32(12)) + " " + r.text(16));
    if (r.type() != PERF_RECORD_MMAP2) continue;
    EXPECT_EQ(r.u32(8), 100u);  // pid
    maps.push_back(r.text(72) + " start=" + std::to_string(r.u64(16)) +
                   " len=" + std::to_string(r.u64(24)) + " pgoff=" + std::to_string(r.u64(32)) +
                   " inode=" + std::to_string(r.u64(48)) + " prot=" + std::to_string(r.u32(64)));
  }
  std::sort(comms.begin(), comms.end());
  EXPECT_EQ(comms, (std::vector<std::string>{"100 jit_host", "101 worker"}));
  // One MMAP2 per mapping of the shared address space, not one per thread.
  std::sort(maps.begin(), maps.end());
  EXPECT_EQ(maps, (std::vector<std::string>{
                      "//anon start=139637976727552 len=65536 pgoff=0 inode=0 prot=5",
                      "/usr/bin/jit_host start=4194304 len=8192 pgoff=4096 inode=42 prot=5"}));
}

}  // namespace
}  // namespace arec::record
