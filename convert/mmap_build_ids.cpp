#include "convert/mmap_build_ids.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

#include "perf_data/format_error.hpp"
#include "perf_data/mapping_record.hpp"

namespace arec::convert {

void mmap_build_ids::note(std::span<const std::byte> record) {
  if (record.size() < sizeof(perf_data::record_header)) return;
  perf_data::record_header header{};
  std::memcpy(&header, record.data(), sizeof header);
  if (header.type != PERF_RECORD_MMAP2 || !(header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) return;
  std::uint16_t cpumode = header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
  // User-space files only: with a kernel entry added beside a kernel MMAP2 that carries its
  // build-id, perf 6.1 names the kernel's dso "[kernel.kallsyms]_text" in its reports (tried);
  // hotspot reads kernel symbols from kallsyms, not through the build-id.
  if (cpumode != PERF_RECORD_MISC_USER) return;
  auto mapping = perf_data::parse_mapping_record(record);
  if (!mapping || mapping->id.empty() || mapping->name.empty()) return;
  auto found = by_name_.find(mapping->name);
  if (found == by_name_.end())
    found = by_name_.emplace(std::string{mapping->name}, std::vector<perf_data::build_id_entry>{})
                .first;
  std::vector<perf_data::build_id_entry>& entries = found->second;
  if (std::none_of(entries.begin(), entries.end(),
                   [&](const auto& entry) { return entry.id == mapping->id; }))
    entries.push_back({cpumode, mapping->id, found->first});
}

std::vector<perf_data::build_id_entry> mmap_build_ids::missing_from(
    std::span<const std::byte> payload) const {
  std::set<std::string, std::less<>> named;
  try {
    for (perf_data::build_id_entry& entry :
         perf_data::parse_build_id_payload(payload, 0, "BUILD_ID"))
      named.insert(std::move(entry.filename));
  } catch (const perf_data::format_error&) {
    // convert drops a feature it cannot read before it gets here; nothing is named then
  }
  std::vector<perf_data::build_id_entry> missing;
  for (const auto& [name, entries] : by_name_)
    if (!named.contains(name)) missing.insert(missing.end(), entries.begin(), entries.end());
  return missing;
}

}  // namespace arec::convert
