#include "perf_data/perf_file_writer.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "base/system_error.hpp"

namespace arec::perf_data {
namespace {

constexpr std::uint64_t attr_entry_size = sizeof(file_attr);

}  // namespace

perf_file_writer::perf_file_writer(int fd, std::string name)
    : fd_(fd), name_(name.empty() ? "fd " + std::to_string(fd) : std::move(name)) {}

void perf_file_writer::write_at(std::span<const std::byte> bytes, std::uint64_t offset) {
  // pwrite may write less than asked (signals, quotas, some filesystems): loop until done.
  while (!bytes.empty()) {
    ssize_t n = base::retry_on_eintr(
        [&] { return ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset)); });
    if (n < 0) base::throw_errno("pwrite", name_);
    if (n == 0) base::throw_system_error(EIO, "pwrite (no progress)", name_);
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

void perf_file_writer::write_header() {
  write_at(std::as_bytes(std::span(&header_, 1)), 0);
}

void perf_file_writer::require_prologue(const char* operation) const {
  if (!prologue_written_)
    throw std::logic_error(std::string("perf_file_writer::") + operation +
                           " before write_prologue");
}

std::uint64_t perf_file_writer::write_prologue(std::span<const event_entry> events) {
  std::vector<std::byte> ids;
  std::vector<file_attr> attrs(events.size());
  std::uint64_t ids_offset = file_header_size;
  for (std::size_t i = 0; i < events.size(); ++i) {
    perf_event_attr attr = attr_for_file(events[i].attr);
    std::memcpy(attrs[i].attr, &attr, attr_size_written);
    std::uint64_t ids_size = events[i].ids.size() * sizeof(std::uint64_t);
    attrs[i].ids = {ids_size ? ids_offset : 0, ids_size};
    auto id_bytes = std::as_bytes(std::span(events[i].ids));
    ids.insert(ids.end(), id_bytes.begin(), id_bytes.end());
    ids_offset += ids_size;
  }

  header_ = file_header{};
  header_.attr_size = attr_entry_size;
  header_.attrs = {file_header_size + ids.size(), attrs.size() * attr_entry_size};
  // Everything before is a multiple of 8, so records start 8-aligned as the kernel writes them.
  header_.data = {header_.attrs.offset + header_.attrs.size, 0};

  // One write: a file that has any bytes at all has its whole prologue, magic included, so a
  // kill -9 during start-up leaves either an empty file or one that can be salvaged.
  std::vector<std::byte> prologue;
  auto append = [&](std::span<const std::byte> bytes) {
    prologue.insert(prologue.end(), bytes.begin(), bytes.end());
  };
  append(std::as_bytes(std::span(&header_, 1)));
  append(ids);
  append(std::as_bytes(std::span(attrs)));
  write_at(prologue, 0);
  prologue_written_ = true;
  return header_.data.offset;
}

void perf_file_writer::update_data_size(std::uint64_t data_size) {
  require_prologue("update_data_size");
  header_.data.size = data_size;
  write_at(std::as_bytes(std::span(&header_.data.size, 1)),
           offsetof(file_header, data) + offsetof(file_section, size));
}

void perf_file_writer::write_epilogue(std::uint64_t data_size, const feature_set& features) {
  require_prologue("write_epilogue");
  std::uint64_t table_offset = header_.data.offset + data_size;
  std::vector<file_section> table;
  table.reserve(features.size());
  std::uint64_t payload_offset = table_offset + features.size() * sizeof(file_section);
  for (const feature_set::entry& entry : features) {
    table.push_back({payload_offset, entry.payload.size()});
    write_at(entry.payload, payload_offset);
    payload_offset += entry.payload.size();
  }
  write_at(std::as_bytes(std::span(table)), table_offset);

  // The header goes last: until it names the feature bits, a reader sees a featureless file
  // whose data section ends at the last size update.
  header_.data.size = data_size;
  for (auto& word : header_.features) word = 0;
  for (const feature_set::entry& entry : features)
    header_.features[entry.bit / 64] |= std::uint64_t{1} << (entry.bit % 64);
  write_header();
}

}  // namespace arec::perf_data
