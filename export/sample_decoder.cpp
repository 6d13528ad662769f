#include "export/sample_decoder.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "perf_data/perf_abi.hpp"
#include "perf_data/record_cursor.hpp"
#include "perf_data/sample_layout.hpp"

namespace arec::exporting {
namespace {

constexpr std::size_t header_bytes = sizeof(perf_data::record_header);

void skip_read_values(perf_data::record_cursor& in, const perf_event_attr& attr) {
  std::uint64_t format = attr.read_format;
  std::uint64_t extra = ((format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                        ((format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
  std::uint64_t per_value =
      1 + ((format & PERF_FORMAT_ID) ? 1 : 0) + ((format & PERF_FORMAT_LOST) ? 1 : 0);
  if (format & PERF_FORMAT_GROUP) {
    std::uint64_t count = in.word();
    in.skip(8 * extra);
    if (count > 4096) return in.skip(~0ull);  // no group is that large: the record is bad
    in.skip(8 * count * per_value);
  } else {
    in.skip(8 * (extra + per_value));
  }
}

void skip_registers(perf_data::record_cursor& in, std::uint64_t mask) {
  std::uint64_t abi = in.word();
  if (abi != 0) in.skip(8 * static_cast<std::uint64_t>(std::popcount(mask)));
}

// The registers follow the abi word only when it is not PERF_SAMPLE_REGS_ABI_NONE.
user_registers read_registers(perf_data::record_cursor& in, std::uint64_t mask,
                              std::vector<std::uint64_t>& spare) {
  user_registers regs;
  regs.abi = in.word();
  regs.mask = mask;
  if (regs.abi != 0) regs.values = in.words(static_cast<std::uint64_t>(std::popcount(mask)), spare);
  return regs;
}

// u64 size, the size bytes, then u64 dyn_size (the bytes filled) only when size is not 0.
std::span<const std::byte> read_stack(perf_data::record_cursor& in) {
  std::uint64_t size = in.word();
  if (size == 0) return {};
  std::span<const std::byte> data = in.take(size);
  std::uint64_t filled = in.word();
  return data.first(std::min(filled, data.size()));
}

}  // namespace

std::optional<std::uint64_t> user_registers::get(unsigned index) const noexcept {
  if (index >= 64 || !(mask & (1ull << index))) return std::nullopt;
  auto position = static_cast<std::size_t>(std::popcount(mask & ((1ull << index) - 1)));
  if (position >= values.size()) return std::nullopt;
  return values[position];
}

sample_decoder::sample_decoder(std::span<const perf_data::event_entry> events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    attrs_.push_back(events[i].attr);
    for (std::uint64_t id : events[i].ids) ids_.emplace_back(id, i);
  }
  std::sort(ids_.begin(), ids_.end());
  if (attrs_.size() < 2) return;
  std::uint64_t type = attrs_.front().sample_type;
  if (type & PERF_SAMPLE_IDENTIFIER)
    id_offset_ = header_bytes;
  else if (type & PERF_SAMPLE_ID)
    id_offset_ = static_cast<int>(header_bytes + perf_data::sample_time_offset(type) +
                                  perf_data::field_bytes(type, PERF_SAMPLE_TIME) +
                                  perf_data::field_bytes(type, PERF_SAMPLE_ADDR));
}

std::size_t sample_decoder::attr_of(std::span<const std::byte> record) const {
  if (id_offset_ < 0 || static_cast<std::size_t>(id_offset_) + 8 > record.size()) return 0;
  std::uint64_t id = 0;
  std::memcpy(&id, record.data() + id_offset_, sizeof id);
  auto found = std::lower_bound(ids_.begin(), ids_.end(), std::pair{id, std::size_t{0}});
  return found != ids_.end() && found->first == id ? found->second : 0;  // perf: id 0 = first
}

std::optional<decoded_sample> sample_decoder::decode(std::span<const std::byte> record) const {
  if (attrs_.empty() || record.size() < header_bytes) return std::nullopt;
  decoded_sample sample;
  sample.event = attr_of(record);
  const perf_event_attr& attr = attrs_[sample.event];
  std::uint64_t type = attr.sample_type;
  perf_data::record_header header;
  std::memcpy(&header, record.data(), sizeof header);
  sample.misc = header.misc;
  if (!(type & PERF_SAMPLE_PERIOD) && !attr.freq) sample.period = attr.sample_period;
  perf_data::record_cursor in(record);
  if (type & PERF_SAMPLE_IDENTIFIER) in.word();
  if (type & PERF_SAMPLE_IP) sample.ip = in.word();
  if (type & PERF_SAMPLE_TID) {
    std::uint64_t ids = in.word();
    sample.pid = static_cast<std::int32_t>(ids & 0xffffffffu);
    sample.tid = static_cast<std::int32_t>(ids >> 32);
  }
  if (type & PERF_SAMPLE_TIME) sample.time = in.word();
  if (type & PERF_SAMPLE_ADDR) in.word();
  if (type & PERF_SAMPLE_ID) in.word();
  if (type & PERF_SAMPLE_STREAM_ID) in.word();
  if (type & PERF_SAMPLE_CPU) {
    sample.cpu = static_cast<std::uint32_t>(in.word() & 0xffffffffu);
    sample.has_cpu = true;
  }
  if (type & PERF_SAMPLE_PERIOD) sample.period = in.word();
  if (type & PERF_SAMPLE_READ) skip_read_values(in, attr);
  if (type & PERF_SAMPLE_CALLCHAIN) {
    std::uint64_t count = in.word();
    sample.callchain = in.words(count, unaligned_);
  }
  if (type & PERF_SAMPLE_RAW) {
    std::uint64_t size_word = in.word();  // u32 size, then the data: rewind by 4 bytes
    in.skip(((size_word & 0xffffffffu) + 4 + 7) / 8 * 8 - 8);
  }
  if (type & PERF_SAMPLE_BRANCH_STACK) {
    std::uint64_t count = in.word();
    if (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) in.word();
    in.skip(24 * count);
  }
  if (type & PERF_SAMPLE_REGS_USER)
    sample.regs_user = read_registers(in, attr.sample_regs_user, unaligned_regs_);
  if (type & PERF_SAMPLE_STACK_USER) {
    sample.stack_user = read_stack(in);
    sample.has_stack_user = (type & PERF_SAMPLE_REGS_USER) != 0;
    sample.fp_snapshot = !sample.has_stack_user;
  }
  // The fields after the user stack matter only for the cgroup at the end.
  if (type & PERF_SAMPLE_CGROUP) {
    if (type & PERF_SAMPLE_WEIGHT_TYPE) in.word();
    if (type & PERF_SAMPLE_DATA_SRC) in.word();
    if (type & PERF_SAMPLE_TRANSACTION) in.word();
    if (type & PERF_SAMPLE_REGS_INTR) skip_registers(in, attr.sample_regs_intr);
    if (type & PERF_SAMPLE_PHYS_ADDR) in.word();
    sample.cgroup = in.word();
    sample.has_cgroup = true;
  }
  if (!in.ok()) return std::nullopt;
  return sample;
}

}  // namespace arec::exporting
