#include "symbols/chain_completion.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace arec::symbols {
namespace {

std::optional<std::uint64_t> word_at(std::span<const std::byte> stack, std::int64_t offset) {
  if (offset < 0 || static_cast<std::uint64_t>(offset) > stack.size() ||
      stack.size() - static_cast<std::uint64_t>(offset) < sizeof(std::uint64_t))
    return std::nullopt;
  std::uint64_t value = 0;
  std::memcpy(&value, stack.data() + offset, sizeof value);
  return value;
}

completion keep_chain(completion why, std::span<const std::uint64_t> user,
                      std::vector<std::uint64_t>& out) {
  out.assign(user.begin(), user.end());
  return why;
}

}  // namespace

completion complete_user_chain(std::span<const std::uint64_t> user,
                               std::span<const std::byte> stack, frame_rule_source& rules,
                               std::vector<std::uint64_t>& out) {
  out.clear();
  if (user.empty()) return completion::unchanged;
  std::uint64_t next_fp = user.size() > 1 ? user[1] : 0;  // where the kernel's walk went next
  std::uint64_t pc = user[0];
  std::int64_t sp = 0;  // this frame's SP, as an offset into the copy
  bool bp_touched = false;
  out.push_back(pc);
  for (std::size_t depth = 0; depth <= max_frameless_frames; ++depth) {
    // A return address is after its call: the call's own rule is the one at ra - 1.
    frame_rule rule = rules.rule_for(depth == 0 ? pc : pc - 1);
    if (rule.cfa_base == frame_rule::base::bp) {
      if (depth == 0) return keep_chain(completion::unchanged, user, out);
      out.insert(out.end(), user.begin() + 1, user.end());  // pc is the frame the walk skipped
      return bp_touched ? completion::bp_unverified : completion::completed;
    }
    if (rule.cfa_base == frame_rule::base::none || !rule.ra_saved)
      return keep_chain(completion::no_cfi, user, out);
    if (stack.empty()) return keep_chain(completion::no_snapshot, user, out);
    std::int64_t cfa = sp + rule.cfa_offset;
    std::optional<std::uint64_t> ra = word_at(stack, cfa + rule.ra_offset);
    if (!ra) return keep_chain(completion::short_snapshot, user, out);
    bp_touched = bp_touched || rule.saves_bp;
    if (*ra == 0) return completion::completed;  // the outermost frame: nothing above it
    if (*ra == next_fp) {  // met the kernel's chain: splice there, no frame twice
      out.insert(out.end(), user.begin() + 1, user.end());
      return bp_touched ? completion::bp_unverified : completion::completed;
    }
    out.push_back(*ra);
    pc = *ra;
    sp = cfa;
  }
  return keep_chain(completion::too_deep, user, out);
}

std::optional<completion> complete_callchain(std::span<const std::uint64_t> chain,
                                             std::span<const std::byte> stack,
                                             frame_rule_source& rules,
                                             std::vector<std::uint64_t>& user,
                                             std::vector<std::uint64_t>& out) {
  constexpr std::uint64_t context_max = static_cast<std::uint64_t>(-4095);  // markers above
  auto marker = std::find(chain.begin(), chain.end(), std::uint64_t{PERF_CONTEXT_USER});
  if (marker == chain.end()) return std::nullopt;
  auto end = std::find_if(marker + 1, chain.end(),
                          [](std::uint64_t entry) { return entry >= context_max; });
  if (marker + 1 == end) return std::nullopt;
  completion outcome = complete_user_chain({marker + 1, end}, stack, rules, user);
  if (outcome == completion::completed || outcome == completion::bp_unverified) {
    out.assign(chain.begin(), marker + 1);
    out.insert(out.end(), user.begin(), user.end());
    out.insert(out.end(), end, chain.end());
  }
  return outcome;
}

}  // namespace arec::symbols
