#include "io/perf_data/perf_file_reader.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <bit>
#include <cstring>

#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::io::perf {
namespace {

constexpr std::uint64_t pipe_header_size = 16;
constexpr std::uint32_t oldest_attr_size = 64;  // PERF_ATTR_SIZE_VER0


// Reads perf's packed encodings out of one feature payload; `base` is the payload's file offset
// so that errors name absolute offsets.
class payload_cursor {
 public:
  payload_cursor(std::span<const std::byte> bytes, std::uint64_t base, std::string_view what,
                 std::string_view file)
      : bytes_(bytes), base_(base), what_(what), file_(file) {}

  std::span<const std::byte> take(std::uint64_t count) {
    if (count > bytes_.size() - pos_)
      fail(std::string(what_) + " needs " + std::to_string(count) +
           " more bytes but its section has " + std::to_string(bytes_.size() - pos_));
    auto part = bytes_.subspan(pos_, static_cast<std::size_t>(count));
    pos_ += static_cast<std::size_t>(count);
    return part;
  }
  template <typename T>
  T value() {
    T out;
    std::memcpy(&out, take(sizeof out).data(), sizeof out);
    return out;
  }
  std::string string() {
    auto length = value<std::uint32_t>();
    auto text = take(length);
    const char* chars = reinterpret_cast<const char*>(text.data());
    const void* nul = std::memchr(chars, 0, text.size());
    if (!nul) fail(std::string(what_) + " has a string without a terminating NUL");
    return std::string(chars, static_cast<const char*>(nul));
  }
  std::uint64_t offset() const { return base_ + pos_; }

 private:
  [[noreturn]] void fail(const std::string& problem) {
    throw format_error(file_, offset(), problem);
  }

  std::span<const std::byte> bytes_;
  std::uint64_t base_;
  std::string_view what_;
  std::string_view file_;
  std::size_t pos_ = 0;
};

}  // namespace

format_error::format_error(std::string_view file, std::uint64_t offset, std::string_view problem)
    : std::runtime_error(std::string(file) + ": offset " + std::to_string(offset) + ": " +
                         std::string(problem)),
      offset_(offset) {}

void perf_file_reader::unmapper::operator()(std::byte* address) const {
  ::munmap(address, size);
}

perf_file_reader::perf_file_reader(std::string path, mapping bytes, std::size_t size)
    : path_(std::move(path)), mapping_(std::move(bytes)), size_(size) {}

void perf_file_reader::fail(std::uint64_t offset, std::string_view problem) const {
  throw format_error(path_, offset, problem);
}

perf_file_reader perf_file_reader::open(const std::string& path) {
  unique_fd fd = unique_fd::open(path.c_str(), O_RDONLY);
  struct stat status {};
  check_syscall(::fstat(fd.get(), &status), "fstat", path);
  auto size = static_cast<std::size_t>(status.st_size);
  mapping bytes{nullptr, unmapper{size}};
  if (size > 0) {
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (address == MAP_FAILED) throw_errno("mmap", path);
    bytes.reset(static_cast<std::byte*>(address));
  }
  perf_file_reader reader{path, std::move(bytes), size};
  reader.read_header();
  reader.read_attrs();
  reader.read_feature_table();
  reader.read_event_names();
  return reader;
}

void perf_file_reader::check_section(const file_section& section,
                                     std::uint64_t descriptor_offset,
                                     std::string_view what) const {
  if (section.offset > size_ || section.size > size_ - section.offset)
    fail(descriptor_offset, std::string(what) + " runs past the end of the file (offset " +
                                std::to_string(section.offset) + " + size " +
                                std::to_string(section.size) + " > " + std::to_string(size_) +
                                " bytes)");
}

void perf_file_reader::read_header() {
  std::uint64_t magic = 0;
  if (size_ < sizeof magic)
    fail(0, "file of " + std::to_string(size_) + " bytes is too short for a perf.data header");
  std::memcpy(&magic, mapping_.get(), sizeof magic);
  if (magic == __builtin_bswap64(file_magic))
    fail(0, "perf.data of the other byte order is not supported");
  if (magic != file_magic) fail(0, "bad magic: not a perf.data file (no PERFILE2)");
  std::uint64_t header_size = 0;
  if (size_ >= 2 * sizeof magic) {
    std::memcpy(&header_size, mapping_.get() + sizeof magic, sizeof header_size);
    if (header_size == pipe_header_size)
      fail(8, "pipe-mode perf.data (header size 16) is not supported");
  }
  if (size_ < file_header_size)
    fail(0, "header truncated: the file has " + std::to_string(size_) + " of its " +
                std::to_string(file_header_size) + " bytes");
  std::memcpy(&header_, mapping_.get(), sizeof header_);
  if (header_.size != file_header_size)
    fail(8, "header size " + std::to_string(header_.size) + " is not " +
                std::to_string(file_header_size));
  if (header_.attr_size == 0) fail(16, "attr size is 0");
  if (header_.attr_size < oldest_attr_size + sizeof(file_section))
    fail(16, "attr size " + std::to_string(header_.attr_size) + " is below the " +
                 std::to_string(oldest_attr_size + sizeof(file_section)) + " bytes of the oldest attr");
  check_section(header_.attrs, offsetof(file_header, attrs), "attrs section");
  if (header_.attrs.size % header_.attr_size != 0)
    fail(offsetof(file_header, attrs) + sizeof(std::uint64_t),
         "attrs section size " + std::to_string(header_.attrs.size) +
             " is not a multiple of the attr size " + std::to_string(header_.attr_size));
  check_section(header_.data, offsetof(file_header, data), "data section");
}

