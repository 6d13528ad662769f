// mmap_build_ids: the build-ids newer perfs carry in MMAP2 records (PERF_RECORD_MISC_MMAP_BUILD_ID;
// perf 6.17 and later by default, with no BUILD_ID feature written). perf 6.1 reads them from
// the records; hotspot 1.3's parser only from the BUILD_ID feature. convert adds an entry for
// each file the records name with a build-id and the feature does not.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "perf_data/build_id_feature.hpp"

namespace arec::convert {

class mmap_build_ids {
 public:
  // Any record; a user-space MMAP2 with a build-id is kept (once per file name and build-id).
  // Allocates only for a pair not seen before.
  void note(std::span<const std::byte> record);
  // The entries `payload` (the recording's BUILD_ID feature, maybe empty or unreadable) lacks:
  // those for file names it does not name, sorted by name.
  std::vector<perf_data::build_id_entry> missing_from(std::span<const std::byte> payload) const;

 private:
  std::map<std::string, std::vector<perf_data::build_id_entry>, std::less<>> by_name_;
};

}  // namespace arec::convert
