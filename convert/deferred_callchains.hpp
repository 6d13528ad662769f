// deferred_callchains: the user stacks perf 7.x records apart (`--call-graph fp,defer`), put back
// into their samples. With deferred unwinding a SAMPLE's callchain ends with
// PERF_CONTEXT_USER_DEFERRED and a cookie; the user stack comes later, when the task returns to
// user space, as a PERF_RECORD_CALLCHAIN_DEFERRED (type 22: u64 cookie, u64 nr, nr ips, the
// sample_id trailer) of the same task and cookie. perf 7.x's report stitches them; perf 6.1
// knows neither the record nor the context (an unknown context drops the whole chain). convert
// reads the deferred records in a pass before the merge and writes each such sample with its
// whole stack: its own frames up to the marker, then PERF_CONTEXT_USER and the user frames.
// docs/convert.md, "Newer perf versions".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "convert/convert_input.hpp"

namespace arec::convert {

inline constexpr std::uint64_t perf_context_user_deferred = static_cast<std::uint64_t>(-640);
inline constexpr std::uint32_t record_callchain_deferred = 22;

class deferred_callchains {
 public:
  // Reads every CALLCHAIN_DEFERRED record of `input`; nullopt when it has none. Throws as the
  // merge does for malformed input.
  static std::optional<deferred_callchains> read(const convert_input& input, bool salvage);

  // `record` itself, or, for a SAMPLE whose chain waits for a deferred user stack, the sample
  // with its whole stack (valid until the next call). A sample whose stack never came keeps
  // its own frames without the marker and cookie, which perf 6.1 could not read.
  std::span<const std::byte> rewrite(std::span<const std::byte> record);

  std::uint64_t stitched() const noexcept { return stitched_; }
  std::uint64_t unmatched() const noexcept { return unmatched_; }

 private:
  struct attr_layout {
    std::uint64_t sample_type = 0;
    std::vector<std::uint64_t> ids;
  };
  explicit deferred_callchains(std::vector<attr_layout> attrs, long sample_id_at)
      : attrs_(std::move(attrs)), sample_id_at_(sample_id_at) {}
  void add(std::span<const std::byte> record);
  const attr_layout* attr_of(std::span<const std::byte> sample) const;

  std::vector<attr_layout> attrs_;
  long sample_id_at_;  // where a SAMPLE keeps its id, from the record start; -1: one attr
  // (tid, cookie) -> the user frames, in one buffer: (offset, count).
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::pair<std::size_t, std::size_t>> stacks_;
  std::vector<std::uint64_t> frames_;
  std::vector<std::byte> buffer_;
  std::uint64_t stitched_ = 0;
  std::uint64_t unmatched_ = 0;
};

}  // namespace arec::convert
