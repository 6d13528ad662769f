// push_window: one recording window as the push sender receives it: an already encoded, gzipped
// pprof with its time range and the labels of its series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arec::fleet {

struct label {
  std::string name;
  std::string value;
  friend bool operator==(const label&, const label&) = default;
};

struct push_window {
  std::string profile;                  // gzipped pprof (profile.proto) bytes
  std::uint64_t uncompressed_size = 0;  // the pprof's size before gzip; 0 when unknown
  std::int64_t start_ns = 0;            // window start, ns since the Unix epoch
  std::int64_t end_ns = 0;              // window end, ns since the Unix epoch
  std::vector<label> labels;            // this window's own labels, after the sender's own
};

}  // namespace arec::fleet
