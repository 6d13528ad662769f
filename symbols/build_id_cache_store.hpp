// build_id_cache_store: puts a file arec made itself (a JIT map's ELF, io/jit_elf) into perf's
// build-id cache under perf's layout (symbols/build_id_cache_layout), so that perf report and
// `arec archive` find it by build-id, here and on another machine. The cache is opened as the
// recorder's cache is (io/trusted_dir): no symlink below its root is followed.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "perf_data/build_id.hpp"

namespace arec::symbols {

// Stores `image` as <root>/<name>/<hex>/elf, through a temporary name so that a reader never
// sees half a file, and links .build-id/<2 hex>/<38 hex> to its directory. An object already
// stored under that build-id is kept: equal build-ids name equal contents. Throws
// io::untrusted_directory for a cache that is not safe to write into, std::system_error naming
// the call and the path for a failed write (ENOSPC...).
void store_in_build_id_cache(const std::string& root, const std::string& name,
                             const perf_data::build_id& id, std::span<const std::byte> image);

// Links <root>/.build-id/<2 hex>/<38 hex> to ../../<name>/<hex> (`root_fd` is the trusted root
// open, io/trusted_dir); a link already there is kept. Throws std::system_error naming it.
void link_build_id(int root_fd, const std::string& root, const std::string& name,
                   const std::string& hex);

}  // namespace arec::symbols
