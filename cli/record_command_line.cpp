#include "cli/record_command_line.hpp"

#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>

#include "cli/option_table.hpp"
#include "cli/option_values.hpp"
#include "export/otlp_writer.hpp"
#include "fleet/otlp_environment.hpp"
#include "fleet/push_options.hpp"
#include "io/cpu_list.hpp"
#include "record/events/event_list.hpp"
#include "record/events/event_spec.hpp"
#include "record/events/sample_registers.hpp"
#include "record/session/control_channel.hpp"

namespace arec::cli {
namespace {

using record::call_graph_mode;
using record::privilege_scope;
using record::record_options;

// What the handlers fill in; a --help or --version request stops the parsing.
struct record_state {
  record_options options;
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

// --push and its companions: their values are fleet's to judge.
void apply_push(record_state& state, const option_use& use) {
  if (!state.push) state.push.emplace();
  std::string option = "--" + std::string(use.spelled.substr(use.spelled.find_first_not_of('-')));
  fleet::apply_push_option(*state.push, option, use.value);
}

void apply_cpus(record_state& state, const option_use& use) {
  try {
    state.options.cpus = io::parse_cpu_list(use.value);
  } catch (const std::invalid_argument& error) {
    reject(use, error.what());
  }
  if (state.options.cpus.empty()) reject(use, "the cpu list is empty");
}

// PID[,PID...] or TID[,TID...] into `ids`.
void add_task_ids(std::vector<int>& ids, const option_use& use, std::string_view what) {
  std::string_view rest = use.value;
  for (;;) {
    auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    std::optional<std::uint64_t> pid = parse_unsigned(part);
    if (!pid || *pid == 0 || *pid > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      reject(use, io::quoted(part) + " is not a " + std::string(what) + " id (a positive integer)");
    ids.push_back(static_cast<int>(*pid));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

void apply_events(record_state& state, const option_use& use) {
  state.last_events_start = state.options.events.size();
  try {
    for (record::event_spec& event : record::parse_event_list(use.value))
      state.options.events.push_back(std::move(event));
  } catch (const io::usage_error& error) {
    reject(use, error.what());
  }
}

// --filter and --exclude-perf act, as in perf, on every event of the -e just before them (all
// the tracepoints of a wildcard or a list), which must all be tracepoints: arec has none of the
// hardware tracers whose address filters perf also takes.
void filter_last_events(record_state& state, const option_use& use, std::string_view filter) {
  auto refuse = [&](const std::string& problem) {
    if (!use.value.empty()) reject(use, problem);
    throw io::usage_error(std::string(use.spelled) + ": " + problem);  // a flag has no value
  };
  std::span<record::event_spec> last{state.options.events};
  last = last.subspan(state.last_events_start);
  if (last.empty()) refuse("must follow the -e option of the tracepoints it filters");
  for (const record::event_spec& event : last)
    if (!event.tracepoint)
      refuse("must follow a -e of tracepoints; " + io::quoted(event.name) +
             " is not a tracepoint (arec filters only tracepoints)");
  for (record::event_spec& event : last) record::add_filter(event, filter);
}

void apply_filter(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the filter is empty");
  filter_last_events(state, use, use.value);
}

// As perf, the recorder's own pid; event_set adds the threads that drain the rings.
void apply_exclude_perf(record_state& state, const option_use& use) {
  filter_last_events(state, use, "common_pid != " + std::to_string(::getpid()));
  for (auto& event : std::span(state.options.events).subspan(state.last_events_start))
    event.exclude_recorder = true;
}

void apply_frequency(record_state& state, const option_use& use) {
  std::uint64_t hz = 0;
  if (use.value == "max") {
    hz = record::read_max_sample_rate();
  } else {
    std::optional<std::uint64_t> value = parse_unsigned(use.value);
    if (!value) reject(use, "expected a frequency in Hz or 'max'");
    if (*value == 0) reject(use, "the frequency must be at least 1 Hz");
    hz = *value;
  }
  state.options.frequency = hz;
  state.frequency_spelled = std::string(use.spelled);
}

void apply_period(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> value = parse_unsigned(use.value);
  if (!value) reject(use, "expected a period: a number of events between samples");
  if (*value == 0) reject(use, "the period must be at least 1");
  state.options.period = *value;
  state.period_spelled = std::string(use.spelled);
}

void apply_call_graph(record_state& state, const option_use& use) {
  std::string_view mode = use.value.substr(0, use.value.find(','));
  std::optional<std::string_view> size_text;
  if (mode.size() < use.value.size()) size_text = use.value.substr(mode.size() + 1);
  if (mode == "fp") {
    if (size_text) reject(use, "only the dwarf mode takes a stack size");
    state.options.call_graph = call_graph_mode::fp;
    return;
  }
  if (mode != "dwarf")
    reject(use, "unknown call graph mode " + io::quoted(mode) + " (expected fp or dwarf)");
  state.options.call_graph = call_graph_mode::dwarf;
  state.options.dwarf_stack_size = record::default_dwarf_stack_size;
  if (!size_text) return;
  std::optional<std::uint64_t> size = parse_unsigned(*size_text);
  if (!size) reject(use, io::quoted(*size_text) + " is not a stack size in bytes");
  // perf rounds the size up to whole u64s before checking it.
  std::uint64_t rounded = (*size + 7) / 8 * 8;
  if (rounded == 0 || rounded > record::max_dwarf_stack_size)
    reject(use, "the dwarf stack size must be from 8 to 65528 bytes");
  state.options.dwarf_stack_size = static_cast<std::uint32_t>(rounded);
}

// "16K", as perf prints a size: in the largest unit that leaves more than 1.
std::string size_text(std::uint64_t bytes) {
  constexpr std::string_view units = "BKMG";
  std::size_t unit = 0;
  while (bytes / 1024 > 1 && unit + 1 < units.size()) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + units[unit];
}

// One part of -m: a number of pages or a size; as perf, rounded up to a power of two pages (0
// to 1), saying so when that changes what was asked.
std::uint32_t ring_pages(record_state& state, const option_use& use, std::string_view text) {
  constexpr std::uint64_t max_pages = std::uint64_t{1} << 31;
  auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::uint64_t pages = 0;
  if (has_size_suffix(text)) {
    std::optional<std::uint64_t> bytes = parse_size(text);
    if (!bytes) reject(use, "expected a number of pages or a size like 512K or 2M");
    pages = (*bytes + page_size - 1) / page_size;
  } else {
    std::optional<std::uint64_t> count = parse_unsigned(text);
    if (!count) reject(use, "expected a number of pages or a size like 512K or 2M");
    pages = *count;
  }
  if (pages > max_pages) reject(use, "the ring buffer must not exceed 2^31 pages");
  if (std::has_single_bit(pages)) return static_cast<std::uint32_t>(pages);
  std::uint64_t rounded = std::bit_ceil(std::max<std::uint64_t>(pages, 1));
  state.options.notes.push_back("arec: rounding mmap pages size to " +
                                size_text(rounded * page_size) + " (" + std::to_string(rounded) +
                                " pages)");
  return static_cast<std::uint32_t>(rounded);
}

// -m PAGES[,AUX]: the data ring per cpu and, after a comma, the AUX area (perf's form; used by
// AUX area tracing events only, as in perf).
void apply_mmap_pages(record_state& state, const option_use& use) {
  std::string_view value = use.value;
  std::size_t comma = value.find(',');
  if (comma != 0) state.options.mmap_pages = ring_pages(state, use, value.substr(0, comma));
  if (comma != std::string_view::npos)
    state.options.aux_mmap_pages = ring_pages(state, use, value.substr(comma + 1));
}

void apply_output(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the output file name is empty");
  state.options.output_path = std::string(use.value);
  state.options.output_given = true;
}

void apply_duration(record_state& state, const option_use& use) {
  double seconds = 0;
  const char* end = use.value.data() + use.value.size();
  auto [stop, ec] = std::from_chars(use.value.data(), end, seconds);
  if (use.value.empty() || ec != std::errc{} || stop != end || !std::isfinite(seconds))
    reject(use, "expected a number of seconds");
  if (seconds <= 0) reject(use, "the duration must be more than 0 seconds");
  state.options.duration_s = seconds;
}

// perf's --threads specs: a topology level, or CPUS/AFFINITY masks joined by ':'.
// The spec is checked against the machine's topology by record/thread_masks, before anything
// is opened: one validator, which also knows -C, whatever order the options come in.
void apply_threads(record_state& state, const option_use& use) {
  state.options.threads_spec = std::string(use.value);
}

void apply_mmap_flush(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> bytes = parse_size(use.value);
  if (!bytes) reject(use, "expected a number of bytes, optionally with a K, M or G suffix");
  if (*bytes == 0) reject(use, "the flush size must be at least 1 byte");
  state.options.mmap_flush = *bytes;
}

// perf's tagged values: digits and one unit letter from `units`, nothing else ("100K", "30s").
struct value_unit {
  char tag;
  std::uint64_t factor;
};
std::optional<std::uint64_t> parse_tagged(std::string_view text,
                                          std::span<const value_unit> units) {
  if (text.size() < 2) return std::nullopt;
  for (const value_unit& unit : units) {
    if (text.back() != unit.tag) continue;
    std::optional<std::uint64_t> count = parse_unsigned(text.substr(0, text.size() - 1));
    if (!count || *count > std::numeric_limits<std::uint64_t>::max() / unit.factor)
      return std::nullopt;
    return *count * unit.factor;
  }
  return std::nullopt;
}
constexpr std::array<value_unit, 4> size_units{
    {{'B', 1}, {'K', 1u << 10}, {'M', 1u << 20}, {'G', 1u << 30}}};
constexpr std::array<value_unit, 4> time_units{{{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}}};

// --switch-output: bare or "signal" switches on SIGUSR2; a size or a time switches by itself.
void apply_switch_output(record_state& state, const option_use& use) {
  record_options::output_switch mode;
  if (use.value.empty() || use.value == "signal") {
    mode.on_signal = true;
  } else if (std::optional<std::uint64_t> bytes = parse_tagged(use.value, size_units)) {
    mode.size = *bytes;
  } else if (std::optional<std::uint64_t> seconds = parse_tagged(use.value, time_units)) {
    mode.time = std::chrono::seconds(*seconds);
  } else {
    reject(use, "expected signal, a size like 100M (B, K, M, G) or a time like 30s (s, m, h, d)");
  }
  if (!mode.on_signal && mode.size == 0 && mode.time.count() == 0)
    reject(use, "the size or time must be more than 0");
  state.options.switch_output = mode;
  state.options.timestamp_filename = true;  // as in perf: every file gets its time
}

void apply_switch_max_files(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> count = parse_unsigned(use.value);
  if (!count) reject(use, "expected a number of files");
  state.options.switch_max_files = static_cast<std::size_t>(*count);
}

void apply_off_cpu_thresh(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> ms = parse_unsigned(use.value);
  if (!ms || *ms > std::numeric_limits<std::uint64_t>::max() / 1'000'000)
    reject(use, "expected milliseconds: how long a block is to be a sample of its own");
  state.options.off_cpu_thresh_ms = *ms;
}

void apply_max_size(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> bytes = parse_tagged(use.value, size_units);
  if (!bytes || *bytes == 0) reject(use, "expected a size like 100M (B, K, M, G suffix)");
  state.options.max_size = *bytes;
}

void apply_synthesize_threads(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> count = parse_unsigned(use.value);
  if (!count || *count == 0 || *count > std::numeric_limits<unsigned>::max())
    reject(use, "the number of threads must be a positive integer");
  state.options.synthesize_threads = static_cast<unsigned>(*count);
}

// perf's names for the clocks (its util/clockid.c), "CLOCK_" prefix optional, any case.
constexpr std::array<std::pair<std::string_view, int>, 15> clock_names{{
    {"realtime", CLOCK_REALTIME},
    {"monotonic", CLOCK_MONOTONIC},
    {"process_cputime_id", CLOCK_PROCESS_CPUTIME_ID},
    {"thread_cputime_id", CLOCK_THREAD_CPUTIME_ID},
    {"monotonic_raw", CLOCK_MONOTONIC_RAW},
    {"realtime_coarse", CLOCK_REALTIME_COARSE},
    {"monotonic_coarse", CLOCK_MONOTONIC_COARSE},
    {"boottime", CLOCK_BOOTTIME},
    {"realtime_alarm", CLOCK_REALTIME_ALARM},
    {"boottime_alarm", CLOCK_BOOTTIME_ALARM},
    {"tai", CLOCK_TAI},
    {"mono", CLOCK_MONOTONIC},
    {"raw", CLOCK_MONOTONIC_RAW},
    {"real", CLOCK_REALTIME},
    {"boot", CLOCK_BOOTTIME},
}};

bool same_letters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

void apply_clockid(record_state& state, const option_use& use) {
  if (state.options.attrs.clockid) reject(use, "the clock is given twice");
  std::string_view name = use.value;
  int number = 0;
  auto [stop, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (!name.empty() && ec == std::errc{} && stop == name.data() + name.size()) {
    state.options.attrs.clockid = number;
    return;
  }
  if (name.size() > 6 && same_letters(name.substr(0, 6), "CLOCK_")) name.remove_prefix(6);
  for (const auto& [known, id] : clock_names)
    if (same_letters(name, known)) {
      state.options.attrs.clockid = id;
      return;
    }
  reject(use,
         "unknown clock (expected monotonic, monotonic_raw, realtime, boottime, tai, "
         "another clock_gettime() name or a number)");
}

// -D MS, -D -1, or -D START-END[,START-END...] (perf 6.1's ranges, in ms, in order).
void apply_delay(record_state& state, const option_use& use) {
  constexpr std::string_view expected =
      "expected a delay in ms, -1 (start disabled), or ranges like 10-20,30-40";
  state.options.delayed = false;
  state.options.enable_windows.clear();
  if (use.value == "-1") {
    state.options.delayed = true;
    return;
  }
  if (use.value.find('-') == std::string_view::npos) {
    std::optional<std::uint64_t> ms = parse_unsigned(use.value);
    if (!ms) reject(use, expected);
    if (*ms == 0) return;  // no delay, as perf
    state.options.delayed = true;
    state.options.enable_windows.push_back({*ms, std::nullopt});
    return;
  }
  std::string_view rest = use.value;
  std::uint64_t previous_end = 0;
  while (!rest.empty()) {
    std::string_view range = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), range.size() + 1));
    std::size_t dash = range.find('-');
    std::optional<std::uint64_t> start = parse_unsigned(range.substr(0, dash));
    std::optional<std::uint64_t> end =
        dash == std::string_view::npos ? std::nullopt : parse_unsigned(range.substr(dash + 1));
    if (!start || !end) reject(use, expected);
    if (*end <= *start) reject(use, "a range must end after it starts");
    if (*start < previous_end) reject(use, "ranges must be in order and must not overlap");
    previous_end = *end;
    state.options.enable_windows.push_back({*start, *end});
  }
  state.options.delayed = true;
}

// -j: perf's comma-separated branch filter names; privilege levels alone mean any branch.
void apply_branch_filter(record_state& state, const option_use& use) {
  constexpr std::array<std::pair<std::string_view, std::uint64_t>, 15> names{{
      {"u", PERF_SAMPLE_BRANCH_USER},
      {"k", PERF_SAMPLE_BRANCH_KERNEL},
      {"hv", PERF_SAMPLE_BRANCH_HV},
      {"any", PERF_SAMPLE_BRANCH_ANY},
      {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
      {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
      {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
      {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
      {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
      {"cond", PERF_SAMPLE_BRANCH_COND},
      {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
      {"call", PERF_SAMPLE_BRANCH_CALL},
      {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
      {"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
  }};
  constexpr std::uint64_t privilege_levels =
      PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
  std::uint64_t mode = 0;
  std::string_view rest = use.value;
  while (true) {
    std::string_view part = rest.substr(0, rest.find(','));
    auto known = std::find_if(names.begin(), names.end(),
                              [&](const auto& name) { return name.first == part; });
    if (known == names.end())
      reject(use, "unknown branch filter " + io::quoted(part) +
                      " (u, k, hv, any, any_call, any_ret, ind_call, ind_jmp, call, cond, "
                      "abort_tx, in_tx, no_tx, save_type, stack)");
    mode |= known->second;
    if (part.size() == rest.size()) break;
    rest.remove_prefix(part.size() + 1);
  }
  if ((mode & ~privilege_levels) == 0) mode |= PERF_SAMPLE_BRANCH_ANY;
  state.options.attrs.branch_sample_type = mode;
}

// --synth: perf's comma-separated list of no, all, task, mmap (which implies task), cgroup.
void apply_synth(record_state& state, const option_use& use) {
  record::synth_options synth{false, false, false};
  std::string_view rest = use.value;
  while (true) {
    std::string_view part = rest.substr(0, rest.find(','));
    if (part == "all")
      synth = {true, true, true};
    else if (part == "task")
      synth.tasks = true;
    else if (part == "mmap")
      synth.tasks = synth.mmaps = true;
    else if (part == "cgroup")
      synth.cgroups = true;
    else if (part != "no")
      reject(use, "expected no, all, task, mmap or cgroup (comma-separated)");
    if (part.size() == rest.size()) break;
    rest.remove_prefix(part.size() + 1);
  }
  state.options.synth = synth;
}

// -G NAME[,NAME...]: perf's pairing, the Nth cgroup name (over every -G) goes to the Nth event
// given so far; an empty name skips its event. A single name in all goes to every event.
void apply_cgroups(record_state& state, const option_use& use) {
  std::vector<record::event_spec>& events = state.options.events;
  if (events.empty()) reject(use, "must define events before cgroups");
  std::string_view rest = use.value;
  for (;;) {
    std::string_view name = rest.substr(0, rest.find(','));
    std::size_t index = state.cgroups_given++;
    if (!name.empty()) {
      if (index >= events.size())
        reject(use, "cgroup " + io::quoted(name) + " has no event: only " +
                        std::to_string(events.size()) + " given before it with -e");
      events[index].cgroup = std::string(name);
    }
    if (name.size() == rest.size()) break;
    rest.remove_prefix(name.size() + 1);
  }
  if (state.cgroups_given == 1)
    for (record::event_spec& event : events) event.cgroup = events.front().cgroup;
}

// perf's target rules: -p/-t win over -u, and -u over -C and -a, each with perf's warning.
void settle_targets(record_state& state) {
  record_options& options = state.options;
  if (!options.user) return;
  auto warn = [&](const char* text) {
    options.notes.push_back(std::string("arec: warning: ") + text);
  };
  if (!options.pids.empty() || !options.tids.empty()) {
    warn("PID/TID switch overriding UID");
    options.user.reset();
    return;
  }
  if (!options.cpus.empty()) {
    warn("UID switch overriding CPU");
    options.cpus.clear();
  }
  if (options.system_wide) {
    warn("UID switch overriding SYSTEM");
    options.system_wide = false;
  }
}

// --all-user and --all-kernel contradict each other, as in perf.
void set_privileges(record_state& state, privilege_scope scope) {
  if (state.options.attrs.privileges != privilege_scope::as_given &&
      state.options.attrs.privileges != scope)
    throw io::usage_error("--all-user and --all-kernel are exclusive");
  state.options.attrs.privileges = scope;
}

// --user-regs[=REGS] and -I/--intr-regs[=REGS]: perf's register names, comma-separated; none
// means the default set, "?" asks for the list.
void apply_registers(record_state& state, const option_use& use, std::uint64_t& mask) {
  if (use.value == "?") {
    state.request = record_state::request_kind::register_list;
    return;
  }
  if (use.value.empty()) {
    mask = record::default_sample_registers;
    return;
  }
  std::string unknown;
  std::optional<std::uint64_t> parsed = record::parse_sample_registers(use.value, unknown);
  if (!parsed)
    reject(use, "unknown register " + io::quoted(unknown) + " (" + std::string(use.spelled) +
                    (use.spelled.size() == 2 ? "?" : "=?") + " lists them)");
  mask = *parsed;
}

// A sample field that perf's option adds to every event.
template <std::uint64_t fields>
void add_sample_fields(record_state& state, const option_use&) {
  state.options.attrs.sample_fields |= fields;
}

// perf's -W: the weight as a struct where the kernel has it (x86's form since Linux 5.12).
#if defined(__x86_64__) || defined(__i386__)
constexpr std::uint64_t sample_weight_field = PERF_SAMPLE_WEIGHT_STRUCT;
#else
constexpr std::uint64_t sample_weight_field = PERF_SAMPLE_WEIGHT;
#endif

// A perf option whose effect arec always has: accepted so that perf command lines work.
void always_so(record_state&, const option_use&) {}

using record_spec = option_spec<record_state>;
using enum argument_kind;
using enum option_group;

// The record command line. Names and meanings follow perf record; help lines are generated.
constexpr std::array record_table{
    record_spec{"all-cpus", 'a', none, "",
                "system-wide collection from all CPUs; the default without COMMAND, -p or -C", "",
                target, [](record_state& s, const option_use&) { s.options.system_wide = true; }},
    record_spec{"cpu", 'C', required, "LIST", "sample only on the CPUs in LIST, e.g. 0-3,8",
                "all online CPUs", target, apply_cpus},
    record_spec{"tid", 't', required, "TID[,TID...]",
                "sample existing threads, only those (and the tasks they start); repeatable", "",
                target,
                [](record_state& s, const option_use& use) {
                  add_task_ids(s.options.tids, use, "thread");
                }},
    record_spec{"uid", 'u', required, "USER",
                "sample the processes USER (a name or uid) runs (all their threads, and the tasks "
                "they start)",
                "", target,
                [](record_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the user is empty");
                  s.options.user = std::string(use.value);
                }},
    record_spec{"per-thread", 0, none, "",
                "one ring buffer per task rather than per CPU (with COMMAND, -p, -t or -u; "
                "the tasks they start are then not recorded)",
                "", target,
                [](record_state& s, const option_use&) { s.options.per_thread = true; }},
    record_spec{"cgroup", 'G', required, "NAME[,NAME...]",
                "count the Nth event given so far with -e only in the Nth cgroup NAME (a path "
                "below the cgroup mount; one NAME: every event); with -a only",
                "", target, apply_cgroups},
    record_spec{"no-inherit", 'i', none, "", "child tasks do not inherit the events", "", target,
                [](record_state& s, const option_use&) { s.options.attrs.inherit = false; }},
    record_spec{"pid", 'p', required, "PID[,PID...]",
                "sample existing processes (all their threads); repeatable", "", target,
                [](record_state& s, const option_use& use) {
                  add_task_ids(s.options.pids, use, "process");
                }},
    record_spec{"event", 'e', required, "EVENT[,EVENT...]",
                "event to sample, repeatable: a hardware or software event (cycles, cpu-clock, "
                "page-faults, ...) with optional :u/:k/:h/:G/:H/:I/:D/:e/:p/:P/:S modifiers, a "
                "tracepoint SYSTEM:EVENT (either part may be a * or ? glob) or a raw rHEX; "
                "EVENT/TERMS/ or PMU/TERMS/ sets perf's terms for one event (period=N, freq=N, "
                "call-graph=fp|dwarf|no, stack-size=N, max-stack=N, name=NAME, inherit, "
                "no-inherit, config=N); {EVENT,EVENT...}[:MODIFIERS] is a group; see 'perf list'",
                "cycles, or cpu-clock where there is no hardware PMU", events, apply_events},
    record_spec{"group", 0, none, "", "put all events in one group, led by the first", "", events,
                [](record_state& s, const option_use&) { s.group = true; }},
    record_spec{"freq", 'F', required, "HZ|max",
                "sample HZ times a second; 'max' is kernel.perf_event_max_sample_rate", "4000 Hz",
                events, apply_frequency},
    record_spec{"strict-freq", 0, none, "",
                "refuse a -F above kernel.perf_event_max_sample_rate instead of lowering it", "",
                events, [](record_state& s, const option_use&) { s.options.strict_freq = true; }},
    record_spec{"no-samples", 'n', none, "",
                "do not sample: record only what runs (MMAP, COMM, FORK...)", "", events,
                [](record_state& s, const option_use&) { s.options.attrs.no_samples = true; }},
    record_spec{
        "all-user", 0, none, "", "sample every event in user space only, whatever its modifiers",
        "", events,
        [](record_state& s, const option_use&) { set_privileges(s, privilege_scope::user_only); }},
    record_spec{"all-kernel", 0, none, "",
                "sample every event in kernel space only, whatever its modifiers", "", events,
                [](record_state& s, const option_use&) {
                  set_privileges(s, privilege_scope::kernel_only);
                }},
    record_spec{"clockid", 'k', required, "CLOCK",
                "take every event's times from CLOCK: monotonic, monotonic_raw, realtime, "
                "boottime, tai (or mono, raw, real, boot, CLOCK_*, a number)",
                "perf's clock", events, apply_clockid},
    record_spec{"timestamp", 'T', none, "", "record sample times (arec always does)", "", events,
                always_so},
    record_spec{"sample-cpu", 0, none, "", "record the sample cpu (arec always does)", "", events,
                always_so},
    record_spec{"period", 'P', none, "", "record the sample period (arec always does)", "", events,
                always_so},
    record_spec{"data", 'd', none, "",
                "record the data address of each sample, and its data source", "", events,
                add_sample_fields<PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC>},
    record_spec{"phys-data", 0, none, "", "record the physical address of each sample's data", "",
                events, add_sample_fields<PERF_SAMPLE_PHYS_ADDR>},
    record_spec{"data-page-size", 0, none, "",
                "record the size of the page holding each sample's data address", "", events,
                add_sample_fields<PERF_SAMPLE_DATA_PAGE_SIZE>},
    record_spec{"code-page-size", 0, none, "",
                "record the size of the page holding each sample's code address", "", events,
                add_sample_fields<PERF_SAMPLE_CODE_PAGE_SIZE>},
    record_spec{"weight", 'W', none, "", "record each sample's weight (e.g. its latency)", "",
                events, add_sample_fields<sample_weight_field>},
    record_spec{"raw-samples", 'R', none, "",
                "record every event's raw sample data (a tracepoint's fields)", "", events,
                add_sample_fields<PERF_SAMPLE_RAW>},
    record_spec{"user-regs", 0, optional, "REGS",
                "record the user-space registers REGS (perf's names, comma-separated: ip,sp) "
                "with each sample; '?' lists them",
                "AX to SS and R8 to R15", events,
                [](record_state& s, const option_use& use) {
                  apply_registers(s, use, s.options.attrs.user_regs);
                }},
    record_spec{"intr-regs", 'I', optional, "REGS",
                "record the registers REGS at the sampling interrupt (as --user-regs); '?' lists "
                "them",
                "AX to SS and R8 to R15", events,
                [](record_state& s, const option_use& use) {
                  apply_registers(s, use, s.options.attrs.intr_regs);
                }},
    record_spec{
        "sample-identifier", 0, none, "",
        "put each record's event id first in samples and last in other records "
        "(PERF_SAMPLE_IDENTIFIER)",
        "", events,
        [](record_state& s, const option_use&) { s.options.attrs.sample_identifier = true; }},
    record_spec{"branch-any", 'b', none, "",
                "sample any taken branch (a branch stack per sample; needs a PMU that records "
                "branches)",
                "", events,
                [](record_state& s, const option_use&) {
                  s.options.attrs.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
                }},
    record_spec{"branch-filter", 'j', required, "FILTER[,FILTER...]",
                "sample branch stacks of the kinds given: any, any_call, any_ret, ind_call, "
                "ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type, stack, and u, k, hv",
                "", events, apply_branch_filter},
    record_spec{"stat", 's', none, "",
                "record each thread's event counts when it exits, for perf report -T", "", events,
                [](record_state& s, const option_use&) { s.options.attrs.per_thread_stat = true; }},
    record_spec{"switch-events", 0, none, "", "record context switches (SWITCH records)", "",
                events,
                [](record_state& s, const option_use&) { s.options.attrs.switch_events = true; }},
    record_spec{"off-cpu", 0, none, "",
                "record off-CPU time: perf's offcpu-time event, whose samples give the "
                "nanoseconds each thread was blocked in a stack (made from context switches, "
                "no BPF needed)",
                "", events,
                [](record_state& s, const option_use&) { s.options.attrs.off_cpu = true; }},
    record_spec{"off-cpu-thresh", 0, required, "MS",
                "with --off-cpu: a block at least MS long is a sample of its own when it ends; "
                "shorter ones are summed per thread and stack until the file ends",
                "500", events, apply_off_cpu_thresh},
    record_spec{"latency", 0, none, "",
                "record context switches for perf report --latency (perf 6.15's option; not "
                "with system-wide collection)",
                "", events, [](record_state& s, const option_use&) { s.latency = true; }},
    record_spec{"namespaces", 0, none, "", "record the namespaces of new tasks", "", events,
                [](record_state& s, const option_use&) { s.options.attrs.namespaces = true; }},
    record_spec{"all-cgroups", 0, none, "",
                "record the cgroup of every sample and the cgroups created (CGROUP records), for "
                "perf report --sort cgroup",
                "", events,
                [](record_state& s, const option_use&) { s.options.attrs.all_cgroups = true; }},
    record_spec{"filter", 0, required, "FILTER",
                "set a tracepoint filter (e.g. 'prev_pid == 42') on the events of the -e just "
                "before; repeated, the filters are joined with &&",
                "", events, apply_filter},
    record_spec{"exclude-perf", 0, none, "",
                "leave out what arec itself does: filter the tracepoints of the -e just before "
                "by common_pid",
                "", events, apply_exclude_perf},
    record_spec{"count", 'c', required, "PERIOD", "sample once every PERIOD events (not with -F)",
                "", events, apply_period},
    record_spec{
        "", 'g', none, "", "record call graphs by frame pointers (--call-graph fp)", "", events,
        [](record_state& s, const option_use&) { s.options.call_graph = call_graph_mode::fp; }},
    record_spec{"call-graph", 0, required, "MODE[,SIZE]",
                "record call graphs: MODE fp (frame pointers) or dwarf (copy SIZE bytes of user "
                "stack per sample, a multiple of 8 up to 65528)",
                "no call graphs; dwarf SIZE 8192", events, apply_call_graph},
    record_spec{"output", 'o', required, "FILE", "write the recording to FILE", "perf.data", output,
                apply_output},
    record_spec{"compression-level", 'z', optional, "N",
                "compress records with zstd level N, 1 (fastest) to 22 (smallest); -z alone is "
                "level 1 (as perf, a level goes with -z only attached: -z3)",
                "off", output,
                [](record_state& s, const option_use& use) {
                  s.options.compression_level =
                      use.value.empty() ? 1 : parse_compression_level(use);
                }},
    record_spec{"switch-output", 0, optional, "signal|SIZE|TIME",
                "finish the output and go on into a fresh one on SIGUSR2 (signal, the "
                "default), once it holds SIZE (B, K, M, G) or every TIME (s, m, h, d); each "
                "finished file is renamed FILE.<timestamp>; implies --timestamp-filename",
                "one output", output, apply_switch_output},
    record_spec{"switch-max-files", 0, required, "N",
                "with --switch-output: keep only the newest N finished files", "all", output,
                apply_switch_max_files},
    record_spec{"timestamp-filename", 0, none, "",
                "append the time the recording ended to the output name: FILE.YYYYmmddHHMMSScc", "",
                output,
                [](record_state& s, const option_use&) { s.options.timestamp_filename = true; }},
    record_spec{"max-size", 0, required, "SIZE",
                "stop recording once the output holds SIZE bytes (B, K, M, G suffix)", "no limit",
                output, apply_max_size},
    record_spec{"buildid-mmap", 0, none, "",
                "let the kernel put build-ids in MMAP2 records; beware: the kernel then marks "
                "the MMAP2 records of every other perf session on the machine as holding "
                "build-ids too, which perf 6.1 cannot read",
                "build-ids read from the files", output,
                [](record_state& s, const option_use&) { s.options.buildid_mmap = true; }},
    record_spec{"no-buildid", 'B', none, "", "do not collect build-ids", "", output,
                [](record_state& s, const option_use&) { s.options.no_buildid = true; }},
    record_spec{"no-buildid-cache", 'N', none, "",
                "do not add the mapped files to the build-id cache (perfconfig's "
                "buildid.dir, else ~/.debug)",
                "", output,
                [](record_state& s, const option_use&) { s.options.no_buildid_cache = true; }},
    record_spec{"buildid-all", 0, none, "",
                "add every mapped file to the build-id cache, not only those sampled (arec "
                "records the build-id of every mapped file either way)",
                "", output,
                [](record_state& s, const option_use&) { s.options.buildid_all = true; }},
    record_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                [](record_state& s, const option_use&) { s.options.quiet = true; }},
    record_spec{"verbose", 'v', none, "", "print more details; repeat for more (-vv)", "", output,
                [](record_state& s, const option_use&) { ++s.options.verbose; }},
    record_spec{"mmap-pages", 'm', required, "PAGES[,AUX]",
                "ring buffer size per CPU: a number of pages or a size like 512K or 2M, rounded "
                "up to a power of two pages; AUX sizes the AUX area of AUX tracing events",
                "128 pages, 512K", buffers, apply_mmap_pages},
    record_spec{"no-buffering", 0, none, "",
                "drain the rings at every record rather than when --mmap-flush bytes are there", "",
                buffers,
                [](record_state& s, const option_use&) { s.options.attrs.no_buffering = true; }},
    record_spec{"mmap-flush", 0, required, "BYTES",
                "drain a ring buffer only once it holds BYTES (K, M, G suffixes allowed)", "1",
                buffers, apply_mmap_flush},
    record_spec{"overwrite", 0, none, "",
                "flight recorder: the rings overwrite their oldest records and are read only "
                "at snapshots; with --switch-output each SIGUSR2 (or --control snapshot) and "
                "the end write what they hold, in a file each",
                "", buffers,
                [](record_state& s, const option_use&) { s.options.attrs.overwrite = true; }},
    record_spec{"threads", 0, optional, "SPEC",
                "stream with parallel threads, one per SPEC: cpu, core, package, numa, or "
                "CPUS/AFFINITY[:CPUS/AFFINITY...] (each thread drains CPUS and runs on "
                "AFFINITY); bare --threads means cpu",
                "one streaming thread", buffers, apply_threads},
    record_spec{"realtime", 'r', required, "PRIO",
                "run the streaming threads at SCHED_FIFO priority PRIO (1-99), so that other "
                "work does not keep them from draining the rings",
                "normal scheduling", buffers,
                [](record_state& s, const option_use& use) {
                  std::optional<std::uint64_t> priority = parse_unsigned(use.value);
                  if (!priority || *priority < 1 || *priority > 99)
                    reject(use, "the realtime priority must be a whole number from 1 to 99");
                  s.options.realtime_priority = static_cast<int>(*priority);
                }},
    record_spec{"synth", 0, required, "WHAT",
                "what to synthesize of what already runs: no, all, task (tasks without their "
                "mappings), mmap (tasks and mappings), cgroup; comma-separated",
                "all", buffers, apply_synth},
    record_spec{"num-thread-synthesize", 0, required, "N",
                "use N threads to synthesize the existing processes at startup",
                "online cpus, at most 8", buffers, apply_synthesize_threads},
    record_spec{"delay", 'D', required, "MS|-1|RANGES",
                "start sampling MS milliseconds after COMMAND starts (or the recording, without "
                "one); -1: start disabled; RANGES like 10-20,30-40: sample only in those "
                "stretches",
                "at once", control, apply_delay},
    record_spec{"control", 0, required, "fd:CTL[,ACK]|fifo:CTL[,ACK]",
                "read commands from fd CTL (or fifo CTL): enable, disable [EVENT], ping, stop, "
                "snapshot, evlist [-v|-g|-F]; answer each with 'ack' on ACK. With -D -1, "
                "sampling waits for 'enable'",
                "", control,
                [](record_state& s, const option_use& use) {
                  s.options.control = record::parse_control_spec(use.value);
                  if (!s.options.control) reject(use, "expected fd:CTL[,ACK] or fifo:CTL[,ACK]");
                }},
    record_spec{"timestamp-boundary", 0, none, "",
                "record the times of the first and last samples (arec always does)", "", control,
                always_so},
    record_spec{"duration", 0, required, "SECONDS", "stop after SECONDS (fractions allowed)",
                "until COMMAND exits or Ctrl-C", control, apply_duration},
    record_spec{"push", 0, required, "URL",
                "every --push-interval, send what was recorded to the fleet store at URL "
                "(user@ for basic auth, with --push-password-file), as --push-format says; "
                "samples at 99 Hz "
                "unless -F or -c say otherwise. Without -o the windows are not kept on disk",
                "", push, apply_push},
    record_spec{"push-format", 0, required, "FORMAT",
                "pyroscope: a pprof per window to Grafana Pyroscope's push API; otlp: an "
                "OpenTelemetry profiles request to URL/v1development/profiles (without --push: "
                "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT); parca: "
                "a pprof to Parca's WriteRaw at URL/api/profiles/writeraw",
                "pyroscope", push, apply_push},
    record_spec{"push-interval", 0, required, "TIME",
                "the window of each push: 15s, 500ms, 1m (at least 1s); with -o each window is "
                "a file FILE.<timestamp>, as --switch-output=TIME writes them",
                "15s", push, apply_push},
    record_spec{"push-label", 0, required, "KEY=VALUE",
                "a label of every pushed profile, repeatable; service_name replaces the host name",
                "", push, apply_push},
    record_spec{"push-tenant", 0, required, "ID",
                "send X-Scope-OrgID: ID, for multi-tenant servers", "", push, apply_push},
    record_spec{"push-token-file", 0, required, "FILE",
                "send Authorization: Bearer with the token FILE holds", "", push, apply_push},
    record_spec{"push-password-file", 0, required, "FILE",
                "basic auth's password for the user the --push URL names (http://USER@HOST/), "
                "read from FILE (chmod 600), never from the command line",
                "", push, apply_push},
    record_spec{"push-spool", 0, required, "DIR",
                "where windows wait on disk while the server cannot take them, and are kept for "
                "the next run at exit",
                "/var/tmp/arec-push", push, apply_push},
    record_spec{"dry-run", 0, none, "", "check the options, then exit without recording", "",
                control, [](record_state& s, const option_use&) { s.options.dry_run = true; }},
    record_spec{
        "help", 'h', none, "", "show this help and exit", "", help,
        [](record_state& s, const option_use&) { s.request = record_state::request_kind::help; }},
    record_spec{"version", 0, none, "", "show arec's version and exit", "", help,
                [](record_state& s, const option_use&) {
                  s.request = record_state::request_kind::version;
                }},
};

// --push cuts the recording into windows as --switch-output=TIME does, at a fleet agent's rate.
void settle_push(record_state& state) {
  record_options& options = state.options;
  fleet::push_options& push = *state.push;
  fleet::settle_push_destination(push, fleet::process_environment);
  if (options.output_path == "-")
    throw io::usage_error("--push needs files to export: it cannot write to a pipe (-o -)");
  if (options.switch_output)
    throw io::usage_error("--push cuts its own windows: it cannot be used with --switch-output");
  if (options.attrs.overwrite)
    throw io::usage_error("--push sends every window: it cannot be used with --overwrite");
  options.switch_output = record_options::output_switch{.time = push.interval};
  options.timestamp_filename = true;
  if (!options.frequency && !options.period) options.frequency = default_push_frequency_hz;
  if (push.spool_dir.empty()) push.spool_dir = std::string(default_push_spool);
}

}  // namespace

record_command parse_record_command_line(std::span<const char* const> args) {
  record_state state;
  std::size_t workload = parse_options(args, record_table, state);
  if (state.request == record_state::request_kind::help) return help_request{record_help_text()};
  if (state.request == record_state::request_kind::version) return version_request{};
  if (state.request == record_state::request_kind::register_list)
    return help_request{"available registers: " + record::sample_register_names() + "\n"};
  record_options& options = state.options;
  if (options.frequency && options.period)
    throw io::usage_error(state.frequency_spelled + " and " + state.period_spelled +
                          " are exclusive: sample at a frequency or every PERIOD events, not both");
  if (options.compression_level > 0 && options.mmap_pages) {
    // perf's reader learns the size of its per-record decompression buffer from a u32 (the
    // COMPRESSED feature's mmap_len): two rings' worth and a page must fit in it.
    auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    if (*options.mmap_pages * page_size >= (std::uint64_t{1} << 31))
      throw io::usage_error("with -z, rings must be smaller than 2G (-m " +
                            std::to_string(*options.mmap_pages) + " pages is " +
                            std::to_string((*options.mmap_pages * page_size) >> 30) + "G)");
  }
  if (options.call_graph == call_graph_mode::dwarf && options.attrs.user_regs)
    options.notes.push_back(
        "arec: warning: --call-graph dwarf may need all the user registers; with a subset from "
        "--user-regs the unwinding may be unreliable, so IP and SP are added to them.");
  for (std::size_t i = workload; i < args.size(); ++i) options.workload.emplace_back(args[i]);
  if (options.events.empty()) options.events.push_back(record::parse_event_spec("cycles"));
  if (state.group) record::group_all_events(options.events);
  settle_targets(state);
  // perf's default target: without a workload or -p/-t/-u/-C, the whole system.
  if (options.workload.empty() && options.pids.empty() && options.tids.empty() && !options.user &&
      options.cpus.empty())
    options.system_wide = true;
  // perf 6.15's rule (a later perf lifts it, reading the sample's cpu): latency needs per-task
  // switch records, so a system-wide recording is refused, in perf's words.
  if (state.latency) {
    if (options.system_wide)
      throw io::usage_error("latency profiling is not supported with system-wide collection");
    options.attrs.switch_events = true;
  }
  // perf's rule: the cgroup of an event is a filter on each cpu, so there must be one on each.
  if (state.cgroups_given > 0 && !options.system_wide)
    throw io::usage_error("cgroup monitoring only available in system-wide mode (-a)");
  if (state.push) settle_push(state);
  return record_request{std::move(options), std::move(state.push)};
}

std::string record_help_text() {
  std::string out =
      "Usage: arec [OPTIONS] [--] [COMMAND [ARGS...]]\n"
      "       arec convert [OPTIONS]   (see arec convert --help)\n"
      "       arec export [OPTIONS]    (see arec export --help)\n"
      "\n"
      "Samples COMMAND, existing processes (-p) or CPUs (-a, -C) into a perf.data file that\n"
      "perf 6.1 and hotspot read. Without COMMAND, -p or -C it samples the whole system until\n"
      "Ctrl-C or --duration. Options follow perf record's names and meanings.\n";
  append_option_help(out, record_table);
  out +=
      "\nExamples:\n"
      "  arec -a -g -- sleep 5                   sample all CPUs with call graphs for 5 seconds,\n"
      "  perf report                             then read the recording (perf.data) with perf\n"
      "  arec -F 999 --call-graph dwarf ./app    sample ./app at 999 Hz with DWARF call graphs\n"
      "  arec -p 1234 --duration 10              sample process 1234 for 10 seconds\n"
      "  arec -a -e sched:sched_switch sleep 1   record every context switch for 1 second\n"
      "  arec --threads=core -a                  stream with one thread per CPU core\n"
      "  arec --threads=0-3/3:4-7/4 -- ./app     two threads: one drains CPUs 0-3 running on\n"
      "                                          CPU 3, the other CPUs 4-7 running on CPU 4\n"
      "  arec -z -g -- ./app                     record ./app compressed, with call graphs,\n"
      "  arec convert                            then make one plain time-ordered file of it,\n"
      "  hotspot perf.converted.data             perf.converted.data, and read it with hotspot\n"
      "\n"
      "While recording on a terminal, one status line shows the time, samples, bytes written,\n"
      "lost samples and the fullest ring buffer (not with -q). At the end one summary line\n"
      "says what was recorded; when samples were lost it suggests how to lose fewer.\n";
  return out;
}

std::vector<std::string> record_option_names() {
  return option_names(record_table);
}

}  // namespace arec::cli
