// arec_summary: the one line arec prints on stderr when a recording ends,
// "arec: <N> samples, <L> lost, <B> bytes written to <PATH>", or with rotation
// "arec: <N> samples, <L> lost, <T> bytes written to <K> files; the last, <PATH>, has <B> bytes";
// and the line arec -v prints every second while it records, "arec: progress: <N> samples on disk".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/child_process.hpp"

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

// The count of the last progress line in `stderr_text`, or 0 when there is none.
std::uint64_t last_progress(std::string_view stderr_text);

// Waits (arec -v) for a progress line counting more than `samples` on disk, then for the next
// one: each second a single file's header learns its data size before the line is printed, so
// by then the header covers those samples. False when a minute passes or stderr closes first.
// A fixed delay would not do: a busy machine may spend it in start-up.
bool wait_for_samples_on_disk(test::child_process& recording, std::uint64_t samples);

}  // namespace arec::e2e
