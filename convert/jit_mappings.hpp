// jit_mappings: the JIT code of the processes whose perf maps or jitdumps the recording
// captured, made nameable by perf report and hotspot of the converted file, with no perf inject.
// perf 6.1 names JIT code only from /tmp/perf-PID.map on the reporting host, which a container's
// process (or another machine's) never left there, and a jitdump only through perf inject, which
// writes one ELF per function. So each such process's code becomes an ELF (symbols/jit_elf) per
// code generation (symbols/jit_generations; a perf map is one) in the build-id cache, and its
// anonymous executable mappings become MMAP2s naming that ELF, listed in BUILD_ID: perf then
// loads the symbols by build-id. Where a generation begins, the process's mappings are mapped
// again, to its ELF, at that time. docs/convert.md, "JIT code".
#pragma once

#include <sys/types.h>

#include <array>
#include <map>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "convert/record_clock.hpp"
#include "io/record_sink.hpp"
#include "perf_data/build_id.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "symbols/jit_elf.hpp"
#include "symbols/jit_generations.hpp"

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

  // Adds the jitdumps the recording captured: each process's code generations name its code
  // (its perf map's lines, if it has one too, come first in each). `clock` finds the times of
  // the file's records, where a generation's mappings get theirs.
  void add_jitdumps(perf_data::captured_jitdumps dumps, record_clock clock);

  // The name the converted file gives the ELF of process `pid`'s JIT code in its mapping of
  // `range`: not /tmp/perf-* (perf would read it as a perf map on the reporting host) nor
  // jit-*.dump (perf inject would read it as a jitdump), not //anon or [...] (anonymous or
  // special to perf); it says what the ELF was made of: the perf map, or code generation
  // `generation` (from 0) of the jitdump.
  static std::string elf_name(pid_t pid, symbols::jit_code_range range);
  static std::string dump_elf_name(pid_t pid, symbols::jit_code_range range,
                                   std::size_t generation);

  // `record` (a whole record that perf 6.1 reads) as the converted file holds it: an MMAP or
  // MMAP2 of anonymous executable memory ("//anon", "/dev/zero...", "/anon_hugepage..." or
  // MAP_HUGETLB, as perf's is_anon_memory) of a process with captured JIT code becomes an MMAP2
  // of the ELF of its code in that mapping in the generation current at its time, pgoff 0, the
  // same sample_id trailer; anything else is returned as it is. The span lives until the next call.
  // The ELF is made and stored at the first mapping that names it; when that fails, warnings()
  // says so and the mapping stays anonymous.
  std::span<const std::byte> rewrite(std::span<const std::byte> record);

  // Writes to `out` what must come before a record at `time`: for each process whose next
  // generation begins by then, an MMAP2 of each of its rewritten mappings naming that
  // generation's ELF (or "//anon" when it has none: unnamed, never named by older code), at the
  // generation's time. Called with the records' times in order.
  void switch_generations(std::uint64_t time, io::record_sink& out);
  bool switches_pending() const noexcept { return next_switch_ < switches_.size(); }

  // BUILD_ID entries (the host's, pid -1) of the ELFs that mappings name.
  std::vector<perf_data::build_id_entry> build_ids() const;
  // Mappings rewritten so far, and those written again for a new generation.
  std::uint64_t rewritten() const noexcept { return rewritten_; }
  std::uint64_t remapped() const noexcept { return remapped_; }
  // What could not be done, one line each, in the user's terms.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  struct elf_state {
    bool tried = false;      // the ELF was made (or failed) already
    perf_data::build_id id;  // empty: no ELF (no function, or it could not be stored)
  };
  // A rewritten mapping, to map again at each generation: the record's pid, tid, start and
  // len, its MMAP2 prot, flags and misc, its sample_id trailer; its ELF of each generation.
  struct mapping {
    std::array<std::byte, 24> place{};
    std::uint32_t prot = 0, flags = 0;
    std::uint16_t misc = 0;
    std::vector<std::byte> trailer;
    std::vector<elf_state> elfs;
  };
  struct process {
    std::string map_text;                          // the captured perf map
    std::optional<symbols::jit_generations> dump;  // the captured jitdump's generations
    std::vector<std::uint64_t> generations{0};     // when each begins; one without a dump
    std::size_t current = 0;                       // the generation switched to last
    std::string text;                              // the perf-map text of generation text_of
    std::size_t text_of = ~std::size_t{0};
    bool left_out_said = false;  // the functions past the table's bound, said once
    bool not_unwound_said = false;  // unwinding information left out, said once
    std::map<std::pair<std::uint64_t, std::uint64_t>, mapping> mappings;  // by start, len
  };
  struct switch_point {
    std::uint64_t time;
    pid_t pid;
    std::size_t generation;
  };

  // The ELF of `mapped`'s code in `generation`, made at the first call; null when it has none.
  const perf_data::build_id* elf_of(pid_t pid, process& owner, mapping& mapped,
                                    std::size_t generation);
  void make_elf(pid_t pid, process& owner, mapping& mapped, std::size_t generation);
  std::string name_of(pid_t pid, const process& owner, const mapping& mapped,
                      std::size_t generation) const;
  std::span<const std::byte> compose(const mapping& mapped, const std::string& name);

  std::unordered_map<pid_t, process> processes_;
  std::unordered_set<pid_t> reused_pids_;  // named by two maps or dumps: named by neither
  perf_data::captured_jitdumps dumps_;  // the bytes the generations name
  std::optional<record_clock> clock_;
  std::vector<switch_point> switches_;  // by time
  std::size_t next_switch_ = 0;
  std::string cache_root_;
  std::uint64_t cache_room_;  // bytes the ELFs may still take
  std::vector<std::byte> buffer_;
  std::uint64_t rewritten_ = 0;
  std::uint64_t remapped_ = 0;
  std::vector<std::string> warnings_;
};

// BUILD_ID payload `payload` (possibly empty) with `entries` appended: the feature is a
// sequence of entries, so perf reads the recording's own ones and these alike.
std::vector<std::byte> with_build_ids(std::span<const std::byte> payload,
                                      std::span<const perf_data::build_id_entry> entries);

}  // namespace arec::convert
