// build_id_cache_layout: where perf's build-id cache is and how it names what it holds, shared
// by the recorder that fills it and `arec archive` that packs it:
//   <root>/<path>/<build-id>/{elf,kallsyms,vdso}     an object under the name it was mapped by
//   <root>/.build-id/<2 hex>/<38 hex>  ->  ../../<path>/<build-id>
#pragma once

#include <string>

namespace arec::symbols {

// Where perf keeps its cache: perfconfig's buildid.dir (~/.perfconfig over /etc/perfconfig),
// else $HOME/.debug. $PERF_BUILDID_DIR is not read: perf 6.1 only sets it, for the scripts it
// runs, so a value in the environment would send arec's cache where perf report never looks.
std::string default_build_id_dir();

// ".build-id/ab/cdef...", the link of the build-id whose lower-case hex is `hex`, relative to
// the cache's root; build_id_link_path puts it under `root`.
std::string build_id_link_name(const std::string& hex);
std::string build_id_link_path(const std::string& root, const std::string& hex);

// "<root>/<name>/<hex>": the directory of the object mapped as `name` ("/usr/bin/ls",
// "[vdso]") with that build-id.
std::string build_id_object_dir(const std::string& root, const std::string& name,
                                const std::string& hex);

// The target of the .build-id link to that directory, relative to the link.
std::string build_id_link_target(const std::string& name, const std::string& hex);

}  // namespace arec::symbols
