#include "convert/jit_mappings.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>

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
  // The kernel pads the name to 8 bytes; perf reads the trailer from the record's end, so what
  // follows the padded name is kept as it is.
  std::size_t trailer_at = std::min(record.size(), name_at + padded(text.size() + 1));
  return anonymous_code{trailer_at};
}

}  // namespace

jit_mappings::jit_mappings(std::vector<perf_data::captured_perf_map> maps, std::string cache_root,
                           std::uint64_t cache_bytes)
    : cache_root_(std::move(cache_root)), cache_room_(cache_bytes) {
  // A pid the file names twice was reused: neither map names its code (perf_data/per_process).
  for (const auto& [pid, map] : perf_data::unambiguous_by_pid(maps))
    if (map) processes_[pid].text = map->text;
}

std::string jit_mappings::elf_name(pid_t pid) {
  return "/jit/perf-" + std::to_string(pid) + ".map.elf";
}

const perf_data::build_id* jit_mappings::elf_of(pid_t pid) {
  auto found = processes_.find(pid);
  if (found == processes_.end()) return nullptr;
  process& owner = found->second;
  if (!owner.tried) {
    owner.tried = true;
    make_elf(pid, owner);
    std::string{}.swap(owner.text);  // no longer needed
  }
  return owner.id.empty() ? nullptr : &owner.id;
}

void jit_mappings::make_elf(pid_t pid, process& owner) {
  std::string not_added = "the JIT symbols of process " + std::to_string(pid) +
                          " were not added to the build-id cache ";
  try {
    std::optional<symbols::jit_elf> elf = symbols::make_jit_elf(pid, owner.text);
    if (!elf) return;
    if (elf->left_out != 0)
      warnings_.push_back("the perf map of process " + std::to_string(pid) + " has " +
                          std::to_string(elf->left_out) + " lines more than the " +
                          std::to_string(symbols::perf_map_table::max_symbols) +
                          " read of one map: only its last ones name its JIT frames");
    if (elf->image.size() > cache_room_) {
      warnings_.push_back(not_added + "(its " + std::to_string(elf->image.size()) +
                          " bytes are more than one conversion may still add to it): perf "
                          "report names none of its JIT frames");
      return;
    }
    symbols::store_in_build_id_cache(cache_root_, elf_name(pid), elf->id, elf->image);
    cache_room_ -= elf->image.size();
    owner.id = elf->id;
  } catch (const std::exception& error) {
    warnings_.push_back(not_added + "(" + error.what() +
                        "): perf report names none of its JIT frames");
  }
}

std::span<const std::byte> jit_mappings::rewrite(std::span<const std::byte> record) {
  if (processes_.empty() || record.size() < mmap_name_at) return record;
  std::optional<anonymous_code> code = anonymous_code_of(record);
  if (!code) return record;
  auto pid = static_cast<pid_t>(base::load<std::uint32_t>(record, 8));
  if (!elf_of(pid)) return record;

  std::string name = elf_name(pid);
  std::span<const std::byte> trailer = record.subspan(code->trailer_at);
  std::size_t size = mmap2_name_at + padded(name.size() + 1) + trailer.size();
  buffer_.assign(size, std::byte{0});
  std::span<std::byte> out{buffer_};
  bool mmap2 = base::load<std::uint32_t>(record, 0) == PERF_RECORD_MMAP2;
  // pid, tid, start, len as they were; the rest is the ELF's mapping.
  std::memcpy(out.data() + 8, record.data() + 8, 24);
  auto misc = static_cast<std::uint16_t>(base::load<std::uint16_t>(record, 4) &
                                         ~PERF_RECORD_MISC_MMAP_BUILD_ID);
  base::store<std::uint32_t>(out, 0, PERF_RECORD_MMAP2);
  base::store<std::uint16_t>(out, 4, misc);
  base::store<std::uint16_t>(out, 6, static_cast<std::uint16_t>(size));
  // perf's map_ip(ip) = ip - start + pgoff: the run-time address, which the ELF's symbols hold.
  base::store<std::uint64_t>(out, 32, base::load<std::uint64_t>(record, 16));
  // maj, min, ino, ino_generation stay 0: the dso is found by name, and the BUILD_ID entry made
  // for that name (no id) must be the one the mapping joins.
  base::store<std::uint32_t>(
      out, mmap2_prot_at,
      mmap2 ? base::load<std::uint32_t>(record, mmap2_prot_at) : PROT_READ | PROT_EXEC);
  base::store<std::uint32_t>(
      out, mmap2_flags_at, mmap2 ? base::load<std::uint32_t>(record, mmap2_flags_at) : MAP_PRIVATE);
  std::memcpy(out.data() + mmap2_name_at, name.data(), name.size());
  std::memcpy(out.data() + size - trailer.size(), trailer.data(), trailer.size());
  ++rewritten_;
  return out;
}

std::vector<perf_data::build_id_entry> jit_mappings::build_ids() const {
  std::vector<perf_data::build_id_entry> entries;
  for (const auto& [pid, owner] : processes_)
    if (!owner.id.empty()) entries.push_back({PERF_RECORD_MISC_USER, owner.id, elf_name(pid)});
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
