#include "perf_data/pipe_head.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace arec::perf_data {
namespace {

constexpr std::uint64_t pipe_header_size = 16;
constexpr std::uint32_t record_header_event_type = 65;  // obsolete; skipped as perf does
constexpr std::uint64_t event_update_name = 2;
constexpr std::uint32_t oldest_attr_size = 64;  // PERF_ATTR_SIZE_VER0

class head_reader {
 public:
  head_reader(const header_file& file, perf_header& input, bool salvage)
      : file_(file), input_(input), salvage_(salvage) {}

  void run() {
    std::uint64_t offset = pipe_header_size;
    while (offset < file_.size()) {
      record_header header{};
      if (file_.size() - offset < sizeof header) {
        if (cut(offset, "a record header")) break;
      }
      file_.read(&header, sizeof header, offset);
      if (!is_head_record(header.type)) break;
      if (header.size < sizeof header)
        file_.fail(offset, "record of type " + std::to_string(header.type) + " has size " +
                               std::to_string(header.size));
      if (header.size > file_.size() - offset) {
        if (cut(offset, "its record of type " + std::to_string(header.type))) break;
      }
      std::vector<std::byte> body(header.size - sizeof header);
      file_.read(body.data(), body.size(), offset + sizeof header);
      std::uint64_t extra = apply(header, body, offset);
      if (extra == cut_short) break;
      offset += header.size + extra;
    }
    data_begin_ = cut_ ? file_.size() : std::min(offset, file_.size());
  }

  std::uint64_t data_begin() const { return data_begin_; }

 private:
  static constexpr std::uint64_t cut_short = ~std::uint64_t{0};

  static bool is_head_record(std::uint32_t type) {
    return type == record_header_attr || type == record_header_event_type ||
           type == record_header_tracing_data || type == record_header_build_id ||
           type == record_header_feature || type == record_event_update;
  }

  // The file ends inside the head: an error, or with salvage the end of the head and the data.
  bool cut(std::uint64_t offset, const std::string& what) {
    std::string problem = "the stream ends inside " + what;
    if (!salvage_) file_.fail(offset, problem);
    input_.salvage_notes.push_back(file_.path() + ": offset " + std::to_string(offset) + ": " +
                                   problem + "; reading nothing after it");
    cut_ = true;
    return true;
  }

  // Takes one head record; returns the bytes that follow it outside its size (TRACING_DATA's
  // blob), or cut_short.
  std::uint64_t apply(const record_header& header, std::span<const std::byte> body,
                      std::uint64_t offset) {
    switch (header.type) {
      case record_header_attr:
        add_attr(body, offset);
        return 0;
      case record_header_feature:
        add_feature(body, offset);
        return 0;
      case record_event_update:
        name_event(body);
        return 0;
      case record_header_build_id:
        add_build_id(header, body);
        return 0;
      case record_header_tracing_data:
        return add_tracing_data(body, offset + header.size);
      default:
        return 0;
    }
  }

  template <typename T>
  static T load(std::span<const std::byte> bytes, std::size_t at) {
    T value{};
    if (at + sizeof value <= bytes.size()) std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
  }

  void add_attr(std::span<const std::byte> body, std::uint64_t offset) {
    auto size = load<std::uint32_t>(body, offsetof(perf_event_attr, size));
    if (size == 0) size = oldest_attr_size;
    if (size < oldest_attr_size || size > body.size() || (body.size() - size) % 8 != 0)
      file_.fail(offset, "HEADER_ATTR of " + std::to_string(body.size()) +
                             " bytes does not hold an attr of size " + std::to_string(size) +
                             " and whole ids");
    event_entry& event = input_.events.emplace_back();
    std::size_t kept = std::min<std::size_t>(size, sizeof event.attr);
    std::memcpy(&event.attr, body.data(), kept);
    event.attr.size = static_cast<std::uint32_t>(kept);
    event.ids.resize((body.size() - size) / 8);
    // No ids: ids.data() may be null, and memcpy to null is undefined even for 0 bytes.
    if (!event.ids.empty()) std::memcpy(event.ids.data(), body.data() + size, event.ids.size() * 8);
  }

  // u64 feature bit, then the payload as a file's feature section holds it; a record of the
  // writer's HEADER_LAST_FEATURE without payload ends the list (32 in perf 6.1, higher in newer
  // perfs, whose bits from 32 on are features of their own).
  void add_feature(std::span<const std::byte> body, std::uint64_t offset) {
    if (body.size() < 8) file_.fail(offset, "HEADER_FEATURE without its feature bit");
    auto bit = load<std::uint64_t>(body, 0);
    if (bit == 0 || bit >= 256)
      file_.fail(offset, "HEADER_FEATURE for feature bit " + std::to_string(bit));
    auto payload = body.subspan(8);
    if (bit >= feature_last_known && payload.empty()) return;
    input_.features.set(static_cast<feature>(bit), {payload.begin(), payload.end()});
  }

  // EVENT_UPDATE NAME: u64 type, u64 id, the name; other kinds (unit, scale, cpus) are dropped.
  void name_event(std::span<const std::byte> body) {
    if (load<std::uint64_t>(body, 0) != event_update_name || body.size() < 16) return;
    auto id = load<std::uint64_t>(body, 8);
    const char* text = reinterpret_cast<const char*>(body.data() + 16);
    std::string name(text, ::strnlen(text, body.size() - 16));
    for (event_entry& event : input_.events)
      if (std::find(event.ids.begin(), event.ids.end(), id) != event.ids.end()) event.name = name;
  }

  // A file's BUILD_ID section is these records one after another.
  void add_build_id(const record_header& header, std::span<const std::byte> body) {
    const auto* head = reinterpret_cast<const std::byte*>(&header);
    build_ids_.insert(build_ids_.end(), head, head + sizeof header);
    build_ids_.insert(build_ids_.end(), body.begin(), body.end());
    input_.features.set(feature_build_id, build_ids_);
  }

  // u32 size, u32 pad; the blob follows the record, `size` bytes with its padding.
  std::uint64_t add_tracing_data(std::span<const std::byte> body, std::uint64_t blob_offset) {
    auto size = load<std::uint32_t>(body, 0);
    if (size > file_.size() - blob_offset) {
      cut(blob_offset, "the tracing data");
      return cut_short;
    }
    std::vector<std::byte> blob(size);
    file_.read(blob.data(), blob.size(), blob_offset);
    input_.features.set(feature_tracing_data, std::move(blob));
    return size;
  }

  const header_file& file_;
  perf_header& input_;
  bool salvage_;
  std::vector<std::byte> build_ids_;
  bool cut_ = false;  // salvage: the file ended inside the head
  std::uint64_t data_begin_ = pipe_header_size;
};

}  // namespace

void read_pipe_head(const header_file& file, perf_header& input, bool salvage) {
  head_reader reader(file, input, salvage);
  reader.run();
  if (input.events.empty()) file.fail(pipe_header_size, "pipe-mode stream without HEADER_ATTR");
  // A stream whose events are named only by EVENT_UPDATE (perf's) keeps the names in a file.
  if (!input.features.has(feature_event_desc) &&
      std::any_of(input.events.begin(), input.events.end(),
                  [](const event_entry& event) { return !event.name.empty(); }))
    input.features.set(feature_event_desc, event_desc_payload(input.events));
  input.pipe = true;
  input.header.size = pipe_header_size;
  input.header.attr_size = attr_size_written + sizeof(file_section);
  input.header.data = {reader.data_begin(), file.size() - reader.data_begin()};
}

}  // namespace arec::perf_data
