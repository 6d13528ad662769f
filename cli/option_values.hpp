// option_values: the value forms several options share (numbers, perf's sizes, zstd levels),
// parsed one way for every command.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "cli/option_table.hpp"

namespace arec::cli {

// A whole decimal number without sign or blanks.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);

// True when `text` ends in one of perf's size suffixes B, K, M or G (either case).
bool has_size_suffix(std::string_view text);

// A byte count with an optional size suffix: "512K" = 524288.
std::optional<std::uint64_t> parse_size(std::string_view text);

// A zstd level from 1 to 22; rejects anything else naming the option.
int parse_compression_level(const option_use& use);

}  // namespace arec::cli
