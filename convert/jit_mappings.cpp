#include "convert/jit_mappings.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>

#include "base/unaligned.hpp"
#include "perf_data/per_process.hpp"
#include "perf_data/perf_abi.hpp"
#include "symbols/build_id_cache_store.hpp"
#include "symbols/jit_elf.hpp"
#include "symbols/perf_map_symbols.hpp"

namespace arec::convert {
namespace {

// Where the file name starts in each record type (header included): docs/perf-data-format.md,
// "Kernel record bodies".
constexpr std::size_t mmap_name_at = 40;
constexpr std::size_t mmap2_name_at = 72;
constexpr std::size_t mmap2_prot_at = 64;
constexpr std::size_t mmap2_flags_at = 68;

std::size_t padded(std::size_t size) {
  return (size + 7) & ~std::size_t{7};
}

// perf 6.1's is_anon_memory (util/map.c), plus MAP_HUGETLB as its map__new adds.
bool anonymous(std::string_view name, std::uint32_t flags) {
  return name == "//anon" || name.starts_with("/dev/zero") || name.starts_with("/anon_hugepage") ||
         (flags & MAP_HUGETLB) != 0;
}

// An MMAP or MMAP2 of anonymous executable memory: its name and where its trailer starts.
struct anonymous_code {
  std::size_t trailer_at;
};

std::optional<anonymous_code> anonymous_code_of(std::span<const std::byte> record) {
  auto type = base::load<std::uint32_t>(record, 0);
  auto misc = base::load<std::uint16_t>(record, 4);
  bool mmap2 = type == PERF_RECORD_MMAP2;
  if (!mmap2 && type != PERF_RECORD_MMAP) return std::nullopt;
  std::size_t name_at = mmap2 ? mmap2_name_at : mmap_name_at;
  if (record.size() <= name_at) return std::nullopt;
  // As perf decides: MMAP2 by its prot, MMAP by the data bit.
  bool executable = mmap2 ? (base::load<std::uint32_t>(record, mmap2_prot_at) & PROT_EXEC) != 0
                          : (misc & PERF_RECORD_MISC_MMAP_DATA) == 0;
  std::uint32_t flags = mmap2 ? base::load<std::uint32_t>(record, mmap2_flags_at) : 0;
  const char* name = reinterpret_cast<const char*>(record.data() + name_at);
  const void* end = std::memchr(name, 0, record.size() - name_at);
  if (!executable || !end) return std::nullopt;
  std::string_view text{name, static_cast<std::size_t>(static_cast<const char*>(end) - name)};
  if (!anonymous(text, flags)) return std::nullopt;
  std::size_t trailer_at = std::min(record.size(), name_at + padded(text.size() + 1));
  return anonymous_code{trailer_at};
}

}  // namespace

jit_mappings::jit_mappings(std::vector<perf_data::captured_perf_map> maps, std::string cache_root,
                           std::uint64_t cache_bytes)
    : cache_root_(std::move(cache_root)), cache_room_(cache_bytes) {
  // A pid the file names twice was reused: neither map names its code (perf_data/per_process).
  for (const auto& [pid, map] : perf_data::unambiguous_by_pid(maps)) {
    if (map)
      processes_[pid].map_text = map->text;
    else
      reused_pids_.insert(pid);
  }
}

void jit_mappings::add_jitdumps(perf_data::captured_jitdumps dumps, record_clock clock) {
  dumps_ = std::move(dumps);  // moved before the generations take views of its bytes
  clock_ = std::move(clock);
  for (const auto& [pid, dump] : perf_data::unambiguous_by_pid(dumps_.dumps)) {
    if (!dump || reused_pids_.contains(pid)) {
      processes_.erase(pid);  // a reused pid: its map alone may name the other process's code
      reused_pids_.insert(pid);
      continue;
    }
    process& owner = processes_[pid];
    owner.dump.emplace(std::as_bytes(std::span{dump->bytes}), dumps_.clocks);
    owner.generations.clear();
    for (std::size_t index = 0; index < owner.dump->size(); ++index) {
      owner.generations.push_back(owner.dump->from(index));
      if (index > 0) switches_.push_back({owner.dump->from(index), pid, index});
    }
    std::string whose = "the jitdump of process " + std::to_string(pid);
    if (!owner.dump->placed())
      warnings_.push_back(whose +
                          " has times the recording's clock cannot place: where its runtime "
                          "reused memory, the code written there last names it");
    if (std::size_t merged = owner.dump->reuses_merged())
      warnings_.push_back(whose + " reused memory " + std::to_string(merged) +
                          " times more than the " +
                          std::to_string(symbols::jit_generations::max_generations) +
                          " generations made of one dump: after those, the code written last "
                          "names an address");
  }
  std::ranges::sort(switches_, {}, &switch_point::time);
}

namespace {

std::string hex(std::uint64_t value) {
  std::array<char, 17> digits{};
  int length = std::snprintf(digits.data(), digits.size(), "%llx",
                             static_cast<unsigned long long>(value));
  return {digits.data(), static_cast<std::size_t>(length)};
}

std::string range_name(const symbols::jit_code_range& range) {
  return hex(range.start) + "-" + hex(range.end);
}

symbols::jit_code_range range_of(std::span<const std::byte, 24> place) {
  auto start = base::load<std::uint64_t>(place, 8);
  auto len = base::load<std::uint64_t>(place, 16);
  return {start, len > ~start ? ~std::uint64_t{0} : start + len};
}

}  // namespace

std::string jit_mappings::elf_name(pid_t pid, symbols::jit_code_range range) {
  return "/jit/perf-" + std::to_string(pid) + ".map." + range_name(range) + ".elf";
}

std::string jit_mappings::dump_elf_name(pid_t pid, symbols::jit_code_range range,
                                        std::size_t generation) {
  return "/jit/jitdump-" + std::to_string(pid) + "." + range_name(range) + "." +
         std::to_string(generation + 1) + ".elf";
}

std::string jit_mappings::name_of(pid_t pid, const process& owner, const mapping& mapped,
                                  std::size_t generation) const {
  symbols::jit_code_range range = range_of(mapped.place);
  return owner.dump ? dump_elf_name(pid, range, generation) : elf_name(pid, range);
}

const perf_data::build_id* jit_mappings::elf_of(pid_t pid, process& owner, mapping& mapped,
                                                std::size_t generation) {
  mapped.elfs.resize(owner.generations.size());
  elf_state& made = mapped.elfs.at(generation);
  if (!made.tried) {
    made.tried = true;
    make_elf(pid, owner, mapped, generation);
  }
  return made.id.empty() ? nullptr : &made.id;
}

void jit_mappings::make_elf(pid_t pid, process& owner, mapping& mapped, std::size_t generation) {
  std::string whose = "the JIT symbols of process " + std::to_string(pid);
  if (owner.generations.size() > 1)
    whose += " (code generation " + std::to_string(generation + 1) + ")";
  std::string not_added = whose + " were not added to the build-id cache ";
  std::string unnamed = "): perf report names none of its JIT frames";
  try {
    // The mappings of one generation come together (a switch writes them all): its text is
    // made once for them.
    if (owner.text_of != generation) {
      owner.text = owner.map_text;
      if (owner.dump) owner.text += owner.dump->perf_map(generation);
      owner.text_of = generation;
    }
    std::optional<symbols::jit_elf> elf = symbols::make_jit_elf(
        pid, owner.text, range_of(mapped.place),
        owner.dump ? owner.dump->functions(generation) : std::span<const symbols::jitdump_code>{});
    if (!elf) return;
    if (elf->not_unwound != 0 && !std::exchange(owner.not_unwound_said, true))
      warnings_.push_back(whose + ": the unwinding information of " +
                          std::to_string(elf->not_unwound) +
                          " functions is not what a runtime writes for them (docs/symbols.md) and "
                          "was left out: unwinders stop at their frames, or use frame pointers");
    if (elf->left_out != 0 && !std::exchange(owner.left_out_said, true))
      warnings_.push_back(whose + " have " + std::to_string(elf->left_out) +
                          " functions more than the " +
                          std::to_string(symbols::perf_map_table::max_symbols) +
                          " read of one process: only its last ones name its JIT frames");
    if (elf->image.size() > cache_room_) {
      warnings_.push_back(not_added + "(its " + std::to_string(elf->image.size()) +
                          " bytes are more than one conversion may still add to it" + unnamed);
      return;
    }
    symbols::store_in_build_id_cache(cache_root_, name_of(pid, owner, mapped, generation),
                                     elf->id, elf->image);
    cache_room_ -= elf->image.size();
    mapped.elfs.at(generation).id = elf->id;
  } catch (const std::exception& error) {
    warnings_.push_back(not_added + "(" + error.what() + unnamed);
  }
}

std::span<const std::byte> jit_mappings::compose(const mapping& mapped, const std::string& name) {
  std::size_t size = mmap2_name_at + padded(name.size() + 1) + mapped.trailer.size();
  buffer_.assign(size, std::byte{0});
  std::span<std::byte> out{buffer_};
  base::store<std::uint32_t>(out, 0, PERF_RECORD_MMAP2);
  base::store<std::uint16_t>(out, 4, mapped.misc);
  base::store<std::uint16_t>(out, 6, static_cast<std::uint16_t>(size));
  std::memcpy(out.data() + 8, mapped.place.data(), mapped.place.size());
  // pgoff 0: the ELF is laid out as this mapping's file (symbols/jit_elf).
  // maj, min, ino, ino_generation stay 0: the dso is found by name, and the BUILD_ID entry made
  // for that name (no id) must be the one the mapping joins.
  base::store<std::uint32_t>(out, mmap2_prot_at, mapped.prot);
  base::store<std::uint32_t>(out, mmap2_flags_at, mapped.flags);
  std::memcpy(out.data() + mmap2_name_at, name.data(), name.size());
  std::memcpy(out.data() + size - mapped.trailer.size(), mapped.trailer.data(),
              mapped.trailer.size());
  return out;
}

std::span<const std::byte> jit_mappings::rewrite(std::span<const std::byte> record) {
  if (processes_.empty() || record.size() < mmap_name_at) return record;
  std::optional<anonymous_code> code = anonymous_code_of(record);
  if (!code) return record;
  auto pid = static_cast<pid_t>(base::load<std::uint32_t>(record, 8));
  auto found = processes_.find(pid);
  if (found == processes_.end()) return record;
  process& owner = found->second;

  auto key = std::pair{base::load<std::uint64_t>(record, 16), base::load<std::uint64_t>(record, 24)};
  mapping& mapped = owner.mappings[key];
  bool mmap2 = base::load<std::uint32_t>(record, 0) == PERF_RECORD_MMAP2;
  std::memcpy(mapped.place.data(), record.data() + 8, mapped.place.size());
  mapped.prot = mmap2 ? base::load<std::uint32_t>(record, mmap2_prot_at) : PROT_READ | PROT_EXEC;
  mapped.flags = mmap2 ? base::load<std::uint32_t>(record, mmap2_flags_at) : MAP_PRIVATE;
  mapped.misc = static_cast<std::uint16_t>(base::load<std::uint16_t>(record, 4) &
                                           ~PERF_RECORD_MISC_MMAP_BUILD_ID);
  // The kernel pads the name to 8 bytes; perf reads the trailer from the record's end, so what
  // follows the padded name is kept as it is.
  std::span<const std::byte> trailer = record.subspan(code->trailer_at);
  mapped.trailer.assign(trailer.begin(), trailer.end());
  if (owner.dump && clock_)
    if (std::optional<std::uint64_t> time = clock_->time_of(record))
      owner.current =
          static_cast<std::size_t>(std::ranges::upper_bound(owner.generations, *time) -
                                   owner.generations.begin()) -
          1;
  if (!elf_of(pid, owner, mapped, owner.current)) return record;
  ++rewritten_;
  return compose(mapped, name_of(pid, owner, mapped, owner.current));
}

void jit_mappings::switch_generations(std::uint64_t time, io::record_sink& out) {
  for (; next_switch_ < switches_.size() && switches_[next_switch_].time <= time; ++next_switch_) {
    const switch_point& at = switches_[next_switch_];
    process& owner = processes_.at(at.pid);
    if (at.generation <= owner.current) continue;  // a mapping made later is there already
    owner.current = at.generation;
    for (auto& [key, mapped] : owner.mappings) {
      std::string name = elf_of(at.pid, owner, mapped, at.generation)
                             ? name_of(at.pid, owner, mapped, at.generation)
                             : "//anon";
      std::optional<std::size_t> time_at = clock_->time_offset(compose(mapped, name));
      if (time_at) base::store<std::uint64_t>(std::span{buffer_}, *time_at, at.time);
      out.write(buffer_);
      ++remapped_;
    }
  }
}

std::vector<perf_data::build_id_entry> jit_mappings::build_ids() const {
  std::vector<perf_data::build_id_entry> entries;
  for (const auto& [pid, owner] : processes_)
    for (const auto& [key, mapped] : owner.mappings)
      for (std::size_t generation = 0; generation < mapped.elfs.size(); ++generation)
        if (!mapped.elfs[generation].id.empty())
          entries.push_back({PERF_RECORD_MISC_USER, mapped.elfs[generation].id,
                             name_of(pid, owner, mapped, generation)});
  // In name order, so that converting one recording twice writes the same file.
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.filename < b.filename; });
  return entries;
}

std::vector<std::byte> with_build_ids(std::span<const std::byte> payload,
                                      std::span<const perf_data::build_id_entry> entries) {
  std::vector<std::byte> joined(payload.begin(), payload.end());
  std::vector<std::byte> added = perf_data::build_id_payload(entries);
  joined.insert(joined.end(), added.begin(), added.end());
  return joined;
}

}  // namespace arec::convert
