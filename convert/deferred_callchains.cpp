#include "convert/deferred_callchains.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "base/unaligned.hpp"
#include "perf_data/record_walker.hpp"
#include "perf_data/sample_layout.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t header_bytes = sizeof(perf_data::record_header);
constexpr std::size_t read_buffer_bytes = 512 * 1024;

}  // namespace

std::optional<deferred_callchains> deferred_callchains::read(const convert_input& input,
                                                             bool salvage) {
  if (input.events.empty()) return std::nullopt;
  std::vector<attr_layout> attrs;
  for (const perf_data::event_entry& event : input.events)
    attrs.push_back({event.attr.sample_type, event.ids});
  std::uint64_t first = attrs.front().sample_type;
  long id_at = -1;
  if (attrs.size() > 1 && (first & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)))
    id_at = static_cast<long>(header_bytes + perf_data::sample_id_offset(first));
  deferred_callchains made{std::move(attrs), id_at};
  for (const perf_data::data_range& range : input.ranges) {
    perf_data::record_walker walker = perf_data::record_walker::open(
        range, {.salvage = salvage, .buffer_bytes = read_buffer_bytes});
    while (std::optional<perf_data::walked_record> record = walker.next())
      if (record->header.type == record_callchain_deferred) made.add(record->bytes);
  }
  if (made.stacks_.empty()) return std::nullopt;
  return made;
}

// u64 cookie, u64 nr, nr ips, then the sample_id trailer (TID first), laid out by the first
// attr's sample_type as perf reads it.
void deferred_callchains::add(std::span<const std::byte> record) {
  std::uint64_t type = attrs_.front().sample_type;
  std::size_t trailer = perf_data::sample_id_trailer_size(type);
  if (!(type & PERF_SAMPLE_TID) || record.size() < header_bytes + 16 + trailer) return;
  auto cookie = base::load<std::uint64_t>(record, header_bytes);
  auto count = base::load<std::uint64_t>(record, header_bytes + 8);
  if (count > (record.size() - header_bytes - 16 - trailer) / 8) return;  // malformed
  auto tid = base::load<std::uint32_t>(record, record.size() - trailer + 4);
  std::size_t at = frames_.size();
  for (std::uint64_t i = 0; i < count; ++i)
    frames_.push_back(base::load<std::uint64_t>(record, header_bytes + 16 + 8 * i));
  stacks_[{tid, cookie}] = {at, static_cast<std::size_t>(count)};
}

const deferred_callchains::attr_layout* deferred_callchains::attr_of(
    std::span<const std::byte> sample) const {
  if (sample_id_at_ < 0) return &attrs_.front();
  auto at = static_cast<std::size_t>(sample_id_at_);
  if (sample.size() < at + 8) return nullptr;
  auto id = base::load<std::uint64_t>(sample, at);
  for (const attr_layout& attr : attrs_)
    if (std::find(attr.ids.begin(), attr.ids.end(), id) != attr.ids.end()) return &attr;
  return nullptr;
}

std::span<const std::byte> deferred_callchains::rewrite(std::span<const std::byte> record) {
  auto header = base::load<perf_data::record_header>(record, 0);
  if (header.type != PERF_RECORD_SAMPLE) return record;
  const attr_layout* attr = attr_of(record);
  // READ sits before CALLCHAIN with a size of its own: such samples are left as they are.
  if (!attr || !(attr->sample_type & PERF_SAMPLE_CALLCHAIN) ||
      (attr->sample_type & PERF_SAMPLE_READ))
    return record;
  std::size_t chain_at = header_bytes + perf_data::sample_callchain_offset(attr->sample_type);
  if (record.size() < chain_at + 8) return record;
  auto count = base::load<std::uint64_t>(record, chain_at);
  if (count < 2 || count > (record.size() - chain_at - 8) / 8) return record;
  std::size_t marker_at = chain_at + 8 * (count - 1);  // the last two: marker, cookie
  if (base::load<std::uint64_t>(record, marker_at) != perf_context_user_deferred) return record;
  auto cookie = base::load<std::uint64_t>(record, marker_at + 8);
  auto tid = base::load<std::uint32_t>(
      record, header_bytes + perf_data::sample_tid_offset(attr->sample_type) + 4);

  std::span<const std::uint64_t> user;
  if (auto found = stacks_.find({tid, cookie}); found != stacks_.end()) {
    user =
        std::span<const std::uint64_t>{frames_}.subspan(found->second.first, found->second.second);
    ++stitched_;
  } else {
    ++unmatched_;
  }
  // Its own frames but the marker and cookie; PERF_CONTEXT_USER unless the user frames start
  // with a context of their own; the user frames; then the rest of the sample as it was.
  bool marked = !user.empty() && user.front() >= PERF_CONTEXT_MAX;
  std::uint64_t kept = count - 2;
  std::uint64_t added = user.empty() ? 0 : user.size() + (marked ? 0 : 1);
  std::size_t rest_at = chain_at + 8 + 8 * count;
  std::size_t size = rest_at - 16 + 8 * added + (record.size() - rest_at);
  if (size > perf_data::max_record_size) return record;  // cannot be one record: left alone
  buffer_.assign(record.begin(),
                 record.begin() + static_cast<std::ptrdiff_t>(chain_at + 8 + 8 * kept));
  auto put = [this](std::uint64_t word) {
    const auto* bytes = reinterpret_cast<const std::byte*>(&word);
    buffer_.insert(buffer_.end(), bytes, bytes + sizeof word);
  };
  if (!user.empty() && !marked) put(PERF_CONTEXT_USER);
  for (std::uint64_t frame : user) put(frame);
  buffer_.insert(buffer_.end(), record.begin() + static_cast<std::ptrdiff_t>(rest_at),
                 record.end());
  std::span<std::byte> out{buffer_};
  base::store(out, chain_at, kept + added);
  header.size = static_cast<std::uint16_t>(buffer_.size());
  base::store(out, 0, header);
  return out;
}

}  // namespace arec::convert
