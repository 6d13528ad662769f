#include "record/synthesis/worker_pool.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace arec::record {
namespace {

TEST(WorkerPool, RunsEveryWorkerOnceAndRethrowsTheFirstFailure) {
  std::vector<int> ran(4, 0);
  run_workers(4, [&](unsigned worker) { ++ran[worker]; });
  EXPECT_EQ(ran, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_THROW(
      {
        try {
          run_workers(3, [](unsigned worker) {
            if (worker >= 1) throw std::runtime_error("worker " + std::to_string(worker));
          });
        } catch (const std::runtime_error& error) {
          EXPECT_STREQ(error.what(), "worker 1");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace arec::record
