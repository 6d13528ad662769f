#include "io/perf_data/perf_file_reader.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>

#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::io::perf {

void perf_file_reader::unmapper::operator()(std::byte* address) const {
  ::munmap(address, size);
}

perf_file_reader::perf_file_reader(perf_header header, mapping bytes, std::size_t size)
    : read_(std::move(header)), mapping_(std::move(bytes)), size_(size) {}

void perf_file_reader::fail(std::uint64_t offset, std::string_view problem) const {
  throw format_error(read_.path, offset, problem);
}

perf_file_reader perf_file_reader::open(const std::string& path) {
  perf_header header = read_perf_header(path, header_mode::strict);
  unique_fd fd = unique_fd::open(path.c_str(), O_RDONLY);
  // The size validated above: a file that grows meanwhile is read as it was.
  auto size = static_cast<std::size_t>(header.file_size);
  mapping bytes{nullptr, unmapper{size}};
  if (size > 0) {
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (address == MAP_FAILED) throw_errno("mmap", path);
    bytes.reset(static_cast<std::byte*>(address));
  }
  return perf_file_reader{std::move(header), std::move(bytes), size};
}

std::optional<std::span<const std::byte>> perf_file_reader::feature(perf::feature bit) const {
  if (const std::vector<std::byte>* payload = read_.features.find(bit)) return *payload;
  return std::nullopt;
}

std::span<const std::byte> perf_file_reader::data() const {
  return bytes().subspan(read_.header.data.offset, read_.header.data.size);
}

void perf_file_reader::for_each_record(const record_visitor& visit) const {
  std::span<const std::byte> rest = data();
  std::uint64_t offset = read_.header.data.offset;
  while (!rest.empty()) {
    record_header header{};
    if (rest.size() < sizeof header)
      fail(offset, "record header truncated: " + std::to_string(rest.size()) +
                       " bytes left in the data section");
    std::memcpy(&header, rest.data(), sizeof header);
    if (header.size < sizeof header)
      fail(offset, "record size " + std::to_string(header.size) +
                       " is smaller than its 8-byte header (type " +
                       std::to_string(header.type) + ")");
    if (header.size > rest.size())
      fail(offset, "record of size " + std::to_string(header.size) +
                       " runs past the end of the data section (" +
                       std::to_string(rest.size()) + " bytes left, type " +
                       std::to_string(header.type) + ")");
    visit(header, rest.first(header.size), offset);
    rest = rest.subspan(header.size);
    offset += header.size;
  }
}

}  // namespace arec::io::perf
