// build_id_archive: what `arec archive` writes — the build-id cache's objects of one recording
// in one tar.bz2, laid out as perf archive lays them out (paths relative to the cache: each
// build-id's .build-id/xx/yyyy link and the directory it points to), so that extracting it
// into another machine's cache (`tar xf FILE -C ~/.debug`) lets perf report resolve there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "perf_data/build_id_feature.hpp"

namespace arec::symbols {

struct archive_contents {
  std::size_t objects = 0;  // build-ids whose cached objects went in
  std::uint64_t bytes = 0;  // their file bytes, before compression
  // "FILENAME (build-id HEX)" of every build-id the cache does not hold.
  std::vector<std::string> missing;
};

// The cache's objects for `entries` (duplicates and entries without a build-id are skipped),
// written to `output` under a temporary name and renamed when complete (replacing a previous
// archive). When the cache holds none of them nothing is written. Throws std::system_error
// naming the call and path that failed; then no archive is left behind.
archive_contents write_build_id_archive(std::span<const perf_data::build_id_entry> entries,
                                        const std::string& cache_root, const std::string& output);

}  // namespace arec::symbols
