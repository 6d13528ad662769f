// chain_completion: the frames a frame-pointer call chain skips, found again from the objects'
// CFI and a small copy of the user stack (PERF_SAMPLE_STACK_USER, from the sampled SP up).
//
// The kernel's frame-pointer walk starts at rbp, which in a frameless function (a gcc leaf, all
// of Debian's libc) still points at its caller's frame: the chain goes from the sampled pc
// straight to the caller's caller. While the CFA is rsp-based, the return address sits inside
// the copy at a known offset from the sampled SP (no register value needed), so the walk pushes
// it and goes on at that return address; it stops at the first frame whose CFA is rbp-based
// (the one the chain skipped: included), or where it meets the chain's next return address, and
// the kernel's chain goes on from there. docs/perf-options.md, "Frame-pointer stacks completed".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "symbols/frame_rules.hpp"

namespace arec::symbols {

// Where the rule for a user address comes from (one process's maps and its objects' CFI).
class frame_rule_source {
 public:
  virtual ~frame_rule_source() = default;
  // The rule of the frame executing at `pc`; `none` when no CFI covers it.
  virtual frame_rule rule_for(std::uint64_t pc) = 0;
};

enum class completion : std::uint8_t {
  unchanged,       // the sampled pc had its frame pointer set up: the chain was right
  completed,       // frames recovered and spliced
  bp_unverified,   // completed, but a frameless frame on the way saved rbp and may have used it
                   // as a plain register: the kernel's chain after the splice is as it gave it
  no_cfi,          // a pc on the way has no CFI (JIT code, an object without .eh_frame)
  short_snapshot,  // a return address lies beyond the stack copy
  no_snapshot,     // the sample carries no stack copy
  too_deep,        // more frameless frames than a walk follows
};

// True for the outcomes where the chain stays as frame pointers give it (the ones counted).
constexpr bool not_completed(completion outcome) noexcept {
  return outcome != completion::unchanged && outcome != completion::completed &&
         outcome != completion::bp_unverified;
}

// At most this many frameless frames above the sampled pc.
inline constexpr std::size_t max_frameless_frames = 32;

// Completes the user part of a chain: `user` is the kernel's user entries (the sampled pc first,
// then return addresses, no PERF_CONTEXT markers), `stack` the copy from the sampled SP. `out`
// gets the completed user chain (or `user` itself when nothing could be completed). Allocates
// nothing once `out` has grown and the rules are cached.
completion complete_user_chain(std::span<const std::uint64_t> user,
                               std::span<const std::byte> stack, frame_rule_source& rules,
                               std::vector<std::uint64_t>& out);

// The same for a whole PERF_SAMPLE_CALLCHAIN (PERF_CONTEXT_* markers included): nullopt when it
// has no user entries. `out` holds the whole chain with its user part completed when the outcome
// is completed or bp_unverified; `user` is scratch.
std::optional<completion> complete_callchain(std::span<const std::uint64_t> chain,
                                             std::span<const std::byte> stack,
                                             frame_rule_source& rules,
                                             std::vector<std::uint64_t>& user,
                                             std::vector<std::uint64_t>& out);

}  // namespace arec::symbols
