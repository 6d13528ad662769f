#include "record/events/event_attrs.hpp"

#include <stdexcept>

#include "record/events/sample_registers.hpp"

namespace arec::record {
namespace {

// The user registers sampled: --user-regs's, and what a DWARF unwinder needs; with --user-regs,
// as perf, only the registers it cannot do without are added (record_command_line warns).
std::uint64_t user_registers(const sampling_config& config) {
  if (config.call_graph != call_graph_mode::dwarf) return config.attrs.user_regs;
  return config.attrs.user_regs ? config.attrs.user_regs | dwarf_minimal_registers
                                : default_sample_registers;
}

perf_event_attr base_attr(const sampling_config& config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.sample_type = shared_sample_type(config.attrs);
  attr.sample_regs_user = config.attrs.user_regs ? user_registers(config) : 0;
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
  return attr;
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
  // -n: as perf, the period or frequency is cleared (freq stays): the event counts but never
  // samples, and the tracking event's side-band records are all that is recorded.
  if (config.attrs.no_samples) attr.sample_period = 0;
  switch (config.call_graph) {
    case call_graph_mode::none:
      break;
    case call_graph_mode::fp:
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
      break;
    case call_graph_mode::dwarf:
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.exclude_callchain_user = 1;
      attr.sample_regs_user = user_registers(config);
      attr.sample_stack_user = config.dwarf_stack_size;
      break;
  }
  return attr;
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
  attr.context_switch = config.attrs.switch_events ? 1 : 0;
  attr.namespaces = config.attrs.namespaces ? 1 : 0;
  attr.cgroup = config.attrs.all_cgroups ? 1 : 0;  // CGROUP records for cgroups created
  return attr;
}

}  // namespace arec::record
