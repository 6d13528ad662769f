// page_model: what the report page draws, built from one export profile: one call tree of
// every thread's stacks merged (root first, children sorted by name, nodes in depth-first
// order), the threads, and rows of (node, thread, weight) from which the page sums each view,
// so a thread filter needs no second tree. Names are interned once into one string table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/profile.hpp"

namespace arec::report {

inline constexpr std::uint8_t kind_kernel = 1;  // node_kind bit: a kernel frame

struct page_thread {
  std::uint32_t name = 0;  // string id of its comm
  std::int64_t pid = 0;
  std::int64_t tid = 0;
};

struct page_row {
  std::uint32_t node = 0;
  std::uint32_t thread = 0;
  std::int64_t weight = 0;
};

struct page_model {
  std::vector<std::string> strings;  // string 0 is the root's name, "all"
  // Nodes in depth-first order: node 0 is the root (depth 0); a node's parent is the nearest
  // node before it with a smaller depth.
  std::vector<std::uint32_t> node_name;
  std::vector<std::uint32_t> node_depth;
  std::vector<std::uint8_t> node_kind;
  std::vector<page_thread> threads;
  std::vector<page_row> rows;  // sorted by node, then thread; no zero weight
  std::string weight_type;     // the sample type weighed ("cpu-clock")
  std::string weight_unit;     // its unit ("nanoseconds", "count")
  std::int64_t total = 0;      // every row's weight

  // Each node's weight with its descendants'.
  std::vector<std::int64_t> node_totals() const;
};

// The model of `source` weighed by its default sample type (the first event's summed
// periods, which `go tool pprof -top` shows and perf report weighs by). A frame without a
// function is "[unknown]", a sample without a comm label "[unknown]".
page_model build_page_model(const exporting::profile& source);

}  // namespace arec::report
