// machine: side-band records update tasks, address spaces and dsos as perf's machine does.
#include "model/machine.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <vector>

namespace arec::model {
namespace {

mapping_event mmap_of(pid_t pid, std::uint64_t start, std::uint64_t len, std::string_view name) {
  mapping_event event;
  event.pid = pid;
  event.tid = pid;
  event.start = start;
  event.len = len;
  event.name = name;
  return event;
}

TEST(Machine, ThreadsOfOneProcessShareTheAddressSpace) {
  machine world;
  world.on_comm(100, 100, "app");
  world.on_fork(100, 100, 101, 100);
  world.on_mmap(mmap_of(100, 0x1000, 0x1000, "/usr/bin/app"));
  auto worker = world.tasks().find(101);
  ASSERT_TRUE(worker);
  EXPECT_EQ(worker->address_space(), world.tasks().find(100)->address_space());
  EXPECT_EQ(worker->comm(), "app");
  ASSERT_TRUE(worker->address_space()->find(0x1800));
}

TEST(Machine, ForkedProcessGetsACopyOfItsParentsMaps) {
  machine world;
  world.on_mmap(mmap_of(100, 0x1000, 0x1000, "/usr/bin/app"));
  world.on_fork(200, 100, 200, 100);
  world.on_mmap(mmap_of(200, 0x1000, 0x1000, "/usr/bin/other"));
  EXPECT_EQ(world.tasks().find(100)->address_space()->find(0x1000)->object->name(), "/usr/bin/app");
  EXPECT_EQ(world.tasks().find(200)->address_space()->find(0x1000)->object->name(), "/usr/bin/other");
}

TEST(Machine, ExitRemovesTheThreadButItsProcessKeepsTheMaps) {
  machine world;
  world.on_fork(100, 100, 101, 100);
  world.on_mmap(mmap_of(100, 0x1000, 0x1000, "/usr/lib/libx.so"));
  auto space = world.tasks().find(101)->address_space();
  world.on_exit(100, 100);
  EXPECT_FALSE(world.tasks().find(100));
  ASSERT_TRUE(world.tasks().find(101));
  EXPECT_TRUE(space->find(0x1000));
  world.on_exit(100, 101);
  EXPECT_EQ(world.tasks().size(), 0u);
  EXPECT_EQ(world.objects().size(), 1u) << "dsos outlive the tasks that mapped them";
}

// A reader's model keeps an exited thread, as perf's does: a sample written after its EXIT (an
// off-CPU sum at a file's end) still finds its comm and maps, until the file ends.
TEST(Machine, AReadersModelKeepsExitedThreadsUntilTheFileEnds) {
  machine world{machine::exited_threads::kept};
  world.on_comm(100, 100, "app");
  world.on_mmap(mmap_of(100, 0x1000, 0x1000, "/usr/bin/app"));
  world.on_exit(100, 100);
  ASSERT_TRUE(world.tasks().find(100));
  EXPECT_EQ(world.tasks().find(100)->comm(), "app");
  EXPECT_TRUE(world.tasks().find(100)->address_space()->find(0x1800));
  world.forget_exited_threads();
  EXPECT_FALSE(world.tasks().find(100));
}

TEST(Machine, ForgettingExitedThreadsLeavesATidTakenAgain) {
  machine world{machine::exited_threads::kept};
  world.on_comm(100, 100, "old");
  world.on_exit(100, 100);
  world.on_fork(100, 1, 100, 1);  // the pid is reused
  world.on_comm(100, 100, "new");
  world.forget_exited_threads();
  ASSERT_TRUE(world.tasks().find(100));
  EXPECT_EQ(world.tasks().find(100)->comm(), "new");
}

TEST(Machine, KernelMapsGoToTheKernelAddressSpace) {
  machine world;
  mapping_event kernel = mmap_of(-1, 0xffffffff81000000, 0x1000000, "[kernel.kallsyms]_text");
  world.on_mmap(kernel);
  world.on_mmap(mmap_of(-1, 0xffffffffc0000000, 0x4000, "/lib/modules/6.1/kernel/fs/ext4.ko"));
  auto text = world.kernel_maps().find(0xffffffff81000010);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->object->name(), machine::kernel_name);
  EXPECT_EQ(text->object->kind(), dso_kind::kernel);
  EXPECT_EQ(world.kernel_maps().find(0xffffffffc0000000)->object->kind(), dso_kind::kernel_module);
  EXPECT_EQ(world.tasks().size(), 0u);
}

TEST(Machine, AnonymousMemoryHasNoDso) {
  machine world;
  world.on_mmap(mmap_of(1, 0x1000, 0x1000, "//anon"));
  ASSERT_TRUE(world.tasks().find(1)->address_space()->find(0x1000));
  EXPECT_EQ(world.tasks().find(1)->address_space()->find(0x1000)->object, nullptr);
  EXPECT_EQ(world.objects().size(), 0u);
}

TEST(Machine, SynthesizedForkStartsWithEmptyMapsAndKeepsAKnownLeader) {
  machine world;
  world.on_mmap(mmap_of(1, 0x1000, 0x1000, "/sbin/init"));
  world.on_fork(300, 300, 301, 300, false);  // a thread listed before its leader
  world.on_fork(300, 1, 300, 1, false);
  world.on_mmap(mmap_of(300, 0x5000, 0x1000, "/usr/bin/daemon"));
  auto leader = world.tasks().find(300);
  EXPECT_FALSE(leader->address_space()->find(0x1000)) << "no copy of init's maps";
  EXPECT_EQ(world.tasks().find(301)->address_space(), leader->address_space());
  EXPECT_TRUE(world.tasks().find(301)->address_space()->find(0x5000));
}

// JIT code is anonymous executable memory: the first sample in it, per address space, asks for
// its runtime's perf map; a file's code, data, or a second sample do not.
TEST(Machine, TheFirstSampleInJitCodeOfEachProcessIsReported) {
  machine world;
  std::vector<pid_t> reported;
  world.on_jit_sampled([&](pid_t pid) { reported.push_back(pid); });
  mapping_event jit = mmap_of(100, 0x10000, 0x1000, "//anon");
  jit.prot = PROT_READ | PROT_EXEC;
  mapping_event data = mmap_of(100, 0x20000, 0x1000, "//anon");
  data.prot = PROT_READ | PROT_WRITE;
  mapping_event code = mmap_of(100, 0x30000, 0x1000, "/usr/bin/app");
  code.prot = PROT_READ | PROT_EXEC;
  for (const mapping_event& event : {jit, data, code}) world.on_mmap(event);
  world.on_fork(100, 100, 101, 100);  // a thread: the same address space
  world.on_fork(200, 100, 200, 100);  // a process: a copy, its own JIT
  world.on_sample(100, 0x20010, false);
  world.on_sample(100, 0x30010, false);
  EXPECT_TRUE(reported.empty());
  world.on_sample(101, 0x10010, false);
  world.on_sample(100, 0x10020, false);
  world.on_sample(200, 0x10010, false);
  world.on_sample(200, 0x10010, false);
  EXPECT_EQ(reported, (std::vector<pid_t>{100, 200}));
}

// A runtime may write its perf map as it exits: the exit of a process whose JIT code got
// samples is reported (its leader's EXIT), not its threads' nor other processes'.
TEST(Machine, TheExitOfAProcessWithSampledJitCodeIsReported) {
  machine world;
  std::vector<pid_t> exited;
  world.on_jit_sampled([](pid_t) {});
  world.on_jit_process_exit([&](pid_t pid) { exited.push_back(pid); });
  mapping_event jit = mmap_of(100, 0x10000, 0x1000, "//anon");
  jit.prot = PROT_READ | PROT_EXEC;
  world.on_mmap(jit);
  world.on_fork(100, 100, 101, 100);
  world.on_fork(200, 100, 200, 100);  // a process of its own, never sampled in its JIT code
  world.on_sample(101, 0x10010, false);
  world.on_exit(100, 101);
  world.on_exit(200, 200);
  EXPECT_TRUE(exited.empty());
  world.on_exit(100, 100);
  EXPECT_EQ(exited, (std::vector<pid_t>{100}));
}

// A runtime marks its jitdump by mapping it: each such mapping is reported with its process
// and range (the capture opens the dump through it), no other file's.
TEST(Machine, AJitdumpsMarkerMappingIsReportedWithItsRange) {
  machine world;
  std::vector<std::pair<host::mapping_place, std::string>> marked;
  world.on_jitdump_mapped([&](const host::mapping_place& place, std::string_view name) {
    marked.emplace_back(place, std::string(name));
  });
  world.on_mmap(mmap_of(100, 0x30000, 0x1000, "/usr/bin/node"));
  world.on_mmap(mmap_of(100, 0x40000, 0x1000, "/tmp/jit-100.dump.old"));
  world.on_mmap(mmap_of(100, 0x50000, 0x1000, "/work/jit-100.dump"));
  ASSERT_EQ(marked.size(), 1u);
  EXPECT_EQ(marked[0].first.pid, 100);
  EXPECT_EQ(marked[0].first.start, 0x50000u);
  EXPECT_EQ(marked[0].first.end, 0x51000u);
  EXPECT_EQ(marked[0].second, "/work/jit-100.dump");
}

// Each process's first user-space sample is reported once (its container is noted then).
TEST(Machine, TheFirstSampleOfEachProcessIsReported) {
  machine world;
  std::vector<pid_t> reported;
  world.on_process_sampled([&](pid_t pid) { reported.push_back(pid); });
  world.on_mmap(mmap_of(100, 0x1000, 0x1000, "/usr/bin/app"));
  world.on_fork(100, 100, 101, 100);
  world.on_fork(200, 100, 200, 100);
  world.on_sample(101, 0xffffffff81000000, true);  // kernel: not looked up
  world.on_sample(101, 0x1010, false);
  world.on_sample(100, 0x1010, false);
  world.on_sample(200, 0x1010, false);
  world.on_sample(300, 0x1010, false);  // unknown: nothing to report
  EXPECT_EQ(reported, (std::vector<pid_t>{100, 200}));
}

}  // namespace
}  // namespace arec::model
