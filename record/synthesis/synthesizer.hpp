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

// --- Encoders: each builds one record in `out` and returns the bytes written. ---

inline constexpr std::size_t max_sample_id_size = 48;  // TID+TIME+ID+STREAM_ID+CPU+IDENTIFIER
// Room for the largest record built here: MMAP2 fields (72) + PATH_MAX name + trailer.
using record_buffer = std::array<std::byte, 72 + PATH_MAX + max_sample_id_size>;

struct mmap_fields {
  std::uint16_t misc = 0;
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t start = 0;
  std::uint64_t len = 0;
  std::uint64_t pgoff = 0;
};

struct mmap2_fields {
  std::uint16_t misc = 0;
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t start = 0;
  std::uint64_t len = 0;
  std::uint64_t pgoff = 0;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t inode = 0;
  std::uint64_t inode_generation = 0;
  std::uint32_t prot = 0;
  std::uint32_t flags = 0;
};

// Strings are NUL-terminated and zero-padded to 8 bytes; the trailer is sample_id_size zero
// bytes. A comm is cut to 15 bytes; a file name of PATH_MAX bytes or more becomes "//toolong".
// Throw std::invalid_argument when sample_id_size is not a multiple of 8 or exceeds 48.
std::span<const std::byte> encode_comm(record_buffer& out, std::uint32_t pid, std::uint32_t tid,
                                       std::string_view comm, std::size_t sample_id_size);
std::span<const std::byte> encode_fork(record_buffer& out, std::uint32_t pid, std::uint32_t ppid,
                                       std::uint32_t tid, std::uint32_t ptid,
                                       std::size_t sample_id_size);
std::span<const std::byte> encode_mmap(record_buffer& out, const mmap_fields& fields,
                                       std::string_view filename, std::size_t sample_id_size);
std::span<const std::byte> encode_mmap2(record_buffer& out, const mmap2_fields& fields,
                                        std::string_view filename, std::size_t sample_id_size);

}  // namespace arec::record
