// profile: one aggregated profile in pprof's shape (google/pprof's profile.proto): samples of
// location ids with values and labels, and the deduplicated locations, functions, mappings and
// strings they refer to. Ids start at 1; those of locations and functions equal position + 1;
// string 0 is "".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arec::exporting {

struct value_type {
  std::int64_t type = 0;  // string index
  std::int64_t unit = 0;  // string index
};

struct sample_label {
  std::int64_t key = 0;  // string index
  std::int64_t str = 0;  // string index, or 0 for a numeric label
  std::int64_t num = 0;
};

struct profile_sample {
  std::vector<std::uint64_t> location_ids;  // leaf first
  std::vector<std::int64_t> values;         // one per sample type
  std::vector<sample_label> labels;
};

struct profile_mapping {
  std::uint64_t id = 0;
  std::uint64_t memory_start = 0;
  std::uint64_t memory_limit = 0;
  std::uint64_t file_offset = 0;
  std::int64_t filename = 0;  // string index
  std::int64_t build_id = 0;  // string index (lower-case hex)
  bool has_functions = false;
  bool kernel = false;  // not encoded: orders the kernel's mappings last (see profile_builder)
};

struct profile_location {
  std::uint64_t id = 0;
  std::uint64_t mapping_id = 0;  // 0: no mapping covers the address
  std::uint64_t address = 0;
  std::uint64_t function_id = 0;  // 0: not symbolized (a server may, from the mapping)
  // Functions the compiler inlined at this address, innermost first, all inside function_id
  // (from DWARF where a debug file is at hand; empty otherwise or with inline frames off).
  std::vector<std::uint64_t> inlined_ids;
  // function_id's source line at the address (JIT code's DEBUG_INFO records); 0 when unknown.
  std::int64_t line = 0;
};

struct profile_function {
  std::uint64_t id = 0;
  std::int64_t name = 0;      // string index
  std::int64_t filename = 0;  // string index: the mapped file's name, or JIT code's source file
};

struct profile {
  std::vector<value_type> sample_types;
  std::vector<profile_sample> samples;
  std::vector<profile_mapping> mappings;
  std::vector<profile_location> locations;
  std::vector<profile_function> functions;
  std::vector<std::string> strings;
  std::int64_t time_nanos = 0;  // wall clock, ns since the epoch
  std::int64_t duration_nanos = 0;
  value_type period_type;
  std::int64_t period = 0;
  std::int64_t default_sample_type = 0;  // string index
};

}  // namespace arec::exporting
