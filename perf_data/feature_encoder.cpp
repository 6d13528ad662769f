#include "perf_data/feature_encoder.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "base/system_error.hpp"

namespace arec::perf_data {
namespace {

static_assert(sizeof(perf_event_attr) >= attr_size_written,
              "the uapi header is older than PERF_ATTR_SIZE_VER7");

// perf aligns feature strings to NAME_ALIGN.
constexpr std::uint32_t string_alignment = 64;

template <typename T>
void append_raw(std::vector<std::byte>& out, const T& value) {
  const auto* first = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), first, first + sizeof value);
}

}  // namespace

void feature_encoder::u32(std::uint32_t value) {
  append_raw(bytes_, value);
}

void feature_encoder::u64(std::uint64_t value) {
  append_raw(bytes_, value);
}

void feature_encoder::string(std::string_view text) {
  std::uint64_t padded =
      (text.size() + 1 + string_alignment - 1) / string_alignment * string_alignment;
  if (padded > UINT32_MAX) throw std::length_error("perf string longer than 4 GiB");
  u32(static_cast<std::uint32_t>(padded));
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  bytes_.insert(bytes_.end(), first, first + text.size());
  bytes_.resize(bytes_.size() + (padded - text.size()), std::byte{0});
}

void feature_encoder::string_list(std::span<const std::string> texts) {
  u32(static_cast<std::uint32_t>(texts.size()));
  for (const std::string& text : texts) string(text);
}

void feature_encoder::bytes(std::span<const std::byte> data) {
  bytes_.insert(bytes_.end(), data.begin(), data.end());
}

void feature_set::set(feature bit, std::vector<std::byte> payload) {
  if (bit == 0 || bit >= 256)
    throw std::out_of_range("feature bit " + std::to_string(bit) + " outside 1..255");
  auto at = std::lower_bound(entries_.begin(), entries_.end(), bit,
                             [](const entry& e, feature b) { return e.bit < b; });
  if (at != entries_.end() && at->bit == bit)
    at->payload = std::move(payload);
  else
    entries_.insert(at, entry{bit, std::move(payload)});
}

const std::vector<std::byte>* feature_set::find(feature bit) const {
  auto at = std::lower_bound(entries_.begin(), entries_.end(), bit,
                             [](const entry& e, feature b) { return e.bit < b; });
  return at != entries_.end() && at->bit == bit ? &at->payload : nullptr;
}

void feature_set::erase(feature bit) {
  std::erase_if(entries_, [bit](const entry& e) { return e.bit == bit; });
}

bool feature_set::has(feature bit) const {
  return find(bit) != nullptr;
}

perf_event_attr attr_for_file(const perf_event_attr& attr) {
  perf_event_attr out = attr;
  out.size = attr_size_written;
  // A newer uapi header may have fields past VER7; they are not written, so clear them.
  auto* raw = reinterpret_cast<unsigned char*>(&out);
  std::memset(raw + attr_size_written, 0, sizeof out - attr_size_written);
  return out;
}

std::vector<std::byte> group_desc_payload(std::span<const group_entry> groups) {
  feature_encoder out;
  out.u32(static_cast<std::uint32_t>(groups.size()));
  for (const group_entry& group : groups) {
    out.string(group.name.empty() ? "{anon_group}" : group.name);
    out.u32(group.leader_index);
    out.u32(group.members);
  }
  return out.take();
}

std::vector<std::byte> event_desc_payload(std::span<const event_entry> events) {
  feature_encoder out;
  out.u32(static_cast<std::uint32_t>(events.size()));
  out.u32(attr_size_written);
  for (const event_entry& event : events) {
    perf_event_attr attr = attr_for_file(event.attr);
    out.bytes(std::as_bytes(std::span(&attr, 1)).first(attr_size_written));
    out.u32(static_cast<std::uint32_t>(event.ids.size()));
    out.string(event.name);
    for (std::uint64_t id : event.ids) out.u64(id);
  }
  return out.take();
}

std::vector<std::byte> sample_time_payload(std::uint64_t first_ns, std::uint64_t last_ns) {
  feature_encoder out;
  out.u64(first_ns);
  out.u64(last_ns);
  return out.take();
}

std::vector<std::byte> dir_format_payload() {
  feature_encoder out;
  out.u64(1);
  return out.take();
}

std::vector<std::byte> compressed_payload(std::uint32_t level, std::uint32_t ratio,
                                          std::uint32_t mmap_len) {
  constexpr std::uint32_t version = 0;
  constexpr std::uint32_t type_zstd = 1;
  feature_encoder out;
  for (std::uint32_t value : {version, type_zstd, level, ratio, mmap_len}) out.u32(value);
  return out.take();
}

std::vector<std::byte> cmdline_payload(std::span<const std::string> argv) {
  char exe[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", exe, sizeof exe);
  if (length < 0) base::throw_errno("readlink", "/proc/self/exe");
  feature_encoder out;
  out.u32(static_cast<std::uint32_t>(argv.size() + 1));
  out.string(std::string_view(exe, static_cast<std::size_t>(length)));
  for (const std::string& arg : argv) out.string(arg);
  return out.take();
}

std::vector<std::byte> clockid_payload(std::uint64_t resolution_ns) {
  feature_encoder out;
  out.u64(resolution_ns);
  return out.take();
}

std::vector<std::byte> clock_data_payload(std::uint32_t clockid, std::uint64_t wall_clock_ns,
                                          std::uint64_t clock_ns) {
  constexpr std::uint32_t version = 1;
  feature_encoder out;
  out.u32(version);
  out.u32(clockid);
  out.u64(wall_clock_ns);
  out.u64(clock_ns);
  return out.take();
}

std::vector<std::byte> version_payload() {
  feature_encoder out;
  out.string(compatible_perf_version);
  return out.take();
}

}  // namespace arec::perf_data
