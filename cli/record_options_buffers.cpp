// The record command line's buffers and threads: the rings (-m, --mmap-flush), the streaming
// threads (--threads, -r) and the synthesis of what already runs (--synth,
// --num-thread-synthesize).
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <string_view>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"

namespace arec::cli {
namespace {

// "16K", as perf prints a size: in the largest unit that leaves more than 1.
std::string size_text(std::uint64_t bytes) {
  constexpr std::string_view units = "BKMG";
  std::size_t unit = 0;
  while (bytes / 1024 > 1 && unit + 1 < units.size()) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + units[unit];
}

// One part of -m: a number of pages or a size; as perf, rounded up to a power of two pages (0
// to 1), saying so when that changes what was asked.
std::uint32_t ring_pages(record_state& state, const option_use& use, std::string_view text) {
  constexpr std::uint64_t max_pages = std::uint64_t{1} << 31;
  auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::uint64_t pages = 0;
  if (has_size_suffix(text)) {
    std::optional<std::uint64_t> bytes = parse_size(text);
    if (!bytes) reject(use, "expected a number of pages or a size like 512K or 2M");
    pages = (*bytes + page_size - 1) / page_size;
  } else {
    std::optional<std::uint64_t> count = parse_unsigned(text);
    if (!count) reject(use, "expected a number of pages or a size like 512K or 2M");
    pages = *count;
  }
  if (pages > max_pages) reject(use, "the ring buffer must not exceed 2^31 pages");
  if (std::has_single_bit(pages)) return static_cast<std::uint32_t>(pages);
  std::uint64_t rounded = std::bit_ceil(std::max<std::uint64_t>(pages, 1));
  state.options.notes.push_back("arec: rounding mmap pages size to " +
                                size_text(rounded * page_size) + " (" + std::to_string(rounded) +
                                " pages)");
  return static_cast<std::uint32_t>(rounded);
}

}  // namespace

// -m PAGES[,AUX]: the data ring per cpu and, after a comma, the AUX area (perf's form; used by
// AUX area tracing events only, as in perf).
void apply_mmap_pages(record_state& state, const option_use& use) {
  std::string_view value = use.value;
  std::size_t comma = value.find(',');
  if (comma != 0) state.options.mmap_pages = ring_pages(state, use, value.substr(0, comma));
  if (comma != std::string_view::npos)
    state.options.aux_mmap_pages = ring_pages(state, use, value.substr(comma + 1));
}

void apply_mmap_flush(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> bytes = parse_size(use.value);
  if (!bytes) reject(use, "expected a number of bytes, optionally with a K, M or G suffix");
  if (*bytes == 0) reject(use, "the flush size must be at least 1 byte");
  state.options.mmap_flush = *bytes;
}

// perf's --threads specs: a topology level, or CPUS/AFFINITY masks joined by ':'.
// The spec is checked against the machine's topology by record/thread_masks, before anything
// is opened: one validator, which also knows -C, whatever order the options come in.
void apply_threads(record_state& state, const option_use& use) {
  state.options.threads_spec = std::string(use.value);
}

void apply_realtime(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> priority = parse_unsigned(use.value);
  if (!priority || *priority < 1 || *priority > 99)
    reject(use, "the realtime priority must be a whole number from 1 to 99");
  state.options.realtime_priority = static_cast<int>(*priority);
}

// --synth: perf's comma-separated list of no, all, task, mmap (which implies task), cgroup.
void apply_synth(record_state& state, const option_use& use) {
  record::synth_options synth{false, false, false};
  std::string_view rest = use.value;
  while (true) {
    std::string_view part = rest.substr(0, rest.find(','));
    if (part == "all")
      synth = {true, true, true};
    else if (part == "task")
      synth.tasks = true;
    else if (part == "mmap")
      synth.tasks = synth.mmaps = true;
    else if (part == "cgroup")
      synth.cgroups = true;
    else if (part != "no")
      reject(use, "expected no, all, task, mmap or cgroup (comma-separated)");
    if (part.size() == rest.size()) break;
    rest.remove_prefix(part.size() + 1);
  }
  state.options.synth = synth;
}

void apply_synthesize_threads(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> count = parse_unsigned(use.value);
  if (!count || *count == 0 || *count > std::numeric_limits<unsigned>::max())
    reject(use, "the number of threads must be a positive integer");
  state.options.synthesize_threads = static_cast<unsigned>(*count);
}

void settle_buffers(record_state& state) {
  const record::record_options& options = state.options;
  if (options.compression_level > 0 && options.mmap_pages) {
    // perf's reader learns the size of its per-record decompression buffer from a u32 (the
    // COMPRESSED feature's mmap_len): two rings' worth and a page must fit in it.
    auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    if (*options.mmap_pages * page_size >= (std::uint64_t{1} << 31))
      throw base::usage_error("with -z, rings must be smaller than 2G (-m " +
                              std::to_string(*options.mmap_pages) + " pages is " +
                              std::to_string((*options.mmap_pages * page_size) >> 30) + "G)");
  }
}

}  // namespace arec::cli
