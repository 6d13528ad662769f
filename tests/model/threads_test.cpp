// threads: the tid-keyed table finds, adds and removes threads, also from several threads at
// once (the Concurrent tests run under TSan in CI).
#include "model/threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "model/machine.hpp"

namespace arec::model {
namespace {

std::shared_ptr<thread> make_thread(pid_t pid, pid_t tid) {
  return std::make_shared<thread>(pid, tid, std::make_shared<maps>());
}

TEST(Threads, FindsInsertedThreadByTid) {
  threads table;
  table.insert(make_thread(10, 11));
  auto found = table.find(11);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->pid(), 10);
  EXPECT_EQ(found->tid(), 11);
  EXPECT_FALSE(table.find(10));
  EXPECT_EQ(table.size(), 1u);
}

TEST(Threads, RemovedThreadStaysValidForItsHolder) {
  threads table;
  table.insert(make_thread(5, 5));
  auto held = table.find(5);
  held->set_comm("worker");
  EXPECT_TRUE(table.remove(5));
  EXPECT_FALSE(table.remove(5));
  EXPECT_FALSE(table.find(5));
  EXPECT_EQ(held->comm(), "worker");
}

TEST(Threads, FindOrAddCreatesOnlyWhenMissing) {
  threads table;
  int made = 0;
  auto make = [&] {
    ++made;
    return make_thread(7, 7);
  };
  auto first = table.find_or_add(7, make);
  auto second = table.find_or_add(7, make);
  EXPECT_EQ(first, second);
  EXPECT_EQ(made, 1);
}

TEST(Threads, CommIsCutToFifteenBytes) {
  auto task = make_thread(1, 1);
  task->set_comm("a_very_long_command_name");
  EXPECT_EQ(task->comm(), "a_very_long_com");
}

// A COMM record with an empty name hands over a view without data (nullptr): the name becomes
// empty, and nothing is copied from null (UBSan, in the ASan build, aborts on memcpy(.., 0, 0)).
TEST(Threads, EmptyCommClearsTheName) {
  auto task = make_thread(10, 11);
  task->set_comm("worker");
  task->set_comm(std::string_view{});
  EXPECT_EQ(task->comm(), "");
}

TEST(Threads, InsertReplacesAReusedTid) {
  threads table;
  table.insert(make_thread(1, 9));
  table.insert(make_thread(2, 9));
  EXPECT_EQ(table.find(9)->pid(), 2);
  EXPECT_EQ(table.size(), 1u);
}

TEST(ConcurrentThreads, InsertFindRemoveFromSeveralThreads) {
  threads table;
  constexpr int workers = 4;
  constexpr int per_worker = 2000;
  std::atomic<int> found_own{0};
  {
    std::vector<std::jthread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        for (int i = 0; i < per_worker; ++i) {
          pid_t tid = w * per_worker + i + 1;
          table.insert(make_thread(tid, tid));
          if (auto t = table.find(tid); t && t->tid() == tid) ++found_own;
          table.find(tid ^ 1);  // a neighbour another worker may be changing
          if (i % 2) {
            EXPECT_TRUE(table.remove(tid));
          }
        }
      });
    }
  }
  EXPECT_EQ(found_own.load(), workers * per_worker);
  EXPECT_EQ(table.size(), static_cast<std::size_t>(workers * per_worker / 2));
  std::size_t visited = 0;
  table.for_each([&](const thread& t) {
    ++visited;
    EXPECT_EQ((t.tid() - 1) % per_worker % 2, 0);
  });
  EXPECT_EQ(visited, table.size());
}

TEST(ConcurrentThreads, RacingFindOrAddAgreeOnOneThread) {
  threads table;
  std::vector<std::shared_ptr<thread>> got(4);
  {
    std::vector<std::jthread> pool;
    for (std::size_t w = 0; w < got.size(); ++w)
      pool.emplace_back([&, w] { got[w] = table.find_or_add(42, [] { return make_thread(42, 42); }); });
  }
  for (const auto& t : got) EXPECT_EQ(t, got[0]);
  EXPECT_EQ(table.size(), 1u);
}

TEST(ConcurrentThreads, MachineEventsFromSeveralThreadsKeepEveryProcessMapped) {
  machine world;
  constexpr int workers = 4;
  constexpr int processes = 200;
  {
    std::vector<std::jthread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        for (int p = 0; p < processes; ++p) {
          pid_t pid = 1000 + w * processes + p;
          world.on_fork(pid, 1, pid, 1);
          world.on_comm(pid, pid, "proc");
          mapping_event event;
          event.pid = pid;
          event.tid = pid;
          event.start = 0x400000;
          event.len = 0x1000;
          event.name = p % 2 ? "/usr/lib/libshared.so" : "/usr/bin/own";
          world.on_mmap(event);
          world.on_fork(pid, pid, pid + 100000, pid);  // a second thread of the process
          world.on_exit(pid, pid + 100000);
        }
      });
    }
  }
  // Every process, and their parent pid 1, created when first named.
  EXPECT_EQ(world.tasks().size(), static_cast<std::size_t>(workers * processes + 1));
  EXPECT_EQ(world.objects().size(), 2u);
  auto task = world.tasks().find(1000 + processes + 3);
  ASSERT_TRUE(task);
  EXPECT_EQ(task->comm(), "proc");
  ASSERT_TRUE(task->address_space()->find(0x400800));
  EXPECT_EQ(task->address_space()->find(0x400800)->object->name(), "/usr/lib/libshared.so");
}

}  // namespace
}  // namespace arec::model
