// kernel_symbols: names kernel addresses from a kallsyms file in one streaming pass, holding
// only what the addresses asked for need. A kallsyms table in memory would cost 5-7 MB for a
// kernel of 120k symbols, for the whole of a live --push recording; a pass costs ~20 ms.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace arec::symbols {

// For each of `addresses` (sorted, ascending), the text symbol of the kallsyms file at `path`
// with the greatest start not above it, or "" when there is none; nullopt when the file cannot
// be read. Addresses of 0 in the file (kptr_restrict hides them) are left out.
std::optional<std::vector<std::string>> kernel_function_names(
    const char* path, std::span<const std::uint64_t> addresses);

}  // namespace arec::symbols
