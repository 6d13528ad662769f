// perf.data feature payloads: perf's encoding primitives (strings padded to 64, string lists),
// the set of encoded payloads a file carries, and builders for the payloads that do not
// describe the host. Encodings: docs/perf-data-format.md, "Feature payload
// encoding" and "Feature bits".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perf_data/build_id.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

// Appends values in host byte order, packed back to back (feature payloads have no alignment).
class feature_encoder {
 public:
  void u32(std::uint32_t value);
  void u64(std::uint64_t value);
  // A perf string: u32 length (NUL included, rounded up to a multiple of 64), the bytes, then
  // zeros up to that length. "vm" becomes 4 + 64 bytes.
  void string(std::string_view text);
  // u32 count, then each element as a perf string.
  void string_list(std::span<const std::string> texts);
  void bytes(std::span<const std::byte> data);
  // Hands over the encoded bytes and leaves the encoder empty.
  std::vector<std::byte> take() { return std::exchange(bytes_, {}); }

 private:
  std::vector<std::byte> bytes_;
};

// One event as it goes into the attrs section and EVENT_DESC. `ids` are the kernel ids of its
// instances (non-zero, unique across events; may be empty for a single event).
struct event_entry {
  perf_event_attr attr{};
  std::string name;
  std::vector<std::uint64_t> ids;
};

// The payloads of one file, keyed by feature bit; iterates in ascending bit order, which is
// the order of the file's feature table.
class feature_set {
 public:
  struct entry {
    feature bit;
    std::vector<std::byte> payload;
  };

  // Stores (or replaces) the payload of `bit`. Throws std::out_of_range for bit 0 (reserved)
  // and bits beyond the 256-bit header bitmap.
  void set(feature bit, std::vector<std::byte> payload);
  // Forgets the payload of `bit`, if any.
  void erase(feature bit);
  bool has(feature bit) const;
  // The payload of `bit`, or nullptr when it is not set.
  const std::vector<std::byte>* find(feature bit) const;
  std::size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::vector<entry> entries_;  // sorted by bit
};

// EVENT_DESC: u32 nr, u32 attr_size (128), then per event the attr, u32 nr_ids, its name as a
// perf string and its ids. Each attr is written with size forced to attr_size_written.
std::vector<std::byte> event_desc_payload(std::span<const event_entry> events);
// One event group of GROUP_DESC: its leader's index among the file's events and its size.
struct group_entry {
  std::string name;  // "foo" of foo{a,b}; empty for an anonymous group
  std::uint32_t leader_index = 0;
  std::uint32_t members = 0;  // the leader included
};
// GROUP_DESC: u32 nr, then per group its name as a perf string ("{anon_group}" for an anonymous
// one, as perf writes it), u32 leader index, u32 number of members.
std::vector<std::byte> group_desc_payload(std::span<const group_entry> groups);
// SAMPLE_TIME: u64 first, u64 last sample time.
std::vector<std::byte> sample_time_payload(std::uint64_t first_ns, std::uint64_t last_ns);
// DIR_FORMAT: u64 1, "data.* files present".
std::vector<std::byte> dir_format_payload();
// COMPRESSED as perf 6.1 writes it: version 0, type 1 (zstd), then level, ratio, mmap_len.
std::vector<std::byte> compressed_payload(std::uint32_t level, std::uint32_t ratio,
                                          std::uint32_t mmap_len);
// CMDLINE: u32 argc + 1, the absolute path of /proc/self/exe, then `argv` (the arguments,
// without the program name, as perf writes them) as perf strings.
// Throws std::system_error when /proc/self/exe cannot be read.
std::vector<std::byte> cmdline_payload(std::span<const std::string> argv);
// CLOCKID: the u64 resolution, in ns, of the clock the events' times come from (-k).
std::vector<std::byte> clockid_payload(std::uint64_t resolution_ns);
// CLOCK_DATA, version 1: the clock's id and one instant read on both the wall clock and it
// (ns), from which perf converts sample times to the time of day.
std::vector<std::byte> clock_data_payload(std::uint32_t clockid, std::uint64_t wall_clock_ns,
                                          std::uint64_t clock_ns);
// VERSION: a perf string of compatible_perf_version.
std::vector<std::byte> version_payload();

// The attr as it is written to the file: its first attr_size_written bytes with `size` set
// to attr_size_written.
perf_event_attr attr_for_file(const perf_event_attr& attr);

}  // namespace arec::perf_data
