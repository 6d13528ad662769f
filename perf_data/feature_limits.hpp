// feature_limits: the largest header feature section arec reads (perf_header: a larger one is
// a corrupt table, not data), and so the largest any of arec's feature writers may write.
#pragma once

#include <cstdint>

namespace arec::perf_data {

inline constexpr std::uint64_t max_feature_bytes = std::uint64_t{256} << 20;

}  // namespace arec::perf_data