void perf_file_reader::read_attrs() {
  std::uint64_t count = header_.attrs.size / header_.attr_size;
  std::uint64_t attr_bytes = header_.attr_size - sizeof(file_section);
  events_.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t entry = header_.attrs.offset + i * header_.attr_size;
    const std::byte* raw = mapping_.get() + entry;
    std::uint32_t declared = 0;
    std::memcpy(&declared, raw + offsetof(perf_event_attr, size), sizeof declared);
    if (declared == 0) declared = oldest_attr_size;  // perf's rule for files from old kernels
    if (declared != attr_bytes)
      fail(entry + offsetof(perf_event_attr, size),
           "attr " + std::to_string(i) + " has size " + std::to_string(declared) +
               " but the header's attr size says " + std::to_string(attr_bytes));
    event_entry& event = events_[i];
    std::size_t kept = std::min<std::size_t>(attr_bytes, sizeof event.attr);
    std::memcpy(&event.attr, raw, kept);
    event.attr.size = static_cast<std::uint32_t>(kept);

    file_section ids{};
    std::memcpy(&ids, raw + attr_bytes, sizeof ids);
    std::uint64_t ids_descriptor = entry + attr_bytes;
    check_section(ids, ids_descriptor, "ids of attr " + std::to_string(i));
    if (ids.size % sizeof(std::uint64_t) != 0)
      fail(ids_descriptor + sizeof(std::uint64_t),
           "ids of attr " + std::to_string(i) + " have size " + std::to_string(ids.size) +
               ", not a multiple of 8");
    event.ids.resize(ids.size / sizeof(std::uint64_t));
    if (ids.size) std::memcpy(event.ids.data(), mapping_.get() + ids.offset, ids.size);
  }
}

void perf_file_reader::read_feature_table() {
  std::uint64_t table_offset = header_.data.offset + header_.data.size;
  unsigned count = 0;
  for (std::uint64_t word : header_.features) count += static_cast<unsigned>(std::popcount(word));
  file_section table{table_offset, count * sizeof(file_section)};
  check_section(table, table_offset,
                "feature table of " + std::to_string(count) + " entries");
  unsigned index = 0;
  for (unsigned bit = 0; bit < 256; ++bit) {
    if (!(header_.features[bit / 64] >> (bit % 64) & 1)) continue;
    std::uint64_t descriptor = table_offset + index++ * sizeof(file_section);
    file_section section{};
    std::memcpy(&section, mapping_.get() + descriptor, sizeof section);
    check_section(section, descriptor, "section of feature " + std::to_string(bit));
    features_.emplace_back(static_cast<perf::feature>(bit), section);
  }
}

void perf_file_reader::read_event_names() {
  auto payload = feature(feature_event_desc);
  if (!payload) return;
  std::uint64_t base = static_cast<std::uint64_t>(payload->data() - mapping_.get());
  payload_cursor in{*payload, base, "EVENT_DESC", path_};
  auto count = in.value<std::uint32_t>();
  auto attr_size = in.value<std::uint32_t>();
  for (std::uint32_t i = 0; i < count; ++i) {
    in.take(attr_size);
    auto nr_ids = in.value<std::uint32_t>();
    std::string name = in.string();
    in.take(std::uint64_t{nr_ids} * sizeof(std::uint64_t));
    if (i < events_.size()) events_[i].name = std::move(name);
  }
}

std::optional<std::span<const std::byte>> perf_file_reader::feature(perf::feature bit) const {
  for (const auto& [known, section] : features_)
    if (known == bit) return bytes().subspan(section.offset, section.size);
  return std::nullopt;
}

std::span<const std::byte> perf_file_reader::data() const {
  return bytes().subspan(header_.data.offset, header_.data.size);
}

void perf_file_reader::for_each_record(const record_visitor& visit) const {
  std::span<const std::byte> rest = data();
  std::uint64_t offset = header_.data.offset;
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
