// function_shares: each function's weight where it runs (self: the leaf of a stack) and where
// it runs or calls (total: each stack counted once however often the function recurs in it),
// as `go tool pprof -top` gives them as flat and cum: the page's text summary.
#pragma once

#include <cstdint>
#include <vector>

#include "report/page_model.hpp"

namespace arec::report {

struct function_share {
  std::uint32_t name = 0;  // string id in the model
  std::int64_t self = 0;
  std::int64_t total = 0;
};

// One entry per function name of `model` with a weight of the default event, by self weight (descending), then by
// total, then by name id.
std::vector<function_share> function_shares(const page_model& model);

}  // namespace arec::report
