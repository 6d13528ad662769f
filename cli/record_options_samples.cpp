// The record command line's sample contents beyond the defaults: call graphs (-g, --call-graph),
// registers (--user-regs, -I), branch stacks (-b, -j), and --off-cpu-thresh.
#include <linux/perf_event.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>
#include <utility>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"
#include "record/events/sample_registers.hpp"

namespace arec::cli {
namespace {

// --user-regs[=REGS] and -I/--intr-regs[=REGS]: perf's register names, comma-separated; none
// means the default set, "?" asks for the list.
void apply_registers(record_state& state, const option_use& use, std::uint64_t& mask) {
  if (use.value == "?") {
    state.request = record_state::request_kind::register_list;
    return;
  }
  if (use.value.empty()) {
    mask = record::default_sample_registers;
    return;
  }
  std::string unknown;
  std::optional<std::uint64_t> parsed = record::parse_sample_registers(use.value, unknown);
  if (!parsed)
    reject(use, "unknown register " + base::quoted(unknown) + " (" + std::string(use.spelled) +
                    (use.spelled.size() == 2 ? "?" : "=?") + " lists them)");
  mask = *parsed;
}

}  // namespace

void apply_call_graph(record_state& state, const option_use& use) {
  std::string_view mode = use.value.substr(0, use.value.find(','));
  std::optional<std::string_view> size_text;
  if (mode.size() < use.value.size()) size_text = use.value.substr(mode.size() + 1);
  if (mode == "fp") {
    if (size_text) reject(use, "only the dwarf mode takes a stack size");
    state.options.call_graph = record::call_graph_mode::fp;
    return;
  }
  if (mode != "dwarf")
    reject(use, "unknown call graph mode " + base::quoted(mode) + " (expected fp or dwarf)");
  state.options.call_graph = record::call_graph_mode::dwarf;
  state.options.dwarf_stack_size = record::default_dwarf_stack_size;
  if (!size_text) return;
  std::optional<std::uint64_t> size = parse_unsigned(*size_text);
  if (!size) reject(use, base::quoted(*size_text) + " is not a stack size in bytes");
  // perf rounds the size up to whole u64s before checking it.
  std::uint64_t rounded = (*size + 7) / 8 * 8;
  if (rounded == 0 || rounded > record::max_dwarf_stack_size)
    reject(use, "the dwarf stack size must be from 8 to 65528 bytes");
  state.options.dwarf_stack_size = static_cast<std::uint32_t>(rounded);
}

void apply_user_regs(record_state& state, const option_use& use) {
  apply_registers(state, use, state.options.attrs.user_regs);
}

void apply_intr_regs(record_state& state, const option_use& use) {
  apply_registers(state, use, state.options.attrs.intr_regs);
}

// -j: perf's comma-separated branch filter names; privilege levels alone mean any branch.
void apply_branch_filter(record_state& state, const option_use& use) {
  constexpr std::array<std::pair<std::string_view, std::uint64_t>, 15> names{{
      {"u", PERF_SAMPLE_BRANCH_USER},
      {"k", PERF_SAMPLE_BRANCH_KERNEL},
      {"hv", PERF_SAMPLE_BRANCH_HV},
      {"any", PERF_SAMPLE_BRANCH_ANY},
      {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
      {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
      {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
      {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
      {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
      {"cond", PERF_SAMPLE_BRANCH_COND},
      {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
      {"call", PERF_SAMPLE_BRANCH_CALL},
      {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
      {"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
  }};
  constexpr std::uint64_t privilege_levels =
      PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
  std::uint64_t mode = 0;
  std::string_view rest = use.value;
  while (true) {
    std::string_view part = rest.substr(0, rest.find(','));
    auto known = std::find_if(names.begin(), names.end(),
                              [&](const auto& name) { return name.first == part; });
    if (known == names.end())
      reject(use, "unknown branch filter " + base::quoted(part) +
                      " (u, k, hv, any, any_call, any_ret, ind_call, ind_jmp, call, cond, "
                      "abort_tx, in_tx, no_tx, save_type, stack)");
    mode |= known->second;
    if (part.size() == rest.size()) break;
    rest.remove_prefix(part.size() + 1);
  }
  if ((mode & ~privilege_levels) == 0) mode |= PERF_SAMPLE_BRANCH_ANY;
  state.options.attrs.branch_sample_type = mode;
}

void apply_off_cpu_thresh(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> ms = parse_unsigned(use.value);
  if (!ms || *ms > std::numeric_limits<std::uint64_t>::max() / 1'000'000)
    reject(use, "expected milliseconds: how long a block is to be a sample of its own");
  state.options.off_cpu_thresh_ms = *ms;
}

void settle_samples(record_state& state) {
  record::record_options& options = state.options;
  if (options.call_graph == record::call_graph_mode::dwarf && options.attrs.user_regs)
    options.notes.push_back(
        "arec: warning: --call-graph dwarf may need all the user registers; with a subset from "
        "--user-regs the unwinding may be unreliable, so IP and SP are added to them.");
}

}  // namespace arec::cli
