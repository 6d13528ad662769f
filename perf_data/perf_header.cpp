#include "perf_data/perf_header.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/system_error.hpp"
#include "io/file_status.hpp"
#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_limits.hpp"
#include "perf_data/header_file.hpp"
#include "perf_data/pipe_head.hpp"

namespace arec::perf_data {
namespace {

constexpr std::uint64_t pipe_header_size = 16;
constexpr std::uint64_t oldest_attr_size = 64;  // PERF_ATTR_SIZE_VER0
// After a section that ends past the end of the file: what salvage does about it.
constexpr const char* cut_hint = "; cut short? --salvage keeps its complete records";

void read_header(const header_file& file, perf_header& input, bool salvage) {
  file_header& header = input.header;
  std::uint64_t magic = 0;
  if (file.size() < sizeof magic)
    file.fail(
        0, "file of " + std::to_string(file.size()) + " bytes is too short for a perf.data header");
  file.read(&magic, sizeof magic, 0);
  if (magic == __builtin_bswap64(file_magic))
    file.fail(0, "perf.data of the other byte order is not supported");
  if (magic != file_magic) file.fail(0, "bad magic: not a perf.data file (no PERFILE2)");
  if (file.size() >= 16) {
    std::uint64_t size = 0;
    file.read(&size, sizeof size, 8);
    if (size == pipe_header_size) {
      read_pipe_head(file, input, salvage);
      return;
    }
  }
  if (file.size() < file_header_size)
    file.fail(0, "header truncated: the file has " + std::to_string(file.size()) + " of its " +
                     std::to_string(file_header_size) + " bytes");
  file.read(&header, sizeof header, 0);
  if (header.size != file_header_size)
    file.fail(8, "header size " + std::to_string(header.size) + " is not " +
                     std::to_string(file_header_size));
  if (header.attr_size < oldest_attr_size + sizeof(file_section))
    file.fail(16, "attr size " + std::to_string(header.attr_size) + " is below the " +
                      std::to_string(oldest_attr_size + sizeof(file_section)) +
                      " bytes of the oldest attr");
  file.check(header.attrs, offsetof(file_header, attrs), "attrs section");
  if (header.attrs.size == 0) file.fail(offsetof(file_header, attrs) + 8, "no attrs");
  if (header.attrs.size % header.attr_size != 0)
    file.fail(offsetof(file_header, attrs) + 8,
              "attrs section size " + std::to_string(header.attrs.size) +
                  " is not a multiple of the attr size " + std::to_string(header.attr_size));
  if (header.data.offset < file_header_size || header.data.offset > file.size())
    file.fail(offsetof(file_header, data),
              "data section offset " + std::to_string(header.data.offset) +
                  " is outside the file of " + std::to_string(file.size()) + " bytes");

  std::uint64_t records_after = file.size() - header.data.offset;
  bool unfinished = header.data.size == 0 && records_after > 0;
  bool cut = header.data.size > records_after;
  if (!salvage) {
    if (unfinished)
      file.fail(offsetof(file_header, data) + 8,
                "data size is 0 but " + std::to_string(records_after) +
                    " bytes follow the header: the recording was not finished (arec killed?); "
                    "--salvage keeps its complete records");
    file.check(header.data, offsetof(file_header, data), "data section", cut_hint);
    return;
  }
  if (unfinished || cut) {
    input.salvage_notes.push_back(
        file.path() + ": offset " + std::to_string(offsetof(file_header, data) + 8) +
        ": data size " + std::to_string(header.data.size) +
        (unfinished ? " (unfinished)" : " (file cut short)") +
        "; reading records up to the end of the file and dropping the features");
    header.data.size = records_after;
    std::fill(std::begin(header.features), std::end(header.features), 0);
  }
}

void read_attrs(const header_file& file, perf_header& input) {
  const file_header& header = input.header;
  std::uint64_t count = header.attrs.size / header.attr_size;
  std::uint64_t attr_bytes = header.attr_size - sizeof(file_section);
  std::vector<std::byte> entry_bytes(header.attr_size);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t entry = header.attrs.offset + i * header.attr_size;
    file.read(entry_bytes.data(), entry_bytes.size(), entry);
    std::uint32_t declared = 0;
    std::memcpy(&declared, entry_bytes.data() + offsetof(perf_event_attr, size), sizeof declared);
    if (declared == 0) declared = oldest_attr_size;  // perf's rule for files from old kernels
    if (declared != attr_bytes)
      file.fail(entry + offsetof(perf_event_attr, size),
                "attr " + std::to_string(i) + " has size " + std::to_string(declared) +
                    " but the header's attr size says " + std::to_string(attr_bytes));
    event_entry& event = input.events.emplace_back();
    std::size_t kept = std::min<std::size_t>(attr_bytes, sizeof event.attr);
    std::memcpy(&event.attr, entry_bytes.data(), kept);
    event.attr.size = static_cast<std::uint32_t>(kept);
    file_section ids{};
    std::memcpy(&ids, entry_bytes.data() + attr_bytes, sizeof ids);
    std::string what = "ids of attr " + std::to_string(i);
    file.check(ids, entry + attr_bytes, what);
    if (ids.size % 8 != 0)
      file.fail(entry + attr_bytes + 8,
                what + " have size " + std::to_string(ids.size) + ", not a multiple of 8");
    event.ids.resize(ids.size / 8);
    file.read(event.ids.data(), ids.size, ids.offset);
  }
}

// EVENT_DESC names the attrs (index order). Salvage keeps a file whose EVENT_DESC is broken,
// without the names.
void read_event_names(perf_header& input, std::uint64_t payload_offset, bool salvage) {
  const std::vector<std::byte>* payload = input.features.find(feature_event_desc);
  if (!payload) return;
  try {
    byte_cursor in{*payload, payload_offset, "EVENT_DESC", input.path};
    auto count = in.value<std::uint32_t>();
    auto attr_size = in.value<std::uint32_t>();
    std::vector<std::string> names;
    for (std::uint32_t i = 0; i < count; ++i) {
      in.take(attr_size);
      auto nr_ids = in.value<std::uint32_t>();
      names.push_back(in.string());
      in.take(std::uint64_t{nr_ids} * sizeof(std::uint64_t));
    }
    for (std::size_t i = 0; i < names.size() && i < input.events.size(); ++i)
      input.events[i].name = std::move(names[i]);
  } catch (const format_error& error) {
    if (!salvage) throw;
    // Kept, the payload would be read again by perf in a converted file.
    input.features.erase(feature_event_desc);
    input.salvage_notes.push_back(std::string(error.what()) +
                                  "; dropping it, the events stay unnamed");
  }
}

// Returns the file offset of EVENT_DESC's payload (0 without one).
std::uint64_t read_features(const header_file& file, perf_header& input, bool salvage) {
  std::uint64_t event_desc_offset = 0;
  const file_header& header = input.header;
  std::uint64_t table = header.data.offset + header.data.size;
  unsigned count = 0;
  for (std::uint64_t word : header.features) count += static_cast<unsigned>(std::popcount(word));
  file_section table_section{table, count * sizeof(file_section)};
  if (!file.fits(table_section)) {
    if (!salvage)
      file.check(table_section, table, "feature table of " + std::to_string(count) + " entries",
                 cut_hint);
    input.salvage_notes.push_back(
        file.path() + ": offset " + std::to_string(table) +
        ": feature table runs past the end of the file; dropping the features");
    return 0;
  }
  unsigned index = 0;
  for (unsigned bit = 0; bit < 256; ++bit) {
    if (!(header.features[bit / 64] >> (bit % 64) & 1)) continue;
    std::uint64_t descriptor = table + index++ * sizeof(file_section);
    file_section section{};
    file.read(&section, sizeof section, descriptor);
    std::string what = "section of feature " + std::to_string(bit);
    if (!file.fits(section) || section.size > max_feature_bytes || bit == 0) {
      if (!salvage) {
        if (bit == 0) file.fail(descriptor, "feature bit 0 (reserved) is set");
        if (section.size > max_feature_bytes && file.fits(section))
          file.fail(descriptor, what + " is too large: it claims " + std::to_string(section.size) +
                                    " bytes, at most " + std::to_string(max_feature_bytes) +
                                    " are read");
        file.check(section, descriptor, what, cut_hint);
      }
      std::string problem = section.size > max_feature_bytes && bit != 0
                                ? " is too large (" + std::to_string(section.size) +
                                      " bytes, at most " + std::to_string(max_feature_bytes) + ")"
                                : " is outside the file";
      input.salvage_notes.push_back(file.path() + ": offset " + std::to_string(descriptor) + ": " +
                                    what + problem + "; dropping that feature");
      continue;
    }
    std::vector<std::byte> payload(section.size);
    file.read(payload.data(), section.size, section.offset);
    if (bit == feature_event_desc) event_desc_offset = section.offset;
    input.features.set(static_cast<feature>(bit), std::move(payload));
  }
  return event_desc_offset;
}

}  // namespace

format_error::format_error(std::string_view file, std::uint64_t offset, std::string_view problem)
    : std::runtime_error(std::string(file) + ": offset " + std::to_string(offset) + ": " +
                         std::string(problem)),
      offset_(offset) {}

std::string recording_header_path(const std::string& path) {
  return S_ISDIR(io::status_of(path).st_mode) ? path + "/data" : path;
}

perf_header read_perf_header(const std::string& path, header_mode mode) {
  bool salvage = mode == header_mode::salvage;
  perf_header input;
  input.path = path;
  header_file file(path);
  input.file_size = file.size();
  read_header(file, input, salvage);
  if (input.pipe) return input;  // the head's records held the attrs, features and names
  read_attrs(file, input);
  std::uint64_t event_desc_offset = read_features(file, input, salvage);
  read_event_names(input, event_desc_offset, salvage);
  return input;
}

}  // namespace arec::perf_data
