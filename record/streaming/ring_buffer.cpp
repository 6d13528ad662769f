#include "record/streaming/ring_buffer.hpp"

#include <unistd.h>

#include <stdexcept>
#include <string>
#include <system_error>

namespace arec::record {

ring_buffer ring_buffer::map(const perf_event& owner, std::size_t data_pages, int cpu,
                             bool overwrite) {
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t length = (data_pages + 1) * page;
  std::string what = "perf ring buffer";
  if (cpu >= 0) what += " of cpu " + std::to_string(cpu);
  io::mmap_region mapping;
  try {
    mapping = io::mmap_region::map(
        owner.fd(), length, overwrite ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, what);
  } catch (const std::system_error& error) {
    if (error.code().value() != EPERM) throw;
    // Ring pages are locked memory, charged to perf_event_mlock_kb and then RLIMIT_MEMLOCK.
    // error.what() already ends with strerror: append the remedy in a plain runtime_error.
    throw std::runtime_error(std::string(error.what()) + " (each ring needs " +
                             std::to_string(length / 1024) +
                             " KiB of locked memory: raise ulimit -l or "
                             "kernel.perf_event_mlock_kb, or use a smaller -m)");
  }
  return adopt(std::move(mapping));
}

std::size_t ring_buffer::largest_mappable(const perf_event& owner, std::size_t wanted) {
  for (std::size_t pages = wanted;; pages /= 2) {
    try {
      map(owner, pages, -1);
      return pages;
    } catch (const std::system_error& error) {
      if (error.code().value() != ENOMEM || pages <= 1) throw;
    }
  }
}

ring_buffer ring_buffer::adopt(io::mmap_region mapping) {
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t data_size = mapping.size() > page ? mapping.size() - page : 0;
  if (data_size == 0 || (data_size & (data_size - 1)) != 0)
    throw std::invalid_argument("ring buffer mapping of " + std::to_string(mapping.size()) +
                                " bytes: not a control page and a power-of-two data area");
  auto* control = reinterpret_cast<perf_event_mmap_page*>(mapping.data());
  std::span<std::byte> data{mapping.data() + page, data_size};
  return ring_buffer{std::move(mapping), ring_reader{control, data},
                     backward_reader{control, data}};
}

}  // namespace arec::record
