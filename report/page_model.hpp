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
  std::uint32_t container = 0;  // string id of its container's id; 0 (the root's "all") for none
};

struct page_row {
  std::uint32_t node = 0;
  std::uint32_t thread = 0;
  std::uint32_t event = 0;   // index in page_model::events
  std::uint32_t bucket = 0;  // when, in page_model::bucket_ns from the first sample (0 untimed)
  std::int64_t weight = 0;
};

// One weight the recording gives a sample: an event's summed periods ("cpu-clock" in
// nanoseconds, "offcpu-time" in blocked nanoseconds, "cycles" as a count).
struct page_event {
  std::string name;
  std::string unit;
  bool base = false;  // of the profile a diff compares with (--diff BASE)
};

struct page_model {
  std::vector<std::string> strings;  // string 0 is the root's name, "all"
  // Nodes in depth-first order: node 0 is the root (depth 0); a node's parent is the nearest
  // node before it with a smaller depth.
  std::vector<std::uint32_t> node_name;
  std::vector<std::uint32_t> node_depth;
  std::vector<std::uint8_t> node_kind;
  std::vector<page_thread> threads;
  std::vector<page_row> rows;  // sorted by node, thread, event, bucket; no zero weight
  std::uint32_t buckets = 0;    // time buckets the rows use: 0 when samples carry no time_bucket
  std::uint64_t bucket_ns = 0;  // how long one is (set by whoever asked for them)
  std::vector<page_event> events;
  std::uint32_t default_event = 0;  // the first event's: what the summary and the page weigh first
  std::string weight_type;          // the default event's name ("cpu-clock")
  std::string weight_unit;          // its unit ("nanoseconds", "count")
  std::int64_t total = 0;           // the default event's rows' weight

  // Each node's weight of the default event with its descendants'.
  std::vector<std::int64_t> node_totals() const;
};

// The model of `source`: a row per stack, thread and event with a weight (the sample types
// that are not "..._samples" counts), the default one being the first event's summed periods,
// which `go tool pprof -top` shows and perf report weighs by. A frame without a function is
// "[unknown]", a sample without a comm label "[unknown]". With `base` (--diff BASE), its
// samples join the same tree as events of their own, marked base.
page_model build_page_model(const exporting::profile& source,
                            const exporting::profile* base = nullptr);

// Halves the time buckets' resolution (two neighbours summed into one, bucket_ns doubled) until
// `model` has at most `max_rows` rows or one bucket: a long recording of many stacks keeps a
// page of bounded size.
void coarsen_buckets(page_model& model, std::size_t max_rows);

}  // namespace arec::report
