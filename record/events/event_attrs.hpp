// event_attrs: the perf_event_attr of each event arec opens: the sampling events the user
// asked for and the tracking event that carries MMAP/COMM/FORK/EXIT side-band records.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>

#include "record/events/event_spec.hpp"
#include "record/record_options.hpp"

namespace arec::record {

// Every attr has the same fields before and after ID (IP, TID, TIME | CPU), so the id sits at
// the same place in the records of every event: they can share one ring, and perf's reader
// accepts the attrs (its id_pos/is_pos rule). ID rather than IDENTIFIER, as perf itself does
// for one event: the varying TIME then sits between constant fields, and -z streams compress
// about 3% better (docs/performance-log.md). --sample-identifier asks for IDENTIFIER instead.
inline constexpr std::uint64_t common_sample_type =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;

// The sample_type every attr of a recording has, the tracking event's included: the common
// fields and those the options add to every event, as perf adds them to all of its events.
// ADDR (-d) sits before ID in a SAMPLE, so it must be on every attr or the id would move.
std::uint64_t shared_sample_type(const attr_options& attrs);

// PERF_FORMAT_LOST (Linux 6.0), spelled out for older kernel headers.
inline constexpr std::uint64_t read_format_lost = 1u << 4;

// The read_format perf gives the events of a group: each count with its id and lost samples.
inline constexpr std::uint64_t group_read_format = PERF_FORMAT_ID | read_format_lost;

// The highest precise_ip the ABI knows; a 'P' event starts there and is lowered on refusal.
inline constexpr std::uint8_t max_precise_ip = 3;

struct sampling_config {
  std::uint64_t frequency = 4000;  // used when period == 0
  std::uint64_t period = 0;
  call_graph_mode call_graph = call_graph_mode::none;
  std::uint32_t dwarf_stack_size = 8192;
  std::uint32_t wakeup_bytes = 0;  // ring fill level that wakes the drain; 0: the kernel's half
  bool workload = false;           // enable at the workload's exec instead of by ioctl
  bool delayed = false;            // -D: sampling events are enabled later, by ioctl
  bool mmap_build_ids = false;     // --buildid-mmap: MMAP2 records carry build-ids
  attr_options attrs;              // -i, --all-user, -k, --switch-events, -n... as given
};

sampling_config make_sampling_config(const record_options& options, bool workload);
// perf's answer to a frequency above kernel.perf_event_max_sample_rate (which the kernel would
// refuse): sample at the maximum. Returns the warning to print, "" when the frequency fits.
// With `strict` (--strict-freq) a frequency the user gave above the limit is an error instead:
// throws std::runtime_error with perf's advice.
std::string limit_frequency(sampling_config& config, bool given_by_user, std::uint64_t max_rate,
                            bool strict = false);
perf_event_attr sampling_attr(const event_spec& event, const sampling_config& config);
perf_event_attr tracking_attr(const sampling_config& config);
// --off-cpu: the attr of perf's offcpu-time event (a bpf-output software event, as perf 6.1
// declares it), under which arec writes the off-CPU samples it makes. Never enabled: its fds
// give the samples their ids.
perf_event_attr off_cpu_time_attr(const sampling_config& config);
// --off-cpu: the hidden event that samples each switch-out with the user stack the thread
// leaves (a context-switches sample fires in the scheduler, so kernel samples must be allowed;
// only the user part of the chain is kept). Its samples are consumed, never written.
perf_event_attr switch_sampler_attr(const sampling_config& config);
// Turns `member`, made by sampling_attr, into a member of the group `leader` leads, as perf
// sets group members: enabled with their leader, and only counting when the leader samples
// their counts (:S).
void make_group_member(perf_event_attr& member, const perf_event_attr& leader);

}  // namespace arec::record
