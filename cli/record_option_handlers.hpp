// record_option_handlers: what the record command line's option table (cli/record_command_line)
// calls, one unit per family of options as docs/perf-options.md groups them, and the rules
// between options, settled once every option is known. Only the record command line includes it.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/option_table.hpp"
#include "fleet/push_options.hpp"
#include "record/record_options.hpp"

namespace arec::cli {

// What the handlers fill in; a --help or --version request stops the parsing.
struct record_state {
  record::record_options options;
  enum class request_kind { none, help, version, register_list };
  request_kind request = request_kind::none;
  bool finished() const { return request != request_kind::none; }
  std::size_t last_events_start = 0;  // where the last -e's events begin in options.events
  std::string frequency_spelled;      // "-F" or "--freq", for the -F/-c conflict message
  std::string period_spelled;
  std::size_t cgroups_given = 0;  // -G names so far, empty ones included (perf's nr_cgroups)
  bool group = false;             // --group: applied once every -e is known
  bool latency = false;           // --latency: judged once the target is known
  std::optional<fleet::push_options> push;  // any --push* option
};

// Targets (cli/record_options_targets): -C, -p, -t, -u, -G.
void apply_cpus(record_state& state, const option_use& use);
void apply_pids(record_state& state, const option_use& use);
void apply_tids(record_state& state, const option_use& use);
void apply_user(record_state& state, const option_use& use);
void apply_cgroups(record_state& state, const option_use& use);
// perf's target rules, the default target, and the options that depend on the target.
void settle_targets(record_state& state);

// Event selection and sampling rate (cli/record_options_events): -e, --filter,
// --exclude-perf, -F, -c, --all-user, --all-kernel, -k.
void apply_events(record_state& state, const option_use& use);
void apply_filter(record_state& state, const option_use& use);
void apply_exclude_perf(record_state& state, const option_use& use);
void apply_frequency(record_state& state, const option_use& use);
void apply_period(record_state& state, const option_use& use);
void apply_all_user(record_state& state, const option_use& use);
void apply_all_kernel(record_state& state, const option_use& use);
void apply_clockid(record_state& state, const option_use& use);
// -F against -c, the default event, --group.
void settle_events(record_state& state);

// Sample contents (cli/record_options_samples): call graphs, registers, branches, off-cpu.
void apply_call_graph(record_state& state, const option_use& use);
void apply_user_regs(record_state& state, const option_use& use);
void apply_intr_regs(record_state& state, const option_use& use);
void apply_branch_filter(record_state& state, const option_use& use);
void apply_off_cpu_thresh(record_state& state, const option_use& use);
// --call-graph dwarf against a --user-regs subset.
void settle_samples(record_state& state);

// A sample field that perf's option adds to every event.
template <std::uint64_t fields>
void add_sample_fields(record_state& state, const option_use&) {
  state.options.attrs.sample_fields |= fields;
}

// perf's -W: the weight as a struct where the kernel has it (x86's form since Linux 5.12).
#if defined(__x86_64__) || defined(__i386__)
inline constexpr std::uint64_t sample_weight_field = PERF_SAMPLE_WEIGHT_STRUCT;
#else
inline constexpr std::uint64_t sample_weight_field = PERF_SAMPLE_WEIGHT;
#endif

// Output and rotation (cli/record_options_output): -o, -z, --switch-output, --max-size,
// --debuginfod-deadline.
void apply_output(record_state& state, const option_use& use);
void apply_compression(record_state& state, const option_use& use);
void apply_switch_output(record_state& state, const option_use& use);
void apply_switch_max_files(record_state& state, const option_use& use);
void apply_max_size(record_state& state, const option_use& use);
void apply_debuginfod_deadline(record_state& state, const option_use& use);

// Buffers and threads (cli/record_options_buffers): -m, --mmap-flush, --threads, -r, --synth.
void apply_mmap_pages(record_state& state, const option_use& use);
void apply_mmap_flush(record_state& state, const option_use& use);
void apply_threads(record_state& state, const option_use& use);
void apply_realtime(record_state& state, const option_use& use);
void apply_synth(record_state& state, const option_use& use);
void apply_synthesize_threads(record_state& state, const option_use& use);
// -z against rings too large for perf's reader.
void settle_buffers(record_state& state);

// Run control (cli/record_options_control): -D, --control, --duration.
void apply_delay(record_state& state, const option_use& use);
void apply_control(record_state& state, const option_use& use);
void apply_duration(record_state& state, const option_use& use);

// Fleet push (cli/record_options_push): --push and its companions.
void apply_push(record_state& state, const option_use& use);
void settle_push(record_state& state);

}  // namespace arec::cli
