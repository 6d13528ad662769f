#include "perf_data/perf_file_reader.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>

#include "base/system_error.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/record_walker.hpp"

namespace arec::perf_data {

void perf_file_reader::unmapper::operator()(std::byte* address) const {
  ::munmap(address, size);
}

perf_file_reader::perf_file_reader(perf_header header, mapping bytes, std::size_t size)
    : read_(std::move(header)), mapping_(std::move(bytes)), size_(size) {}

perf_file_reader perf_file_reader::open(const std::string& path) {
  perf_header header = read_perf_header(path, header_mode::strict);
  io::unique_fd fd = io::unique_fd::open(path.c_str(), O_RDONLY);
  // The size validated above: a file that grows meanwhile is read as it was.
  auto size = static_cast<std::size_t>(header.file_size);
  mapping bytes{nullptr, unmapper{size}};
  if (size > 0) {
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (address == MAP_FAILED) base::throw_errno("mmap", path);
    bytes.reset(static_cast<std::byte*>(address));
  }
  return perf_file_reader{std::move(header), std::move(bytes), size};
}

std::optional<std::span<const std::byte>> perf_file_reader::feature(perf_data::feature bit) const {
  if (const std::vector<std::byte>* payload = read_.features.find(bit)) return *payload;
  return std::nullopt;
}

std::span<const std::byte> perf_file_reader::data() const {
  return bytes().subspan(read_.header.data.offset, read_.header.data.size);
}

void perf_file_reader::for_each_record(const record_visitor& visit) const {
  const file_section& data = read_.header.data;
  record_walker walker = record_walker::open({read_.path, data.offset, data.offset + data.size},
                                             {.expand_compressed = false});
  while (std::optional<walked_record> record = walker.next())
    visit(record->header, record->bytes, record->offset);
}

}  // namespace arec::perf_data
