#include "record/ring_buffer.hpp"

#include <unistd.h>

#include <string>

namespace arec::record {

ring_buffer ring_buffer::map(const perf_event& owner, std::size_t data_pages, int cpu) {
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto mapping = io::mmap_region::map(owner.fd(), (data_pages + 1) * page,
                                      PROT_READ | PROT_WRITE, MAP_SHARED,
                                      "perf ring buffer of cpu " + std::to_string(cpu));
  auto* control = reinterpret_cast<perf_event_mmap_page*>(mapping.data());
  std::span<std::byte> data{mapping.data() + page, data_pages * page};
  return ring_buffer{std::move(mapping), ring_reader{control, data}};
}

}  // namespace arec::record
