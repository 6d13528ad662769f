// jit_mappings: the JIT code of the processes whose perf maps the recording captured, made
// nameable by perf report of the converted file. perf 6.1 names JIT code only from
// /tmp/perf-PID.map on the reporting host, which a container's process (or another machine's)
// never left there. So each such process's map becomes an ELF (symbols/jit_elf) in the build-id
// cache, and its anonymous executable mappings become MMAP2s naming that ELF, listed in
// BUILD_ID: perf then loads the symbols by build-id. docs/convert.md, "JIT code".
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "perf_data/build_id.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"

namespace arec::convert {

class jit_mappings {
 public:
  // What one conversion adds to the build-id cache at most, as one recording may copy into it
  // (record/synthesis/build_id_cache's limit): a process writes its own perf map, and arec
  // often converts as root into the user's cache.
  static constexpr std::uint64_t default_cache_bytes = std::uint64_t{1} << 30;

  // `maps` as the recording captured them; ELFs go into the build-id cache at `cache_root`,
  // `cache_bytes` of them at most.
  jit_mappings(std::vector<perf_data::captured_perf_map> maps, std::string cache_root,
               std::uint64_t cache_bytes = default_cache_bytes);

  // The name the converted file gives process `pid`'s JIT ELF: not /tmp/perf-* (perf would
  // read it as a perf map on the reporting host), not //anon or [...] (anonymous or special to
  // perf); its base name says that it is the process's perf map made into an ELF.
  static std::string elf_name(pid_t pid);

  // `record` (a whole record that perf 6.1 reads) as the converted file holds it: an MMAP or
  // MMAP2 of anonymous executable memory ("//anon", "/dev/zero...", "/anon_hugepage..." or
  // MAP_HUGETLB, as perf's is_anon_memory) of a process with a captured map becomes an MMAP2
  // of that map's ELF with pgoff = its start, the same sample_id trailer; anything else is
  // returned as it is. The span lives until the next call. The ELF is made and stored at the
  // first such mapping of its process; when that fails, warnings() says so and the process's
  // mappings stay anonymous.
  std::span<const std::byte> rewrite(std::span<const std::byte> record);

  // BUILD_ID entries (the host's, pid -1) of the ELFs that rewritten mappings name.
  std::vector<perf_data::build_id_entry> build_ids() const;
  // Mappings rewritten so far.
  std::uint64_t rewritten() const noexcept { return rewritten_; }
  // What could not be done, one line each, in the user's terms.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  struct process {
    std::string text;        // the captured map
    bool tried = false;      // the ELF was made (or failed) already
    perf_data::build_id id;  // empty: no ELF (no function in the map, or it could not be stored)
  };

  const perf_data::build_id* elf_of(pid_t pid);
  void make_elf(pid_t pid, process& owner);

  std::unordered_map<pid_t, process> processes_;
  std::string cache_root_;
  std::uint64_t cache_room_;  // bytes the ELFs may still take
  std::vector<std::byte> buffer_;
  std::uint64_t rewritten_ = 0;
  std::vector<std::string> warnings_;
};

// BUILD_ID payload `payload` (possibly empty) with `entries` appended: the feature is a
// sequence of entries, so perf reads the recording's own ones and these alike.
std::vector<std::byte> with_build_ids(std::span<const std::byte> payload,
                                      std::span<const perf_data::build_id_entry> entries);

}  // namespace arec::convert
