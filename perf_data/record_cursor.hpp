// record_cursor: reads one record's fields in order, each read checked against the record's
// end. A read past it yields zeros (or an empty span) and makes the cursor bad for good, so a
// parser reads on and asks ok() once, as perf's own parsers check a record's end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

class record_cursor {
 public:
  // Reads `record` (header included) from `offset`, by default the first byte of its body.
  explicit record_cursor(std::span<const std::byte> record,
                         std::size_t offset = sizeof(record_header))
      : record_(record),
        offset_(offset <= record.size() ? offset : record.size()),
        ok_(offset <= record.size()) {}

  // Whether `bytes` more bytes are there to read (and nothing failed before).
  bool fits(std::uint64_t bytes) const noexcept { return ok_ && bytes <= record_.size() - offset_; }
  bool ok() const noexcept { return ok_; }

  template <typename T>
  T get() {
    T value{};
    if (!fits(sizeof value)) return fail(value);
    std::memcpy(&value, record_.data() + offset_, sizeof value);
    offset_ += sizeof value;
    return value;
  }
  std::uint64_t word() { return get<std::uint64_t>(); }

  // The next `count` bytes, in place.
  std::span<const std::byte> take(std::uint64_t count) {
    if (!fits(count)) return fail(std::span<const std::byte>{});
    auto piece = record_.subspan(offset_, static_cast<std::size_t>(count));
    offset_ += static_cast<std::size_t>(count);
    return piece;
  }
  void skip(std::uint64_t bytes) { take(bytes); }
  // `count` items of `size` bytes, refusing counts whose product overflows.
  void skip_items(std::uint64_t count, std::uint64_t size) {
    if (size != 0 && (!ok_ || count > (record_.size() - offset_) / size)) {
      ok_ = false;
      return;
    }
    skip(count * size);
  }
  // `count` u64 words in place when they are 8-byte aligned (records are multiples of 8 bytes
  // in 8-aligned buffers), else copied into `spare`, which the caller reuses from record to
  // record.
  std::span<const std::uint64_t> words(std::uint64_t count, std::vector<std::uint64_t>& spare) {
    if (!ok_ || count > (record_.size() - offset_) / 8)
      return fail(std::span<const std::uint64_t>{});
    const std::byte* first = record_.data() + offset_;
    offset_ += static_cast<std::size_t>(count * 8);
    if (reinterpret_cast<std::uintptr_t>(first) % alignof(std::uint64_t) == 0)
      return {reinterpret_cast<const std::uint64_t*>(first), static_cast<std::size_t>(count)};
    spare.resize(static_cast<std::size_t>(count));
    std::memcpy(spare.data(), first, static_cast<std::size_t>(count * 8));
    return spare;
  }
  // The NUL-terminated string at the cursor (cut at the record's end); the cursor stays.
  std::string_view string() const {
    if (offset_ >= record_.size()) return {};
    const char* text = reinterpret_cast<const char*>(record_.data() + offset_);
    return {text, ::strnlen(text, record_.size() - offset_)};
  }

 private:
  template <typename T>
  T fail(T nothing) {
    ok_ = false;
    return nothing;
  }

  std::span<const std::byte> record_;
  std::size_t offset_;
  bool ok_;
};

}  // namespace arec::perf_data
