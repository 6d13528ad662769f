// loss_advice: what the end-of-run summary suggests when samples were lost, chosen from how the
// recording was set up, as perf's "Check IO/CPU overload" hints do but naming the option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arec::record {

// How a recording that lost samples was set up.
struct loss_context {
  std::uint64_t lost = 0;
  std::uint64_t ring_pages = 0;  // -m, per cpu
  std::size_t streaming_threads = 1;
  std::size_t cpus = 1;                       // rings drained
  bool threads_given = false;                 // --threads was on the command line
  bool compressed = false;                    // -z
  std::uint64_t bytes_per_second = 0;         // written to the file
  std::optional<std::uint64_t> frequency_hz;  // -F in effect (hardware/software events)
  std::optional<std::uint64_t> period;        // -c in effect
};

// Largest ring the advice suggests (1 GiB of 4 KiB pages per cpu); beyond it, -m is not offered.
inline constexpr std::uint64_t max_advised_ring_pages = 262144;
// Write rates above this suggest -z: the disk, not the CPU, is then the likely bottleneck.
inline constexpr std::uint64_t compression_advice_rate = 50'000'000;

// The remedies that fit, most effective first, each one line without the "arec: " prefix,
// e.g. "use bigger ring buffers: -m 512 (now 128 pages per cpu)". Empty when nothing was lost.
std::vector<std::string> loss_remedies(const loss_context& context);

}  // namespace arec::record
