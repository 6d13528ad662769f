#include "record/events/event_attrs.hpp"

#include <stdexcept>

#include "record/events/sample_registers.hpp"

namespace arec::record {
namespace {

// The user registers sampled: --user-regs's, and what a DWARF unwinder needs; with --user-regs,
// as perf, only the registers it cannot do without are added (record_command_line warns).
std::uint64_t user_registers(call_graph_mode mode, std::uint64_t asked) {
  if (mode != call_graph_mode::dwarf) return asked;
  return asked ? asked | dwarf_minimal_registers : default_sample_registers;
}

perf_event_attr base_attr(const sampling_config& config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.sample_type = shared_sample_type(config.attrs);
  attr.sample_regs_user =
      config.attrs.user_regs ? user_registers(config.call_graph, config.attrs.user_regs) : 0;
  attr.sample_regs_intr = config.attrs.intr_regs;
  attr.sample_id_all = 1;
  attr.inherit = config.attrs.inherit ? 1 : 0;
  attr.exclude_guest = 1;
  attr.disabled = 1;
  attr.enable_on_exec = config.workload ? 1 : 0;
  if (config.attrs.no_buffering) {
    attr.wakeup_events = 1;  // as perf: no watermark, a wakeup per record
  } else if (config.wakeup_bytes) {
    attr.watermark = 1;
    attr.wakeup_watermark = config.wakeup_bytes;
  }
  if (config.attrs.clockid) {  // all events on one clock, or their records could not be ordered
    attr.use_clockid = 1;
    attr.clockid = *config.attrs.clockid;
  }
  // --all-cgroups, on every event as perf sets it: CGROUP comes after the id in a sample, so
  // the shared layout up to ID and CPU stays the same.
  if (config.attrs.all_cgroups) attr.sample_type |= PERF_SAMPLE_CGROUP;
  attr.write_backward = config.attrs.overwrite ? 1 : 0;  // on every event, as perf
  return attr;
}

// A frame-pointer chain skips the caller of a frameless function (a leaf, Debian's libc): a
// few bytes of user stack let export and convert put it back (symbols/chain_completion). No
// REGS_USER with it: perf report would then post-unwind (repeating the chain's frames) and
// drop the samples whose IP it lacks. Not where the user's own --user-regs are sampled (perf
// would post-unwind), nor for an event that never samples user space.
void add_fp_stack_snapshot(perf_event_attr& attr) {
  if ((attr.sample_type & PERF_SAMPLE_REGS_USER) || attr.exclude_user || attr.exclude_callchain_user)
    return;
  attr.sample_type |= PERF_SAMPLE_STACK_USER;
  attr.sample_stack_user = fp_stack_snapshot_bytes;
}

// The call graph of one event: its own terms replace -g/--call-graph entirely, as perf's do
// (stack-size alone then means none, max-stack alone frame pointers).
void set_call_graph(perf_event_attr& attr, const event_spec& event, const sampling_config& config) {
  call_graph_mode mode = config.call_graph;
  std::uint32_t stack_size = config.dwarf_stack_size;
  if (event.terms.call_graph_given()) {
    // perf resets -g dwarf's sample bits for the event but leaves its other fields, so even a
    // frame-pointer chain then stops at the kernel (exclude_callchain_user).
    if (mode == call_graph_mode::dwarf) {
      attr.exclude_callchain_user = 1;
      attr.sample_regs_user = user_registers(mode, config.attrs.user_regs);
      attr.sample_stack_user = stack_size;
    }
    mode = event.terms.call_graph.value_or(event.terms.max_stack ? call_graph_mode::fp
                                                                 : call_graph_mode::none);
    stack_size = event.terms.stack_size.value_or(default_dwarf_stack_size);
    if (mode != call_graph_mode::none) attr.sample_max_stack = event.terms.max_stack.value_or(0);
  }
  switch (mode) {
    case call_graph_mode::none:
      break;
    case call_graph_mode::fp:
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
      add_fp_stack_snapshot(attr);
      break;
    case call_graph_mode::dwarf:
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.exclude_callchain_user = 1;
      attr.sample_regs_user = user_registers(mode, config.attrs.user_regs);
      attr.sample_stack_user = stack_size;
      break;
  }
}

// What the event's own terms set over the command line's -c/-F and -i, and :S.
void apply_own_settings(perf_event_attr& attr, const event_spec& event) {
  attr.config1 = event.config1;
  attr.config2 = event.config2;
  if (event.terms.inherit) attr.inherit = *event.terms.inherit ? 1 : 0;
  if (const auto& rate = event.terms.rate) {
    attr.freq = rate->frequency ? 1 : 0;
    attr.sample_period = rate->value;  // sample_freq shares the field
  }
  if (event.group_size > 1 || event.group_member) attr.read_format |= group_read_format;
  if (event.sample_read) {
    // As perf's leader sampling: each sample carries the counts, with group ones read whole
    // (which the kernel allows only without inherit).
    attr.sample_type |= PERF_SAMPLE_READ;
    attr.read_format |= group_read_format;
    if (event.group_size > 1 || event.group_member) {
      attr.read_format |= PERF_FORMAT_GROUP;
      attr.inherit = 0;
    }
  }
}

}  // namespace

std::uint64_t shared_sample_type(const attr_options& attrs) {
  std::uint64_t type = common_sample_type | attrs.sample_fields;
  if (attrs.sample_identifier) type = (type & ~PERF_SAMPLE_ID) | PERF_SAMPLE_IDENTIFIER;
  if (attrs.user_regs) type |= PERF_SAMPLE_REGS_USER;
  if (attrs.intr_regs) type |= PERF_SAMPLE_REGS_INTR;
  return type;
}

sampling_config make_sampling_config(const record_options& options, bool workload) {
  sampling_config config;
  if (options.period) config.period = *options.period;
  if (options.frequency) config.frequency = *options.frequency;
  config.call_graph = options.call_graph;
  config.dwarf_stack_size = options.dwarf_stack_size;
  config.workload = workload;
  config.mmap_build_ids = options.buildid_mmap;
  config.attrs = options.attrs;
  config.delayed = options.delayed;
  return config;
}

std::string limit_frequency(sampling_config& config, bool given_by_user, std::uint64_t max_rate,
                            bool strict) {
  if (config.period || config.attrs.no_samples || config.frequency <= max_rate) return {};
  std::string from = std::to_string(config.frequency), to = std::to_string(max_rate);
  if (strict && given_by_user)
    throw std::runtime_error("maximum frequency rate (" + to + " Hz) exceeded by -F " + from +
                             " (--strict-freq): use a lower -F or raise "
                             "/proc/sys/kernel/perf_event_max_sample_rate");
  config.frequency = max_rate;
  if (!given_by_user)
    return "arec: lowering the default frequency rate from " + from + " Hz to " + to +
           " Hz (kernel.perf_event_max_sample_rate)";
  return "arec: warning: maximum frequency rate (" + to + " Hz) exceeded, throttling from " + from +
         " Hz to " + to +
         " Hz.\narec:   The limit can be raised via "
         "/proc/sys/kernel/perf_event_max_sample_rate; the kernel lowers it when sampling "
         "interrupts take too long.";
}

perf_event_attr sampling_attr(const event_spec& event, const sampling_config& config) {
  perf_event_attr attr = base_attr(config);
  attr.type = event.type;
  attr.config = event.config;
  attr.exclude_user = event.exclude_user;
  attr.exclude_kernel = event.exclude_kernel;
  attr.exclude_hv = event.exclude_hv;
  attr.exclude_guest = event.exclude_guest;
  attr.exclude_host = event.exclude_host;
  attr.exclude_idle = event.exclude_idle;
  attr.pinned = event.pinned;
  attr.exclusive = event.exclusive;
  attr.precise_ip = event.precise_max ? max_precise_ip : event.precise_ip;
  if (config.delayed) attr.enable_on_exec = 0;  // the tracking event still starts at exec
  if (config.attrs.branch_sample_type != 0) {  // -b, -j: needs a PMU that records branches
    attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
    attr.branch_sample_type = config.attrs.branch_sample_type;
  }
  if (config.attrs.per_thread_stat) {
    // As perf -s: each exiting thread's count comes back in a READ record (perf report -T).
    attr.inherit_stat = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                       PERF_FORMAT_ID | read_format_lost;
  }
  if (config.attrs.privileges != privilege_scope::as_given) {  // as perf: the modifiers give way
    attr.exclude_kernel = config.attrs.privileges == privilege_scope::user_only ? 1 : 0;
    attr.exclude_user = config.attrs.privileges == privilege_scope::kernel_only ? 1 : 0;
  }
  attr.sample_type |= PERF_SAMPLE_PERIOD;
  bool tracepoint = event.type == PERF_TYPE_TRACEPOINT;
  if (tracepoint) {
    attr.sample_type |= PERF_SAMPLE_RAW;
    attr.sample_period = config.period ? config.period : 1;  // every hit, as perf does
  } else if (config.period) {
    attr.sample_period = config.period;
  } else {
    attr.freq = 1;
    attr.sample_freq = config.frequency;
  }
  apply_own_settings(attr, event);
  // -n: as perf, the period or frequency is cleared (freq stays): the event counts but never
  // samples, and the tracking event's side-band records are all that is recorded.
  if (config.attrs.no_samples) attr.sample_period = 0;
  set_call_graph(attr, event, config);
  return attr;
}

perf_event_attr off_cpu_time_attr(const sampling_config& config) {
  perf_event_attr attr = base_attr(config);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_BPF_OUTPUT;
  attr.freq = 1;  // as perf 6.1's offcpu-time attr
  attr.sample_freq = 1;
  attr.sample_type |= PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  attr.enable_on_exec = 0;
  if (config.call_graph == call_graph_mode::dwarf) {
    // perf's DWARF mode: the blocked thread's user registers and stack, which perf report
    // unwinds; the chain arec writes then holds no user frames.
    attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = user_registers(config.call_graph, config.attrs.user_regs);
    attr.sample_stack_user = config.dwarf_stack_size;
    attr.exclude_callchain_user = 1;
  }
  return attr;
}

perf_event_attr switch_sampler_attr(const sampling_config& config) {
  perf_event_attr attr = base_attr(config);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  attr.sample_period = 1;
  attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
  attr.exclude_callchain_kernel = 1;
  // The blocking call's caller, which a libc wrapper's missing frame pointer hides, is put
  // back from CFI and this copy (off_cpu_recorder); the samples are never written.
  attr.sample_type |= PERF_SAMPLE_STACK_USER;
  attr.sample_stack_user = off_cpu_stack_snapshot_bytes;
  if (config.call_graph == call_graph_mode::dwarf) {  // what offcpu-time samples then carry
    attr.sample_type |= PERF_SAMPLE_REGS_USER;
    attr.sample_regs_user = user_registers(config.call_graph, config.attrs.user_regs);
    attr.sample_stack_user = config.dwarf_stack_size;
  }
  if (config.delayed) attr.enable_on_exec = 0;
  return attr;
}

void make_group_member(perf_event_attr& member, const perf_event_attr& leader) {
  // The leader enables and disables the whole group.
  member.disabled = 0;
  member.enable_on_exec = 0;
  if (leader.sample_type & PERF_SAMPLE_READ) {
    // Leader sampling: members only count; their counts come in the leader's samples.
    member.freq = 0;
    member.sample_period = 0;
    member.sample_type = leader.sample_type;
  }
}

perf_event_attr tracking_attr(const sampling_config& config) {
  perf_event_attr attr = base_attr(config);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_period = 1;
  // Enabled at once (or at exec): it must see every mmap and exec while arec synthesizes.
  attr.disabled = config.workload ? 1 : 0;
  attr.mmap = 1;
  attr.mmap2 = 1;
  // perf's DWARF unwinder finds the stack and heap through data mappings: without their MMAP2
  // records a dwarf call chain stops at the sampled function.
  // -d resolves data addresses through them too, as perf's mmap_data on its tracking event.
  attr.mmap_data = config.call_graph == call_graph_mode::dwarf ||
                           (config.attrs.sample_fields & PERF_SAMPLE_ADDR) != 0
                       ? 1
                       : 0;
  // Not by default: the kernel would then mark other sessions' MMAP2 records as holding
  // build-ids too (record_scan.hpp). Build-ids are read from the files instead, as perf does.
  attr.build_id = config.mmap_build_ids ? 1 : 0;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.ksymbol = 1;
  attr.bpf_event = 1;
  // --off-cpu needs the switch records too: they say whether a thread was preempted, and when
  // it ran again.
  attr.context_switch = config.attrs.switch_events || config.attrs.off_cpu ? 1 : 0;
  attr.namespaces = config.attrs.namespaces ? 1 : 0;
  attr.cgroup = config.attrs.all_cgroups ? 1 : 0;  // CGROUP records for cgroups created
  return attr;
}

}  // namespace arec::record
