#include "record/session/loss_advice.hpp"

#include <algorithm>
#include <bit>

namespace arec::record {
namespace {

std::string plural(std::uint64_t count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

}  // namespace

std::vector<std::string> loss_remedies(const loss_context& context) {
  std::vector<std::string> remedies;
  if (context.lost == 0) return remedies;
  if (context.ring_pages < max_advised_ring_pages) {
    // Four times bigger, and at least 512 pages (2 MiB): a ring that small fills in a burst.
    std::uint64_t pages =
        std::min(max_advised_ring_pages,
                 std::max<std::uint64_t>(std::bit_ceil(context.ring_pages * 4), 512));
    remedies.push_back("use bigger ring buffers: -m " + std::to_string(pages) + " (now " +
                       plural(context.ring_pages, "page") + " per cpu)");
  }
  if (context.cpus > context.streaming_threads) {
    std::string now = "now " + plural(context.cpus, "cpu") + " share " +
                      plural(context.streaming_threads, "streaming thread");
    remedies.push_back(context.threads_given
                           ? "drain with more threads: --threads=cpu (" + now + ")"
                           : "drain with parallel threads: --threads (" + now + ")");
  }
  if (!context.compressed && context.bytes_per_second >= compression_advice_rate)
    remedies.push_back("write less: -z (now " +
                       std::to_string(context.bytes_per_second / 1'000'000) +
                       " MB/s uncompressed)");
  if (context.period)
    remedies.push_back("sample less often: -c " + std::to_string(*context.period * 4) +
                       " (now -c " + std::to_string(*context.period) + ")");
  else if (context.frequency_hz && *context.frequency_hz > 1)
    remedies.push_back("sample less often: -F " +
                       std::to_string(std::max<std::uint64_t>(*context.frequency_hz / 4, 1)) +
                       " (now " + std::to_string(*context.frequency_hz) + " Hz)");
  return remedies;
}

}  // namespace arec::record
