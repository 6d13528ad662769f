// profile_subset: a profile reduced to what its samples refer to. A live recording's builder
// keeps every location, function, mapping and string it has seen, so that each window does
// not symbolize again; each window's pprof carries only its own, or it would grow with the
// recording's age toward the server's size limit.
#pragma once

#include "export/profile.hpp"

namespace arec::exporting {

// Keeps the locations, functions, mappings and strings `p`'s samples reach, renumbered densely
// in their order (ids = position + 1, string 0 = ""); mappings keep their relative order.
void keep_only_referenced(profile& p);

}  // namespace arec::exporting
