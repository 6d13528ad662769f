// build_id_cache: perf's build-id cache (~/.debug), filled while recording so that a file keeps
// resolving after the binaries it sampled are rebuilt or removed. The layout is perf's
// (io/build_id_cache_layout):
//   <root>/<path>/<build-id>/elf            the file (a hard link where possible, else a copy)
//   <root>/[kernel.kallsyms]/<build-id>/kallsyms   a copy of /proc/kallsyms
//   <root>/[vdso]/<build-id>/vdso           the vdso image
//   <root>/.build-id/<2 hex>/<38 hex>  ->  ../../<path>/<build-id>
#pragma once

#include <functional>
#include <string>

#include "model/dso.hpp"

namespace arec::record {

class build_id_cache {
 public:
  using warn_function = std::function<void(const std::string&)>;
  build_id_cache(std::string root, warn_function warn);

  // Stores `object` under its build-id unless it is stored already. Does nothing for a dso
  // without a build-id or one perf does not cache (modules, [heap], ...). A file whose content
  // no longer has the build-id the recording saw (rebuilt since it was mapped) is reported and
  // left out; other failures are reported once (a full disk must not flood stderr).
  void add(const model::dso& object);

  const std::string& root() const noexcept { return root_; }

 private:
  bool store(const model::dso& object, const std::string& hex);

  const std::string root_;
  const warn_function warn_;
  bool failure_reported_ = false;
};

}  // namespace arec::record
