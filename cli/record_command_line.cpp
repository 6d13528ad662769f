#include "cli/record_command_line.hpp"

#include <linux/perf_event.h>

#include <array>
#include <span>

#include "cli/option_table.hpp"
#include "cli/record_option_handlers.hpp"
#include "record/events/sample_registers.hpp"

namespace arec::cli {
namespace {

using record::call_graph_mode;

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
                target, apply_tids},
    record_spec{"uid", 'u', required, "USER",
                "sample the processes USER (a name or uid) runs (all their threads, and the tasks "
                "they start)",
                "", target, apply_user},
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
                apply_pids},
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
    record_spec{"all-user", 0, none, "",
                "sample every event in user space only, whatever its modifiers", "", events,
                apply_all_user},
    record_spec{"all-kernel", 0, none, "",
                "sample every event in kernel space only, whatever its modifiers", "", events,
                apply_all_kernel},
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
                "AX to SS and R8 to R15", events, apply_user_regs},
    record_spec{"intr-regs", 'I', optional, "REGS",
                "record the registers REGS at the sampling interrupt (as --user-regs); '?' lists "
                "them",
                "AX to SS and R8 to R15", events, apply_intr_regs},
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
                "off", output, apply_compression},
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
    record_spec{"debuginfod-deadline", 0, required, "SECONDS",
                "with DEBUGINFOD_URLS set, what the end may spend in all fetching the debug "
                "files of sampled objects no local file names into the build-id cache, for perf "
                "report (0: none fetched)",
                "5", output, apply_debuginfod_deadline},
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
                "normal scheduling", buffers, apply_realtime},
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
                "", control, apply_control},
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
    record_spec{"push-no-inline", 0, none, "",
                "push profiles without the functions inlined at a location (DWARF's, where a "
                "debug file is at hand): each location shows the function it is in, as "
                "arec export --no-inline",
                "", push, apply_push},
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

}  // namespace

record_command parse_record_command_line(std::span<const char* const> args) {
  record_state state;
  std::size_t workload = parse_options(args, record_table, state);
  if (state.request == record_state::request_kind::help) return help_request{record_help_text()};
  if (state.request == record_state::request_kind::version) return version_request{};
  if (state.request == record_state::request_kind::register_list)
    return help_request{"available registers: " + record::sample_register_names() + "\n"};
  for (std::size_t i = workload; i < args.size(); ++i) state.options.workload.emplace_back(args[i]);
  // The rules between options, once every one is known; the target's need the workload.
  settle_events(state);
  settle_buffers(state);
  settle_samples(state);
  settle_targets(state);
  if (state.push) settle_push(state);
  return record_request{std::move(state.options), std::move(state.push)};
}

std::string record_help_text() {
  std::string out =
      "Usage: arec [OPTIONS] [--] [COMMAND [ARGS...]]\n"
      "       arec convert [OPTIONS]   (see arec convert --help)\n"
      "       arec export [OPTIONS]    (see arec export --help)\n"
      "       arec report [OPTIONS]    (see arec report --help)\n"
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
