#include "host/clock_pair.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <system_error>

#include "io/mmap_region.hpp"
#include "io/unique_fd.hpp"

namespace arec::host {
namespace {

std::uint64_t now_ns(clockid_t clock) {
  timespec at{};
  ::clock_gettime(clock, &at);
  return static_cast<std::uint64_t>(at.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(at.tv_nsec);
}

// A dummy event on this thread that records its executable mappings with their time.
io::unique_fd open_mapping_clock() {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_type = PERF_SAMPLE_TIME;
  attr.sample_id_all = 1;
  attr.mmap = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  return io::unique_fd{static_cast<int>(fd)};
}

// The time of the first MMAP record in `ring` (its sample_id is the time alone: last 8 bytes).
std::optional<std::uint64_t> first_mmap_time(const io::mmap_region& ring, std::size_t page) {
  auto* meta = reinterpret_cast<perf_event_mmap_page*>(ring.data());
  std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const std::byte* data = ring.data() + page;
  std::size_t size = ring.size() - page;
  for (std::uint64_t at = 0; at + sizeof(perf_event_header) <= head && head <= size;) {
    perf_event_header record{};
    std::memcpy(&record, data + at, sizeof record);
    if (record.size < sizeof record + 8 || at + record.size > head) break;
    if (record.type == PERF_RECORD_MMAP) {
      std::uint64_t time = 0;
      std::memcpy(&time, data + at + record.size - 8, 8);
      return time;
    }
    at += record.size;
  }
  return std::nullopt;
}

}  // namespace

std::optional<perf_data::clock_pair> read_clock_pair(std::optional<int> clockid) {
  if (clockid) {
    std::uint64_t monotonic = now_ns(CLOCK_MONOTONIC);
    return perf_data::clock_pair{monotonic, now_ns(*clockid)};
  }
  io::unique_fd event = open_mapping_clock();
  if (!event) return std::nullopt;
  auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  io::mmap_region ring;
  try {
    ring = io::mmap_region::map(event.get(), 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED,
                                "the clock pair's event");
  } catch (const std::system_error&) {
    return std::nullopt;
  }
  std::uint64_t before = now_ns(CLOCK_MONOTONIC);
  io::mmap_region marker;
  try {
    marker = io::mmap_region::map(-1, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                                  "the clock pair's page");
  } catch (const std::system_error&) {
    return std::nullopt;
  }
  std::uint64_t after = now_ns(CLOCK_MONOTONIC);
  std::optional<std::uint64_t> recording = first_mmap_time(ring, page);
  if (!recording) return std::nullopt;
  return perf_data::clock_pair{before + (after - before) / 2, *recording};
}

}  // namespace arec::host
