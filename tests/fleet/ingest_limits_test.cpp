#include "fleet/ingest_limits.hpp"

#include <gtest/gtest.h>

namespace arec::fleet {
namespace {

std::vector<label> with_service(std::vector<label> labels) {
  labels.push_back({"service_name", "host"});
  return labels;
}

TEST(FleetIngestLimits, AcceptsPyroscopeLabels) {
  EXPECT_EQ(label_problem(with_service({{"__name__", "process_cpu"}, {"k8s.pod", "x"}}), {}),
            std::nullopt);
}

TEST(FleetIngestLimits, RefusesWhatTheServerRefuses) {
  ingest_limits limits;
  EXPECT_NE(label_problem(std::vector<label>{{"__name__", "process_cpu"}}, limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{"1abc", "x"}}), limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{"a-b", "x"}}), limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{"a", "x"}, {"a", "y"}}), limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{"a", ""}}), limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{std::string(1025, 'n'), "x"}}), limits), std::nullopt);
  EXPECT_NE(label_problem(with_service({{"a", std::string(2049, 'v')}}), limits), std::nullopt);
  std::vector<label> many;
  for (int i = 0; i < 30; ++i) many.push_back({"l" + std::to_string(i), "v"});
  auto problem = label_problem(with_service(many), limits);
  ASSERT_NE(problem, std::nullopt);
  EXPECT_EQ(*problem, "31 labels, more than the server's 30");
}

TEST(FleetIngestLimits, WindowTooBigTooOldOrInTheFuture) {
  ingest_limits limits;
  const std::int64_t now = 10'000'000'000'000;
  push_window window{"pprof", 100, now - 2'000'000'000, now - 1'000'000'000, {}};
  EXPECT_EQ(window_problem(window, now, limits), std::nullopt);
  push_window big = window;
  big.uncompressed_size = 4 * 1024 * 1024 + 1;
  EXPECT_NE(window_problem(big, now, limits), std::nullopt);
  push_window old = window;
  old.end_ns = now - 3601'000'000'000;
  auto problem = window_problem(old, now, limits);
  ASSERT_NE(problem, std::nullopt);
  EXPECT_NE(problem->find("3601 s ago"), std::string::npos) << *problem;
  push_window future = window;
  future.start_ns = now + 601'000'000'000;
  EXPECT_NE(window_problem(future, now, limits), std::nullopt);
  push_window empty = window;
  empty.profile.clear();
  EXPECT_NE(window_problem(empty, now, limits), std::nullopt);
}

}  // namespace
}  // namespace arec::fleet
