// sample_registers: the machine registers --user-regs and -I/--intr-regs name, by perf's names
// for x86_64 (its arch/x86 perf_regs table), as bits of perf_event_attr.sample_regs_*.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arec::record {

// The registers sampled when none are named (perf's PERF_REGS_MASK): the general-purpose ones
// with IP, SP, FLAGS, CS and SS; what perf's DWARF unwinder needs.
inline constexpr std::uint64_t default_sample_registers = 0xff0fff;

// IP and SP: what a DWARF unwinder cannot start without.
inline constexpr std::uint64_t dwarf_minimal_registers = 0x180;

// The mask of a comma-separated list of register names in any case ("ip,sp" is 0x180), or
// nullopt naming the first unknown register in `unknown`.
std::optional<std::uint64_t> parse_sample_registers(std::string_view list, std::string& unknown);

// "AX BX ... R15", the names parse_sample_registers knows, in perf's order.
std::string sample_register_names();

}  // namespace arec::record
