// record_options: what a recording is asked to do, as the command line
// (cli/record_command_line) sets it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "record/events/event_spec.hpp"

namespace arec::record {

// --all-user / --all-kernel: one privilege level for every event, overriding :u/:k.
enum class privilege_scope { as_given, user_only, kernel_only };

// What the options ask of every event's attr, handed to event_attrs as one.
struct attr_options {
  bool inherit = true;                                     // false with -i/--no-inherit
  privilege_scope privileges = privilege_scope::as_given;  // --all-user, --all-kernel
  std::optional<int> clockid;                              // -k/--clockid: times from it
  bool switch_events = false;  // --switch-events: the tracking event writes SWITCH records
  bool namespaces = false;     // --namespaces: ... and NAMESPACES records
  bool no_samples = false;     // -n/--no-samples: events count but never sample
  bool no_buffering = false;   // --no-buffering: every record wakes the drain
  bool per_thread_stat = false;  // -s/--stat: per-thread counts (READ records) for perf report -T
  std::uint64_t branch_sample_type = 0;  // -b, -j: PERF_SAMPLE_BRANCH_* (0: no branch stacks)
  // -d, -W, -R, --phys-data, --data-page-size, --code-page-size: PERF_SAMPLE_* fields every
  // event records, as perf puts them on all its events.
  std::uint64_t sample_fields = 0;
  std::uint64_t user_regs = 0;     // --user-regs: PERF_REG_* mask sampled in user space (0: none)
  std::uint64_t intr_regs = 0;     // -I/--intr-regs: ... at the interrupt (0: none)
  bool sample_identifier = false;  // --sample-identifier: IDENTIFIER instead of ID
  // --all-cgroups: samples carry their cgroup id, the tracking event writes CGROUP records.
  bool all_cgroups = false;
  // --overwrite: every event writes backward into a ring it overwrites (a flight recorder).
  bool overwrite = false;
  // --off-cpu: perf's offcpu-time event, made from the threads' switches (record/offcpu).
  bool off_cpu = false;
};

inline constexpr std::uint64_t default_frequency_hz = 4000;
inline constexpr std::uint32_t default_dwarf_stack_size = 8192;
inline constexpr std::uint32_t max_dwarf_stack_size = 65528;  // USHRT_MAX rounded down to 8
// The user stack copied beside a frame-pointer chain (-g): enough for the return address of a
// frameless leaf or libc function (docs/performance.md, "Frame-pointer stacks completed").
inline constexpr std::uint32_t fp_stack_snapshot_bytes = 16;
// The user stack copied at each switch-out with --off-cpu (never written to the file): the
// frames of libc's blocking wrappers (pthread_cond_wait's are the deepest) and their caller's
// return address.
inline constexpr std::uint32_t off_cpu_stack_snapshot_bytes = 256;

// --synth: what is synthesized of what already runs (perf's task, mmap and cgroup bits; the
// kernel's maps always are). The cgroup bit names the existing cgroups, with --all-cgroups only.
struct synth_options {
  bool tasks = true;  // FORK and COMM of the running tasks
  bool mmaps = true;  // their MMAP2s (perf: "mmap" implies "task")
  bool cgroups = true;
  friend bool operator==(const synth_options&, const synth_options&) = default;
};

// One stretch of -D/--delay when sampling is on: from start_ms after the workload starts (or
// the recording, without one) until end_ms, or to the end.
struct enable_window {
  std::uint64_t start_ms = 0;
  std::optional<std::uint64_t> end_ms;
  friend bool operator==(const enable_window&, const enable_window&) = default;
};

// --control fd:CTL[,ACK] or fifo:CTL[,ACK]: where commands come from and acks go to.
struct control_spec {
  bool fifo = false;
  int control_fd = -1;       // fd: an inherited descriptor
  int ack_fd = -1;           // fd: -1 without one
  std::string control_path;  // fifo: opened when the recording starts
  std::string ack_path;      // fifo: empty without one
  friend bool operator==(const control_spec&, const control_spec&) = default;
};

// One complete output and the wall-clock window it covers (ns since the epoch): from the start
// of the recording or the previous cut, to its own cut. Windows follow each other without gap.
struct finished_output {
  std::string path;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct record_options {
  bool system_wide = false;        // -a/--all-cpus; also set when there is no workload, -p or -C
  std::vector<int> cpus;           // -C/--cpu LIST; empty = all online
  std::vector<int> pids;           // -p/--pid PID[,PID], repeatable; checked for existence later
  std::vector<int> tids;           // -t/--tid TID[,TID], repeatable: those threads only
  std::optional<std::string> user;  // -u/--uid USER (name or uid): the processes it runs
  bool per_thread = false;          // --per-thread: a ring per task (for task targets, as in perf)
  std::vector<event_spec> events;  // -e/--event, repeatable; default {cycles}
  std::optional<std::uint64_t> frequency;              // -F/--freq HZ|max
  std::optional<std::uint64_t> period;                 // -c/--count PERIOD; exclusive with -F
  call_graph_mode call_graph = call_graph_mode::none;  // -g (fp), --call-graph fp|dwarf[,SIZE]
  std::uint32_t dwarf_stack_size = default_dwarf_stack_size;  // multiple of 8, 8..65528
  std::optional<std::uint32_t> mmap_pages;      // -m/--mmap-pages PAGES; a power of two
  std::optional<std::uint32_t> aux_mmap_pages;  // -m PAGES,AUX; for AUX area events only
  std::string output_path = "perf.data";        // -o/--output; "-" is standard output (pipe mode)
  bool output_given = false;  // -o was given (without it, a pipe on stdout is used)
  bool quiet = false;                                         // -q/--quiet
  int verbose = 0;                                            // -v/--verbose, counted
  std::optional<double> duration_s;                           // --duration SECONDS, > 0
  std::optional<std::string> threads_spec;     // --threads[=SPEC]; bare --threads is ""
  int compression_level = 0;                   // 0 = off; -z/--compress = 1; 1..22
  std::uint64_t mmap_flush = 1;                // --mmap-flush BYTES, >= 1
  // --switch-output[=signal|SIZE|TIME]: finish the output and go on into a fresh one on
  // SIGUSR2, after SIZE bytes or every TIME; implies timestamp_filename (as in perf).
  struct output_switch {
    bool on_signal = false;
    std::uint64_t size = 0;    // bytes, 0 for none
    std::chrono::milliseconds time{0};  // 0 for none
  };
  std::optional<output_switch> switch_output;
  std::size_t switch_max_files = 0;  // --switch-max-files N: rotated files kept, 0 for all
  bool timestamp_filename = false;   // --timestamp-filename: the final output is PATH.<time>
  std::uint64_t max_size = 0;        // --max-size SIZE: stop once the output holds SIZE; 0 none
  // --off-cpu-thresh MS: a block at least this long is a sample of its own at its end; shorter
  // ones are summed per thread and stack until the file ends (perf 6.16's option and default).
  std::uint64_t off_cpu_thresh_ms = 500;
  bool buildid_mmap = false;                   // --buildid-mmap: the kernel puts build-ids in MMAP2
  bool dry_run = false;                        // --dry-run
  attr_options attrs;                          // what every event's attr gets
  // -D/--delay: sampling starts disabled and follows these windows; none with -D -1 (enabled
  // only by an "enable" over --control; without one nothing is sampled, as in perf).
  bool delayed = false;
  std::vector<enable_window> enable_windows;
  std::optional<control_spec> control;         // --control
  bool strict_freq = false;                    // --strict-freq: refuse -F above the limit
  bool no_buildid = false;                     // -B/--no-buildid: no BUILD_ID feature, no cache
  bool no_buildid_cache = false;               // -N/--no-buildid-cache
  bool buildid_all = false;                    // --buildid-all: cache every mapped dso
  // At the end, what debuginfod may take in all to fetch the debug files of the sampled objects
  // no local file names (only with DEBUGINFOD_URLS set, and a cache): docs/symbols.md.
  std::chrono::seconds debuginfod_deadline{5};  // --debuginfod-deadline; 0: no fetch
  std::optional<unsigned> synthesize_threads;  // --num-thread-synthesize N, >= 1
  std::optional<int> realtime_priority;        // -r/--realtime PRIO: streaming threads FIFO
  synth_options synth;                         // --synth=no|all|task|mmap|cgroup[,...]
  std::vector<std::string> workload;           // after "--" or from the first non-option
  std::vector<std::string> notes;              // what the parser adjusted, for the user (unless -q)
  // Told on the control thread of each output (file or --threads directory) once it is
  // complete: every rotated one, then the last. Empty: nobody is told. (--push exports them.)
  std::function<void(const finished_output&)> on_output_finished;
  // The outputs are removed once on_output_finished has used them (--push without -o): they
  // are not announced, nor offered for reading.
  bool transient_outputs = false;
};

// How the events sample: every `value` events (period) or `value` times a second (frequency).
struct sampling {
  bool use_frequency = true;
  std::uint64_t value = default_frequency_hz;
};

// kernel.perf_event_max_sample_rate; throws std::system_error when it cannot be read.
std::uint64_t read_max_sample_rate();

// The period if -c was given, else the frequency if -F was given, else 4000 Hz.
sampling effective_sampling(const record_options& options);

}  // namespace arec::record
