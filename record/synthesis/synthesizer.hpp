// synthesizer: the records perf writes for tasks and mappings that existed before recording
// began (FORK, COMM, MMAP2 from /proc), and the encoders that lay those records out.
// Layouts and rules: docs/perf-data-format.md, "sample_id trailer", "Kernel record bodies",
// "Task synthesis".
#pragma once

#include <linux/limits.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "io/record_sink.hpp"
#include "perf_data/record_encoders.hpp"

namespace arec::model {
class machine;
}

namespace arec::record {

struct synthesis_config {
  // Bytes of the all-zero sample_id trailer appended to every record; it follows the first
  // attr's sample_type (arec's TID|TIME|CPU|IDENTIFIER: 32). A multiple of 8, at most 48.
  std::size_t sample_id_size = 32;
  // Also emit readable non-executable mappings (misc MMAP_DATA), like perf record -d.
  bool data_mmaps = false;
  // Emit the tasks' mappings at all (perf's --synth=task leaves them out).
  bool task_mmaps = true;
  // perf's --proc-map-timeout: a process whose maps take longer is cut short and its last
  // MMAP2 carries misc PROC_MAP_PARSE_TIMEOUT.
  std::chrono::milliseconds proc_map_timeout{500};
  // Workers scanning processes in parallel in synthesize_all_tasks (--num-thread-synthesize).
  // The SET of records does not depend on it; their order across processes does.
  unsigned threads = 1;
  // When set, every synthesized record is also applied to this model, by the worker that
  // built it (the model is safe to share).
  model::machine* model = nullptr;
  // Where /proc is; tests point it at a fixture tree.
  const char* proc_root = "/proc";
};

struct synthesis_counts {
  std::size_t processes = 0;  // thread-group leaders described
  std::size_t threads = 0;    // tasks (leaders included) given a COMM
  std::size_t mmaps = 0;      // MMAP2 records
};

// System-wide: for every task of every process under /proc, FORK (misc FORK_EXEC; the leader's
// parent is its PPid, another thread's parent is its leader), then COMM, and for leaders that
// are not kernel threads one MMAP2 per executable mapping (plus readable data mappings with
// misc MMAP_DATA|USER if config.data_mmaps). Tasks that vanish mid-scan and maps we may not read
// are skipped silently. Allocates nothing per task or mapping. Throws std::system_error only
// when /proc itself cannot be read, std::invalid_argument for a bad sample_id_size, and
// whatever the sink throws. With config.threads > 1 the processes are shared out to that many
// threads (the caller's included), each building records into a buffer of its own and handing
// whole batches to `sink` under a lock, so `sink` is only ever called by one thread at a time;
// that path allocates its buffers once per scan, still nothing per task or mapping.
synthesis_counts synthesize_all_tasks(io::record_sink& sink, const synthesis_config& config);

// For -p and workload targets: COMM for every thread of each given process (a pid that is a
// thread stands for its process; each process once), MMAP2s for the leaders, no FORK.
// Vanished pids are skipped. Same exceptions as synthesize_all_tasks.
synthesis_counts synthesize_processes(io::record_sink& sink, std::span<const int> pids,
                                      const synthesis_config& config);

}  // namespace arec::record
