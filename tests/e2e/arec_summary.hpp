// arec_summary: the one line arec prints on stderr when a recording ends,
// "arec: <N> samples, <L> lost, <B> bytes written to <PATH>", or with rotation
// "arec: <N> samples, <L> lost, <T> bytes written to <K> files; the last, <PATH>, has <B> bytes".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arec::e2e {

struct arec_summary {
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;
  std::uint64_t bytes = 0;  // of all files (with rotation: T)
  std::string path;         // the last file
  std::uint64_t files = 1;
  std::uint64_t last_bytes = 0;  // of the last file (B)
};

// The last summary line in `stderr_text`, or nullopt when there is none in the exact format.
std::optional<arec_summary> find_arec_summary(std::string_view stderr_text);

}  // namespace arec::e2e
