#include "cli/record_command_line.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/temp_file.hpp"

using namespace arec::cli;
using namespace arec::record;
using arec::base::usage_error;

namespace {

record_command parse_command(std::initializer_list<const char*> args) {
  return parse_record_command_line(std::span<const char* const>(args.begin(), args.size()));
}

record_request parse_request(std::initializer_list<const char*> args) {
  record_command command = parse_command(args);
  if (!std::holds_alternative<record_request>(command)) {
    ADD_FAILURE() << "not a record command";
    return {};
  }
  return std::get<record_request>(std::move(command));
}

record_options parse(std::initializer_list<const char*> args) {
  return parse_request(args).options;
}

// The usage_error message for `args`, or a test failure when they are accepted.
std::string error_of(std::initializer_list<const char*> args) {
  try {
    parse_command(args);
  } catch (const usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted the arguments";
  return {};
}

using strings = std::vector<std::string>;

}  // namespace

// ---- defaults, workload, syntax -------------------------------------------------------------

TEST(RecordOptions, DefaultsWithoutArgumentsAreSystemWideCycles) {
  record_options options = parse({});
  EXPECT_TRUE(options.system_wide);  // perf 6.1 makes -a the default target
  EXPECT_TRUE(options.cpus.empty());
  ASSERT_EQ(options.events.size(), 1u);
  EXPECT_EQ(options.events[0].name, "cycles");
  EXPECT_EQ(options.events[0].type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(options.output_path, "perf.data");
  EXPECT_EQ(options.call_graph, call_graph_mode::none);
  EXPECT_EQ(options.dwarf_stack_size, 8192u);
  EXPECT_FALSE(options.mmap_pages);
  EXPECT_EQ(options.mmap_flush, 1u);
  EXPECT_EQ(options.compression_level, 0);
  EXPECT_FALSE(options.threads_spec);
  EXPECT_FALSE(options.dry_run);
  sampling s = effective_sampling(options);
  EXPECT_TRUE(s.use_frequency);
  EXPECT_EQ(s.value, 4000u);
}

TEST(RecordOptions, FirstNonOptionStartsTheWorkload) {
  record_options options = parse({"-g", "sleep", "1", "-a", "--", "-x"});
  EXPECT_EQ(options.workload, (strings{"sleep", "1", "-a", "--", "-x"}));
  EXPECT_FALSE(options.system_wide);  // -a belongs to the workload
  EXPECT_EQ(options.call_graph, call_graph_mode::fp);
}

TEST(RecordOptions, DoubleDashEndsOptions) {
  record_options options = parse({"-a", "--", "-v", "--help"});
  EXPECT_EQ(options.workload, (strings{"-v", "--help"}));
  EXPECT_EQ(options.verbose, 0);
  EXPECT_TRUE(options.system_wide);
}

TEST(RecordOptions, DoubleDashWithoutWorkloadIsSystemWide) {
  record_options options = parse({"--"});
  EXPECT_TRUE(options.workload.empty());
  EXPECT_TRUE(options.system_wide);
}

TEST(RecordOptions, WorkloadAloneIsNotSystemWide) {
  record_options options = parse({"./app"});
  EXPECT_FALSE(options.system_wide);
  EXPECT_EQ(options.workload, (strings{"./app"}));
}

TEST(RecordOptions, CombinedShortFlags) {
  record_options options = parse({"-agqvv"});
  EXPECT_TRUE(options.system_wide);
  EXPECT_EQ(options.call_graph, call_graph_mode::fp);
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(options.verbose, 2);
}

TEST(RecordOptions, CombinedShortFlagsEndingInOptionWithValue) {
  EXPECT_EQ(parse({"-agC0,1"}).cpus, (std::vector<int>{0, 1}));
  record_options options = parse({"-agC", "1"});
  EXPECT_TRUE(options.system_wide);
  EXPECT_EQ(options.cpus, (std::vector<int>{1}));
}

TEST(RecordOptions, ValueFormsAllAgree) {
  std::vector<int> expected{0, 1};
  EXPECT_EQ(parse({"-C", "0,1"}).cpus, expected);
  EXPECT_EQ(parse({"-C0,1"}).cpus, expected);
  EXPECT_EQ(parse({"--cpu=0,1"}).cpus, expected);
  EXPECT_EQ(parse({"--cpu", "0-1"}).cpus, expected);
}

TEST(RecordOptions, RequiredValueMayStartWithDash) {
  EXPECT_EQ(parse({"-o", "-weird-name"}).output_path, "-weird-name");
}

TEST(RecordOptions, UniqueLongPrefixIsAccepted) {
  EXPECT_TRUE(parse({"--all-cp", "--", "x"}).system_wide);
  EXPECT_EQ(parse({"--outp", "f.data"}).output_path, "f.data");
}

TEST(RecordOptions, AmbiguousLongPrefixListsCandidates) {
  EXPECT_EQ(error_of({"--c", "1"}),
            "ambiguous option '--c' (could be --cpu, --cgroup, --clockid, --code-page-size, "
            "--count, --call-graph, --compression-level, --control)");
  EXPECT_EQ(error_of({"--all"}),  // as in perf
            "ambiguous option '--all' (could be --all-cpus, --all-user, --all-kernel, "
            "--all-cgroups)");
}

TEST(RecordOptions, UnknownOptionIsNamed) {
  EXPECT_EQ(error_of({"--bogus"}), "unknown option '--bogus'");
  EXPECT_EQ(error_of({"--bogus=1"}), "unknown option '--bogus=1'");
  EXPECT_EQ(error_of({"-x"}), "unknown option '-x'");
  EXPECT_EQ(error_of({"-ax"}), "unknown option '-x' in '-ax'");
}

TEST(RecordOptions, MissingValueIsNamed) {
  EXPECT_EQ(error_of({"-C"}), "option '-C' requires a value");
  EXPECT_EQ(error_of({"--cpu"}), "option '--cpu' requires a value");
  EXPECT_EQ(error_of({"-a", "-e"}), "option '-e' requires a value");
}

TEST(RecordOptions, FlagGivenAValueIsRejected) {
  EXPECT_EQ(error_of({"--all-cpus=1"}), "option '--all-cpus' takes no value");
}

TEST(RecordOptions, HelpReturnsTheGeneratedText) {
  for (auto args :
       {std::initializer_list<const char*>{"-h"}, {"--help"}, {"-a", "--help", "--bogus"}}) {
    record_command command = parse_command(args);
    ASSERT_TRUE(std::holds_alternative<help_request>(command));
    EXPECT_EQ(std::get<help_request>(command).text, record_help_text());
  }
}

TEST(RecordOptions, VersionIsRequested) {
  EXPECT_TRUE(std::holds_alternative<version_request>(parse_command({"--version"})));
}

// ---- target selection -----------------------------------------------------------------------

TEST(RecordOptions, CpuListIsParsedAndChecked) {
  record_options options = parse({"-C", "3,0-1"});
  EXPECT_EQ(options.cpus, (std::vector<int>{0, 1, 3}));
  EXPECT_FALSE(options.system_wide);
  EXPECT_EQ(error_of({"-C", "5-2"}), "-C 5-2: reversed cpu range '5-2'");
  EXPECT_EQ(error_of({"--cpu=a"}), "--cpu=a: bad cpu list entry 'a'");
  EXPECT_EQ(error_of({"-C", ""}), "-C : the cpu list is empty");
}

TEST(RecordOptions, PidsAccumulate) {
  record_options options = parse({"-p", "12,34", "--pid=56"});
  EXPECT_EQ(options.pids, (std::vector<int>{12, 34, 56}));
  EXPECT_FALSE(options.system_wide);
}

TEST(RecordOptions, TidsAccumulateAndAreNotSystemWide) {
  record_options options = parse({"-t", "12,13", "--tid=14"});
  EXPECT_EQ(options.tids, (std::vector<int>{12, 13, 14}));
  EXPECT_TRUE(options.pids.empty());
  EXPECT_FALSE(options.system_wide);
  EXPECT_EQ(error_of({"-t", "x"}), "-t x: 'x' is not a thread id (a positive integer)");
}

TEST(RecordOptions, BadPidIsNamed) {
  EXPECT_EQ(error_of({"-p", "abc"}), "-p abc: 'abc' is not a process id (a positive integer)");
  EXPECT_EQ(error_of({"-p", "0"}), "-p 0: '0' is not a process id (a positive integer)");
  EXPECT_EQ(error_of({"-p", "-5"}), "-p -5: '-5' is not a process id (a positive integer)");
  EXPECT_EQ(error_of({"-p", "1,"}), "-p 1,: '' is not a process id (a positive integer)");
  EXPECT_EQ(error_of({"-p", "99999999999"}),
            "-p 99999999999: '99999999999' is not a process id (a positive integer)");
}

// ---- events and sampling --------------------------------------------------------------------

TEST(RecordOptions, EventsRepeatAndSplitAtCommas) {
  record_options options = parse({"-e", "cpu-clock,task-clock", "--event=instructions:u"});
  ASSERT_EQ(options.events.size(), 3u);
  EXPECT_EQ(options.events[0].name, "cpu-clock");
  EXPECT_EQ(options.events[0].config, PERF_COUNT_SW_CPU_CLOCK);
  EXPECT_EQ(options.events[1].config, PERF_COUNT_SW_TASK_CLOCK);
  EXPECT_EQ(options.events[2].name, "instructions:u");
  EXPECT_TRUE(options.events[2].exclude_kernel);
}

TEST(RecordOptions, UnknownEventIsNamed) {
  EXPECT_EQ(error_of({"-e", "foo"}), "-e foo: unknown event 'foo'");
  EXPECT_EQ(error_of({"-e", "cycles,bar"}), "-e cycles,bar: unknown event 'bar'");
  EXPECT_EQ(error_of({"-e", "cycles,"}), "-e cycles,: event syntax error: 'cycles,': parser error");
  // No cpu PMU here (no hardware PMU in a VM): named as perf names it.
  EXPECT_EQ(error_of({"-e", "nopmu/event=1,umask=2/"}),
            "-e nopmu/event=1,umask=2/: event syntax error: 'nopmu/event=1,umask=2/': Cannot find "
            "PMU `nopmu'. Missing kernel support?");
}

TEST(RecordOptions, BracesAndGroupOptionMakeEventGroups) {
  record_options braces = parse({"-e", "{cpu-clock,task-clock}:u", "-e", "page-faults"});
  ASSERT_EQ(braces.events.size(), 3u);
  EXPECT_EQ(braces.events[0].group_size, 2u);
  EXPECT_TRUE(braces.events[1].group_member);
  EXPECT_TRUE(braces.events[1].exclude_kernel);
  EXPECT_FALSE(braces.events[2].group_member);
  // --group acts on every -e, wherever it stands, as in perf.
  record_options all = parse({"-e", "cpu-clock,task-clock", "--group", "-e", "page-faults"});
  EXPECT_EQ(all.events[0].group_size, 3u);
  EXPECT_TRUE(all.events[1].group_member);
  EXPECT_TRUE(all.events[2].group_member);
  EXPECT_EQ(parse({"--group"}).events[0].group_size, 0u) << "one event is no group";
}

TEST(RecordOptions, TracepointWildcardExpandsIntoEvents) {
  if (::geteuid() != 0) GTEST_SKIP() << "reading tracefs needs root";
  record_options options = parse({"-e", "sched:sched_wakeup*", "-e", "cpu-clock"});
  ASSERT_EQ(options.events.size(), 3u);
  strings names{options.events[0].name, options.events[1].name};
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (strings{"sched:sched_wakeup", "sched:sched_wakeup_new"}));
  EXPECT_EQ(options.events[2].name, "cpu-clock");
  EXPECT_EQ(error_of({"-e", "sched:nomatch*"}),
            "-e sched:nomatch*: tracepoint 'sched:nomatch*' matches no event of system 'sched'");
}

TEST(RecordOptions, FilterGoesToEveryEventOfTheLastEventOption) {
  if (::geteuid() != 0) GTEST_SKIP() << "reading tracefs needs root";
  record_options options =
      parse({"-e", "sched:sched_switch", "-e", "sched:sched_wakeup*,sched:sched_waking", "--filter",
             "pid == 1", "--filter=prio < 10"});
  ASSERT_EQ(options.events.size(), 4u);
  EXPECT_EQ(options.events[0].filter, "") << "not the last -e";
  for (std::size_t i = 1; i < 4; ++i)
    EXPECT_EQ(options.events[i].filter, "(pid == 1) && (prio < 10)") << options.events[i].name;
  EXPECT_FALSE(options.events[1].exclude_recorder);
}

TEST(RecordOptions, ExcludePerfFiltersOutArecsOwnPid) {
  if (::geteuid() != 0) GTEST_SKIP() << "reading tracefs needs root";
  const std::string own = "common_pid != " + std::to_string(::getpid());
  record_options options = parse({"-e", "sched:sched_switch", "--exclude-perf"});
  ASSERT_EQ(options.events.size(), 1u);
  EXPECT_EQ(options.events[0].filter, own);
  EXPECT_TRUE(options.events[0].exclude_recorder);
  options = parse({"-e", "sched:sched_switch", "--filter", "prev_pid == 42", "--exclude-perf"});
  EXPECT_EQ(options.events[0].filter, "(prev_pid == 42) && (" + own + ")");
  options = parse({"-e", "sched:sched_switch", "--exclude-perf", "--filter", "prev_pid == 42"});
  EXPECT_EQ(options.events[0].filter, "(" + own + ") && (prev_pid == 42)");
}

TEST(RecordOptions, FilterMustFollowAnEventOptionOfTracepoints) {
  EXPECT_EQ(error_of({"--filter", "x", "-e", "cpu-clock"}),
            "--filter x: must follow the -e option of the tracepoints it filters");
  EXPECT_EQ(error_of({"-e", "cpu-clock", "--filter", "x"}),
            "--filter x: must follow a -e of tracepoints; 'cpu-clock' is not a tracepoint (arec "
            "filters only tracepoints)");
  EXPECT_EQ(error_of({"--exclude-perf"}),
            "--exclude-perf: must follow the -e option of the tracepoints it filters");
  EXPECT_EQ(error_of({"-e", "cpu-clock", "--exclude-perf"}),
            "--exclude-perf: must follow a -e of tracepoints; 'cpu-clock' is not a tracepoint "
            "(arec filters only tracepoints)");
  EXPECT_EQ(error_of({"-e", "cpu-clock", "--filter="}), "--filter=: the filter is empty");
  if (::geteuid() != 0) return;
  EXPECT_EQ(error_of({"-e", "sched:sched_switch,cpu-clock", "--filter", "x"}),
            "--filter x: must follow a -e of tracepoints; 'cpu-clock' is not a tracepoint (arec "
            "filters only tracepoints)");
}

TEST(RecordOptions, FrequencyIsSet) {
  record_options options = parse({"-F", "999"});
  EXPECT_EQ(options.frequency, 999u);
  sampling s = effective_sampling(options);
  EXPECT_TRUE(s.use_frequency);
  EXPECT_EQ(s.value, 999u);
}

TEST(RecordOptions, FrequencyMaxReadsTheKernelLimit) {
  std::ifstream file("/proc/sys/kernel/perf_event_max_sample_rate");
  std::uint64_t limit = 0;
  if (!(file >> limit)) GTEST_SKIP() << "no /proc/sys/kernel/perf_event_max_sample_rate";
  EXPECT_EQ(parse({"-F", "max"}).frequency, limit);
}

TEST(RecordOptions, BadFrequencyIsNamed) {
  EXPECT_EQ(error_of({"-F", "0"}), "-F 0: the frequency must be at least 1 Hz");
  EXPECT_EQ(error_of({"--freq=fast"}), "--freq=fast: expected a frequency in Hz or 'max'");
}

TEST(RecordOptions, PeriodIsSet) {
  record_options options = parse({"-c", "100000"});
  EXPECT_EQ(options.period, 100000u);
  sampling s = effective_sampling(options);
  EXPECT_FALSE(s.use_frequency);
  EXPECT_EQ(s.value, 100000u);
}

TEST(RecordOptions, BadPeriodIsNamed) {
  EXPECT_EQ(error_of({"-c", "0"}), "-c 0: the period must be at least 1");
  EXPECT_EQ(error_of({"-c", "1e3"}),
            "-c 1e3: expected a period: a number of events between samples");
}

TEST(RecordOptions, FrequencyAndPeriodAreExclusive) {
  EXPECT_EQ(error_of({"-F", "99", "-c", "1000"}),
            "-F and -c are exclusive: sample at a frequency or every PERIOD events, not both");
  EXPECT_EQ(error_of({"--count=1000", "--freq=99"}),
            "--freq and --count are exclusive: sample at a frequency or every PERIOD events, not "
            "both");
}

TEST(RecordOptions, CallGraphModes) {
  EXPECT_EQ(parse({"-g"}).call_graph, call_graph_mode::fp);
  EXPECT_EQ(parse({"--call-graph", "fp"}).call_graph, call_graph_mode::fp);
  record_options dwarf = parse({"--call-graph=dwarf"});
  EXPECT_EQ(dwarf.call_graph, call_graph_mode::dwarf);
  EXPECT_EQ(dwarf.dwarf_stack_size, 8192u);
  dwarf = parse({"--call-graph", "dwarf,16384"});
  EXPECT_EQ(dwarf.dwarf_stack_size, 16384u);
  EXPECT_EQ(parse({"--call-graph=dwarf,65528"}).dwarf_stack_size, 65528u);
  // perf rounds the size up to a multiple of 8.
  EXPECT_EQ(parse({"--call-graph=dwarf,100"}).dwarf_stack_size, 104u);
}

TEST(RecordOptions, BadCallGraphIsNamed) {
  EXPECT_EQ(error_of({"--call-graph", "lbr"}),
            "--call-graph lbr: unknown call graph mode 'lbr' (expected fp or dwarf)");
  EXPECT_EQ(error_of({"--call-graph=dwarf,70000"}),
            "--call-graph=dwarf,70000: the dwarf stack size must be from 8 to 65528 bytes");
  EXPECT_EQ(error_of({"--call-graph=dwarf,0"}),
            "--call-graph=dwarf,0: the dwarf stack size must be from 8 to 65528 bytes");
  EXPECT_EQ(error_of({"--call-graph=dwarf,big"}),
            "--call-graph=dwarf,big: 'big' is not a stack size in bytes");
  EXPECT_EQ(error_of({"--call-graph=fp,64"}),
            "--call-graph=fp,64: only the dwarf mode takes a stack size");
}

// ---- output ---------------------------------------------------------------------------------

TEST(RecordOptions, OutputPath) {
  EXPECT_EQ(parse({"-o", "x.data"}).output_path, "x.data");
  EXPECT_EQ(parse({"--output=y.data"}).output_path, "y.data");
  EXPECT_EQ(error_of({"-o", ""}), "-o : the output file name is empty");
}

// perf's -z, --compression-level[=N]: the level only attached, the last one given wins.
TEST(RecordOptions, CompressionFlagAndLevel) {
  EXPECT_EQ(parse({"-z"}).compression_level, 1);
  EXPECT_EQ(parse({"-z3"}).compression_level, 3);
  EXPECT_EQ(parse({"--compress"}).compression_level, 1);  // a prefix of --compression-level
  EXPECT_EQ(parse({"--compression-level"}).compression_level, 1);
  EXPECT_EQ(parse({"--compression-level=7"}).compression_level, 7);
  EXPECT_EQ(parse({"--compression-level=5", "-z"}).compression_level, 1);
  record_options separate = parse({"-z", "22"});
  EXPECT_EQ(separate.compression_level, 1);
  EXPECT_EQ(separate.workload, strings{"22"}) << "as perf: a separate word is the command";
}

TEST(RecordOptions, CompressionLevelOutOfRangeIsNamed) {
  const char* message = "the compression level must be a whole number from 1 to 22";
  EXPECT_EQ(error_of({"--compression-level=0"}), std::string("--compression-level=0: ") + message);
  EXPECT_EQ(error_of({"--compression-level=23"}),
            std::string("--compression-level=23: ") + message);
  EXPECT_EQ(error_of({"-zx"}), std::string("-z x: ") + message);
}

TEST(RecordOptions, QuietAndRepeatedVerbose) {
  record_options options = parse({"-q", "-v", "--verbose", "-vv"});
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(options.verbose, 4);
}

// ---- buffers and threads --------------------------------------------------------------------

TEST(RecordOptions, MmapPagesPowerOfTwo) {
  EXPECT_EQ(parse({"-m", "1"}).mmap_pages, 1u);
  EXPECT_EQ(parse({"-m", "128"}).mmap_pages, 128u);
  EXPECT_EQ(parse({"--mmap-pages=1024"}).mmap_pages, 1024u);
}

TEST(RecordOptions, MmapSizesBecomePowerOfTwoPages) {
  std::uint32_t page = static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(parse({"-m", "512K"}).mmap_pages, 512u * 1024 / page);
  EXPECT_EQ(parse({"-m", "2M"}).mmap_pages, 2u * 1024 * 1024 / page);
  EXPECT_EQ(parse({"-m", "1B"}).mmap_pages, 1u);
  if (page == 4096) {
    EXPECT_EQ(parse({"-m", "100K"}).mmap_pages, 32u);  // 25 pages rounded up, as perf does
  }
}

// As perf: any count or size is rounded up to a power of two pages (0 to 1), with a note.
TEST(RecordOptions, MmapPagesAreRoundedUpAsPerfDoes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  record_options three = parse({"-m", "3"});
  EXPECT_EQ(three.mmap_pages, 4u);
  ASSERT_EQ(three.notes.size(), 1u);
  if (page == 4096) {
    EXPECT_EQ(three.notes[0], "arec: rounding mmap pages size to 16K (4 pages)");
  }
  EXPECT_EQ(parse({"-m", "0"}).mmap_pages, 1u);
  EXPECT_EQ(parse({"-m", "0K"}).mmap_pages, 1u);
  EXPECT_TRUE(parse({"-m", "4"}).notes.empty());
  EXPECT_TRUE(parse({"-m", "512K"}).notes.empty());
}

// perf's -m PAGES,AUX: the second size is the AUX area's.
TEST(RecordOptions, MmapPagesTakeAnAuxAreaSize) {
  record_options both = parse({"-m", "8,16"});
  EXPECT_EQ(both.mmap_pages, 8u);
  EXPECT_EQ(both.aux_mmap_pages, 16u);
  record_options aux_only = parse({"-m", ",1M"});
  EXPECT_FALSE(aux_only.mmap_pages);
  EXPECT_EQ(aux_only.aux_mmap_pages,
            (1u << 20) / static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE)));
}

TEST(RecordOptions, BadMmapPagesIsNamed) {
  EXPECT_EQ(error_of({"-m", "lots"}),
            "-m lots: expected a number of pages or a size like 512K or 2M");
  EXPECT_EQ(error_of({"-m", "8,x"}),
            "-m 8,x: expected a number of pages or a size like 512K or 2M");
  EXPECT_EQ(error_of({"-m", "4294967296"}),
            "-m 4294967296: the ring buffer must not exceed 2^31 pages");
}

// perf sizes its decompression buffer from a u32: two -z rings and a page must fit in it.
TEST(RecordOptions, CompressedRingsStayBelowTwoGigabytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(parse({"-z", "-m", "1G"}).mmap_pages, (1ull << 30) / page);
  EXPECT_EQ(error_of({"-z", "-m", "2G"}), "with -z, rings must be smaller than 2G (-m " +
                                              std::to_string((1ull << 31) / page) +
                                              " pages is 2G)");
  EXPECT_EQ(parse({"-m", "2G"}).mmap_pages, (1ull << 31) / page) << "fine without -z";
}

TEST(RecordOptions, SwitchOutputTakesSignalSizeOrTime) {
  record_options bare = parse({"--switch-output"});
  ASSERT_TRUE(bare.switch_output);
  EXPECT_TRUE(bare.switch_output->on_signal);
  EXPECT_TRUE(bare.timestamp_filename) << "implied, as in perf";
  EXPECT_TRUE(parse({"--switch-output=signal"}).switch_output->on_signal);
  EXPECT_EQ(parse({"--switch-output=100K"}).switch_output->size, 100u * 1024);
  EXPECT_EQ(parse({"--switch-output=2M"}).switch_output->size, 2u << 20);
  EXPECT_EQ(parse({"--switch-output=512B"}).switch_output->size, 512u);
  EXPECT_EQ(parse({"--switch-output=1G"}).switch_output->size, 1u << 30);
  EXPECT_EQ(parse({"--switch-output=30s"}).switch_output->time, std::chrono::seconds(30));
  EXPECT_EQ(parse({"--switch-output=2m"}).switch_output->time, std::chrono::seconds(120));
  EXPECT_EQ(parse({"--switch-output=1h"}).switch_output->time, std::chrono::seconds(3600));
  EXPECT_EQ(parse({"--switch-output=1d"}).switch_output->time, std::chrono::seconds(86400));
  EXPECT_FALSE(parse({}).switch_output);
  EXPECT_FALSE(parse({}).timestamp_filename);
  const std::string expected =
      ": expected signal, a size like 100M (B, K, M, G) or a time like 30s (s, m, h, d)";
  // perf's tags: a unit is required, sizes upper case, times lower case.
  for (const char* bad : {"foo", "100", "10X", "5q", "-1", "10k", "K", "1.5M"})
    EXPECT_EQ(error_of({(std::string("--switch-output=") + bad).c_str()}),
              std::string("--switch-output=") + bad + expected);
  EXPECT_EQ(error_of({"--switch-output=0K"}),
            "--switch-output=0K: the size or time must be more than 0");
}

// Whole seconds, 5 by default; 0 fetches nothing (a recording's end that must not wait).
TEST(RecordOptions, DebuginfodDeadline) {
  EXPECT_EQ(parse({}).debuginfod_deadline, std::chrono::seconds(5));
  EXPECT_EQ(parse({"--debuginfod-deadline=30"}).debuginfod_deadline, std::chrono::seconds(30));
  EXPECT_EQ(parse({"--debuginfod-deadline", "0"}).debuginfod_deadline, std::chrono::seconds(0));
  for (const char* bad : {"1.5", "-1", "5s", "86401"})
    EXPECT_EQ(
        error_of({(std::string("--debuginfod-deadline=") + bad).c_str()}),
        std::string("--debuginfod-deadline=") + bad + ": expected whole seconds from 0 to 86400");
}

TEST(RecordOptions, SwitchMaxFilesTimestampFilenameAndMaxSize) {
  EXPECT_EQ(parse({"--switch-output", "--switch-max-files=3"}).switch_max_files, 3u);
  EXPECT_EQ(parse({}).switch_max_files, 0u);
  EXPECT_EQ(error_of({"--switch-max-files=x"}), "--switch-max-files=x: expected a number of files");
  EXPECT_TRUE(parse({"--timestamp-filename"}).timestamp_filename);
  EXPECT_EQ(parse({"--max-size=64K"}).max_size, 64u * 1024);
  EXPECT_EQ(parse({"--max-size", "3M"}).max_size, 3u << 20);
  EXPECT_EQ(parse({}).max_size, 0u);
  for (const char* bad : {"64", "0K", "foo", "1s"})
    EXPECT_EQ(error_of({(std::string("--max-size=") + bad).c_str()}),
              std::string("--max-size=") + bad + ": expected a size like 100M (B, K, M, G suffix)");
}

TEST(RecordOptions, MmapFlushAcceptsSizes) {
  EXPECT_EQ(parse({"--mmap-flush=4096"}).mmap_flush, 4096u);
  EXPECT_EQ(parse({"--mmap-flush", "16K"}).mmap_flush, 16384u);
  EXPECT_EQ(parse({"--mmap-flush=1M"}).mmap_flush, 1048576u);
  EXPECT_EQ(error_of({"--mmap-flush=0"}), "--mmap-flush=0: the flush size must be at least 1 byte");
  EXPECT_EQ(error_of({"--mmap-flush=1X"}),
            "--mmap-flush=1X: expected a number of bytes, optionally with a K, M or G suffix");
}

TEST(RecordOptions, ThreadsValueOnlyWithEquals) {
  record_options bare = parse({"--threads", "-a"});
  ASSERT_TRUE(bare.threads_spec);
  EXPECT_EQ(*bare.threads_spec, "");
  EXPECT_TRUE(bare.system_wide);
  // Without '=' the next word is not the spec: it starts the workload.
  record_options separate = parse({"--threads", "core"});
  EXPECT_EQ(*separate.threads_spec, "");
  EXPECT_EQ(separate.workload, (strings{"core"}));
  EXPECT_EQ(parse({"--threads=core"}).threads_spec, "core");
  EXPECT_EQ(parse({"--threads=numa"}).threads_spec, "numa");
  EXPECT_EQ(parse({"--threads=0-3/3:4-7/4"}).threads_spec, "0-3/3:4-7/4");
}

TEST(RecordOptions, SynthesizeThreads) {
  EXPECT_EQ(parse({"--num-thread-synthesize=4"}).synthesize_threads, 4u);
  EXPECT_EQ(error_of({"--num-thread-synthesize", "0"}),
            "--num-thread-synthesize 0: the number of threads must be a positive integer");
}

// ---- run control ----------------------------------------------------------------------------

TEST(RecordOptions, Duration) {
  EXPECT_EQ(parse({"--duration", "2.5"}).duration_s, 2.5);
  EXPECT_EQ(parse({"--duration=10"}).duration_s, 10.0);
  EXPECT_EQ(error_of({"--duration=0"}), "--duration=0: the duration must be more than 0 seconds");
  EXPECT_EQ(error_of({"--duration", "-1"}),
            "--duration -1: the duration must be more than 0 seconds");
  EXPECT_EQ(error_of({"--duration", "soon"}), "--duration soon: expected a number of seconds");
  EXPECT_EQ(error_of({"--duration", "inf"}), "--duration inf: expected a number of seconds");
}

TEST(RecordOptions, DryRun) {
  EXPECT_TRUE(parse({"--dry-run"}).dry_run);
}

// ---- perf record's event and output flags ---------------------------------------------------

TEST(RecordOptions, InheritAndPrivilegeScope) {
  EXPECT_TRUE(parse({}).attrs.inherit);
  EXPECT_FALSE(parse({"-i"}).attrs.inherit);
  EXPECT_FALSE(parse({"--no-inherit"}).attrs.inherit);
  EXPECT_EQ(parse({}).attrs.privileges, privilege_scope::as_given);
  EXPECT_EQ(parse({"--all-user"}).attrs.privileges, privilege_scope::user_only);
  EXPECT_EQ(parse({"--all-kernel", "--all-kernel"}).attrs.privileges, privilege_scope::kernel_only);
  EXPECT_EQ(error_of({"--all-user", "--all-kernel"}), "--all-user and --all-kernel are exclusive");
}

TEST(RecordOptions, ClockidTakesPerfsNamesAndNumbers) {
  EXPECT_FALSE(parse({}).attrs.clockid);
  EXPECT_EQ(parse({"-k", "monotonic"}).attrs.clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(parse({"-k", "mono"}).attrs.clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(parse({"-k", "CLOCK_MONOTONIC_RAW"}).attrs.clockid, CLOCK_MONOTONIC_RAW);
  EXPECT_EQ(parse({"-k", "clock_boottime"}).attrs.clockid, CLOCK_BOOTTIME);
  EXPECT_EQ(parse({"--clockid=Real"}).attrs.clockid, CLOCK_REALTIME);
  EXPECT_EQ(parse({"-k", "tai"}).attrs.clockid, CLOCK_TAI);
  EXPECT_EQ(parse({"-k", "7"}).attrs.clockid, 7);
  EXPECT_EQ(error_of({"-k", "sundial"}),
            "-k sundial: unknown clock (expected monotonic, monotonic_raw, realtime, boottime, "
            "tai, another clock_gettime() name or a number)");
  EXPECT_EQ(error_of({"-k", "mono", "-k", "raw"}), "-k raw: the clock is given twice");
}

TEST(RecordOptions, SideBandAndBufferingFlags) {
  record_options plain = parse({});
  EXPECT_FALSE(parse({}).attrs.per_thread_stat);
  EXPECT_TRUE(parse({"-s"}).attrs.per_thread_stat);
  EXPECT_TRUE(parse({"--stat"}).attrs.per_thread_stat);
  EXPECT_FALSE(plain.attrs.switch_events || plain.attrs.namespaces || plain.attrs.no_samples ||
               plain.attrs.no_buffering || plain.strict_freq || plain.no_buildid);
  record_options all =
      parse({"--switch-events", "--namespaces", "-n", "--no-buffering", "--strict-freq", "-B"});
  EXPECT_TRUE(all.attrs.switch_events);
  EXPECT_TRUE(all.attrs.namespaces);
  EXPECT_TRUE(all.attrs.no_samples);
  EXPECT_TRUE(all.attrs.no_buffering);
  EXPECT_TRUE(all.strict_freq);
  EXPECT_TRUE(all.no_buildid);
}

// perf 6.15's --latency: switch records for a per-task recording, refused system-wide.
TEST(RecordOptions, LatencyRecordsSwitchesOfTasksOnly) {
  EXPECT_FALSE(parse({"--", "true"}).attrs.switch_events);
  EXPECT_TRUE(parse({"--latency", "--", "true"}).attrs.switch_events);
  EXPECT_TRUE(parse({"--latency", "-p", "1"}).attrs.switch_events);
  EXPECT_TRUE(parse({"--latency", "-C", "0", "--", "true"}).attrs.switch_events);
  const std::string refused = "latency profiling is not supported with system-wide collection";
  EXPECT_EQ(error_of({"--latency", "-a"}), refused);
  EXPECT_EQ(error_of({"--latency"}), refused) << "no target is the whole system, as in perf";
  EXPECT_EQ(error_of({"--latency", "-a", "--", "true"}), refused);
}

TEST(RecordOptions, DelayTakesPerfsThreeForms) {
  EXPECT_FALSE(parse({}).delayed);
  record_options plain = parse({"-D", "300"});
  EXPECT_TRUE(plain.delayed);
  EXPECT_EQ(plain.enable_windows, (std::vector<enable_window>{{300, std::nullopt}}));
  EXPECT_FALSE(parse({"--delay=0"}).delayed) << "0 is no delay, as in perf";
  record_options never = parse({"-D", "-1"});
  EXPECT_TRUE(never.delayed);
  EXPECT_TRUE(never.enable_windows.empty());
  record_options ranges = parse({"-D", "10-20,30-40"});
  EXPECT_EQ(ranges.enable_windows, (std::vector<enable_window>{{10, 20}, {30, 40}}));
  EXPECT_EQ(error_of({"-D", "x"}),
            "-D x: expected a delay in ms, -1 (start disabled), or ranges like 10-20,30-40");
  EXPECT_EQ(error_of({"-D", "20-10"}), "-D 20-10: a range must end after it starts");
  EXPECT_EQ(error_of({"-D", "10-30,20-40"}),
            "-D 10-30,20-40: ranges must be in order and must not overlap");
}

TEST(RecordOptions, ControlTakesPerfsFdAndFifoForms) {
  EXPECT_FALSE(parse({}).control);
  std::optional<arec::record::control_spec> fds = parse({"--control", "fd:5,6"}).control;
  ASSERT_TRUE(fds);
  EXPECT_EQ(fds->control_fd, 5);
  EXPECT_EQ(fds->ack_fd, 6);
  std::optional<arec::record::control_spec> fifo = parse({"--control=fifo:/tmp/ctl"}).control;
  ASSERT_TRUE(fifo);
  EXPECT_TRUE(fifo->fifo);
  EXPECT_EQ(fifo->control_path, "/tmp/ctl");
  EXPECT_EQ(error_of({"--control", "ctl"}),
            "--control ctl: expected fd:CTL[,ACK] or fifo:CTL[,ACK]");
}

TEST(RecordOptions, RealtimePriorityIsOneTo99) {
  EXPECT_FALSE(parse({}).realtime_priority);
  EXPECT_EQ(parse({"-r", "5"}).realtime_priority, 5);
  EXPECT_EQ(parse({"--realtime=99"}).realtime_priority, 99);
  for (const char* bad : {"0", "100", "x"})
    EXPECT_EQ(error_of({"-r", bad}), std::string("-r ") + bad +
                                         ": the realtime priority must be a whole number from 1 "
                                         "to 99");
}

TEST(RecordOptions, BranchFiltersTakePerfsNames) {
  EXPECT_EQ(parse({}).attrs.branch_sample_type, 0u);
  EXPECT_EQ(parse({"-b"}).attrs.branch_sample_type, std::uint64_t{PERF_SAMPLE_BRANCH_ANY});
  EXPECT_EQ(parse({"-j", "any_call,u"}).attrs.branch_sample_type,
            std::uint64_t{PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER});
  EXPECT_EQ(
      parse({"--branch-filter=u,k"}).attrs.branch_sample_type,
      std::uint64_t{PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_ANY})
      << "privilege levels alone mean any branch, as perf";
  EXPECT_NE(error_of({"-j", "any,bogus"}).find("-j any,bogus: unknown branch filter 'bogus'"),
            std::string::npos);
}

TEST(RecordOptions, SynthTakesPerfsWords) {
  EXPECT_EQ(parse({}).synth, (synth_options{true, true, true}));
  EXPECT_EQ(parse({"--synth=no"}).synth, (synth_options{false, false, false}));
  EXPECT_EQ(parse({"--synth", "task"}).synth, (synth_options{true, false, false}));
  EXPECT_EQ(parse({"--synth=mmap"}).synth, (synth_options{true, true, false}));
  EXPECT_EQ(parse({"--synth=cgroup,task"}).synth, (synth_options{true, false, true}));
  EXPECT_EQ(parse({"--synth=all"}).synth, (synth_options{true, true, true}));
  EXPECT_EQ(error_of({"--synth=some"}),
            "--synth=some: expected no, all, task, mmap or cgroup (comma-separated)");
}

// ---- targets: -u, -G, --all-cgroups ----------------------------------------------------------

TEST(RecordOptions, UserIsATargetLikePid) {
  record_options options = parse({"-u", "nobody"});
  EXPECT_EQ(options.user, "nobody");
  EXPECT_FALSE(options.system_wide);  // -u is a target: no default -a
  EXPECT_EQ(parse({"--uid=65534", "--", "x"}).user, "65534");
  EXPECT_FALSE(parse({}).user);
}

// perf's target__validate: -p/-t win over -u, -u over -C and -a, each with perf's warning.
TEST(RecordOptions, UserOverridesAsPerfsTargetRules) {
  record_options pid = parse({"-u", "nobody", "-p", "1"});
  EXPECT_FALSE(pid.user);
  EXPECT_EQ(pid.notes, strings{"arec: warning: PID/TID switch overriding UID"});
  record_options cpu = parse({"-u", "nobody", "-C", "0"});
  EXPECT_TRUE(cpu.cpus.empty());
  EXPECT_EQ(cpu.notes, strings{"arec: warning: UID switch overriding CPU"});
  record_options system = parse({"-a", "-u", "nobody"});
  EXPECT_FALSE(system.system_wide);
  EXPECT_EQ(system.notes, strings{"arec: warning: UID switch overriding SYSTEM"});
}

std::vector<std::string> cgroups_of(const record_options& options) {
  std::vector<std::string> names;
  for (const event_spec& event : options.events) names.push_back(event.cgroup);
  return names;
}

// perf's parse_cgroups: the Nth name goes to the Nth event given so far; empty names skip one.
TEST(RecordOptions, CgroupsPairWithEventsInOrder) {
  EXPECT_EQ(cgroups_of(parse({"-a", "-e", "cpu-clock,task-clock", "-G", "/a,/b"})),
            (strings{"/a", "/b"}));
  EXPECT_EQ(
      cgroups_of(parse({"-a", "-e", "cpu-clock", "-e", "task-clock", "-e", "faults", "-G", ",/b"})),
      (strings{"", "/b", ""}));
  // Repeated -G continue the count.
  EXPECT_EQ(cgroups_of(parse({"-a", "-e", "cpu-clock", "-G", "/a", "-e", "faults", "-G", "/b"})),
            (strings{"/a", "/b"}));
}

TEST(RecordOptions, OneCgroupGoesToEveryEventGivenBeforeIt) {
  EXPECT_EQ(cgroups_of(parse({"-a", "-e", "cpu-clock", "-e", "faults", "--cgroup=/a"})),
            (strings{"/a", "/a"}));
  EXPECT_EQ(cgroups_of(parse({"-a", "-e", "cpu-clock", "-G", "/a", "-e", "faults"})),
            (strings{"/a", ""}));
}

TEST(RecordOptions, CgroupsNeedEventsBeforeThemAndSystemWideMode) {
  EXPECT_EQ(error_of({"-a", "-G", "/"}), "-G /: must define events before cgroups");
  EXPECT_EQ(error_of({"-a", "-e", "cpu-clock", "-G", "/,/b"}),
            "-G /,/b: cgroup '/b' has no event: only 1 given before it with -e");
  EXPECT_EQ(error_of({"-e", "cpu-clock", "-G", "/", "--", "x"}),
            "cgroup monitoring only available in system-wide mode (-a)");
  EXPECT_EQ(error_of({"-e", "cpu-clock", "-C", "0", "-G", "/"}),
            "cgroup monitoring only available in system-wide mode (-a)");
  EXPECT_EQ(error_of({"-a", "-u", "nobody", "-e", "cpu-clock", "-G", "/"}),
            "cgroup monitoring only available in system-wide mode (-a)");
  // Without a workload or target, -a is the default, as in perf.
  EXPECT_EQ(cgroups_of(parse({"-e", "cpu-clock", "-G", "/"})), strings{"/"});
}

TEST(RecordOptions, AllCgroups) {
  EXPECT_FALSE(parse({}).attrs.all_cgroups);
  EXPECT_TRUE(parse({"--all-cgroups"}).attrs.all_cgroups);
}

TEST(RecordOptions, NoBuildIdCache) {
  EXPECT_FALSE(parse({}).no_buildid_cache);
  EXPECT_TRUE(parse({"-N"}).no_buildid_cache);
  EXPECT_TRUE(parse({"--no-buildid-cache"}).no_buildid_cache);
  EXPECT_FALSE(parse({"-B"}).no_buildid_cache) << "-B implies it in the session, as in perf";
}

// Flags whose effect arec always has are accepted so that perf command lines run unchanged.
TEST(RecordOptions, FlagsArecAlwaysHonoursAreAccepted) {
  record_options options =
      parse({"-T", "--sample-cpu", "-P", "--buildid-all", "--timestamp-boundary", "--", "x"});
  EXPECT_EQ(options.workload, strings{"x"});
  EXPECT_EQ(options.compression_level, 0);
}

// ---- help -----------------------------------------------------------------------------------

TEST(RecordHelp, ListsEveryAcceptedOptionName) {
  std::string help = record_help_text();
  std::vector<std::string> names = record_option_names();
  EXPECT_GE(names.size(), 30u);
  for (const std::string& name : names) {
    // The name must appear whole, not only as the start of a longer name.
    bool found = false;
    for (std::size_t at = help.find(name); at != std::string::npos && !found;
         at = help.find(name, at + 1)) {
      char after = at + name.size() < help.size() ? help[at + name.size()] : ' ';
      found = !(std::isalnum(static_cast<unsigned char>(after)) || after == '-');
    }
    EXPECT_TRUE(found) << name;
  }
}

TEST(RecordHelp, EveryListedNameIsAccepted) {
  for (const std::string& name : record_option_names()) {
    try {
      parse_command({name.c_str(), "1"});
    } catch (const usage_error& error) {
      EXPECT_EQ(std::string(error.what()).find("unknown option"), std::string::npos) << name;
    }
  }
}

TEST(RecordHelp, GroupsDefaultsAndExamples) {
  std::string help = record_help_text();
  for (const char* text :
       {"Target selection:", "Event selection and sampling:", "Output:", "Buffers and threads:",
        "Run control:", "(default: 4000 Hz)", "(default: perf.data)", "arec --threads=core -a",
        "arec --threads=0-3/3:4-7/4 -- ./app", "arec -a -g -- sleep 5", "perf report ",
        "  -C, --cpu LIST", "      --threads[=SPEC]"})
    EXPECT_NE(help.find(text), std::string::npos) << text;
  std::size_t start = 0;
  while (start < help.size()) {
    std::size_t end = help.find('\n', start);
    EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
    start = end + 1;
  }
}

// --push: the recording is cut into windows as --switch-output=TIME cuts it, at a fleet agent's
// rate unless -F or -c say otherwise.
TEST(RecordPushOptions, PushCutsWindowsAtTheIntervalAndSamplesAt99Hz) {
  record_request request =
      parse_request({"-a", "--push", "http://ann@pyro:4040/", "--push-interval", "5s",
                     "--push-label", "env=prod", "--push-label", "service_name=shop"});
  ASSERT_TRUE(request.push.has_value());
  EXPECT_EQ(request.push->url, "http://pyro:4040");
  EXPECT_EQ(request.push->basic_user, "ann");
  EXPECT_EQ(request.push->basic_password, "") << "a password comes from --push-password-file";
  EXPECT_EQ(request.push->interval, std::chrono::seconds(5));
  ASSERT_EQ(request.push->labels.size(), 2u);
  EXPECT_EQ(request.push->labels[0], (arec::fleet::label{"env", "prod"}));
  EXPECT_EQ(request.push->labels[1], (arec::fleet::label{"service_name", "shop"}));
  EXPECT_EQ(request.push->spool_dir, default_push_spool);
  ASSERT_TRUE(request.options.switch_output.has_value());
  EXPECT_EQ(request.options.switch_output->time, std::chrono::seconds(5));
  EXPECT_FALSE(request.options.switch_output->on_signal);
  EXPECT_TRUE(request.options.timestamp_filename);
  EXPECT_EQ(request.options.frequency, std::optional<std::uint64_t>(default_push_frequency_hz));
  EXPECT_EQ(parse_request({"--push", "http://h"}).push->interval, std::chrono::seconds(15));
}

TEST(RecordPushOptions, ARateGivenWinsAndWithoutPushThereIsNone) {
  EXPECT_EQ(parse({"--push", "http://h", "-F", "999"}).frequency,
            std::optional<std::uint64_t>(999));
  record_options counted = parse({"--push", "http://h", "-c", "100000"});
  EXPECT_FALSE(counted.frequency.has_value());
  EXPECT_EQ(counted.period, std::optional<std::uint64_t>(100000));
  record_request plain = parse_request({"-a"});
  EXPECT_FALSE(plain.push.has_value());
  EXPECT_FALSE(plain.options.switch_output.has_value());
  EXPECT_FALSE(plain.options.frequency.has_value());
}

TEST(RecordPushOptions, TenantSpoolAndTokenFromAFile) {
  arec::test::temp_file token;
  ASSERT_EQ(::write(token.fd(), "tok-123\n", 8), 8);
  record_request request =
      parse_request({"--push", "https://h", "--push-tenant", "team-a", "--push-token-file",
                     token.path().c_str(), "--push-spool", "/var/spool/x"});
  ASSERT_TRUE(request.push.has_value());
  EXPECT_EQ(request.push->tenant_id, "team-a");
  EXPECT_EQ(request.push->bearer_token, "tok-123");
  EXPECT_EQ(request.push->spool_dir, "/var/spool/x");
}

TEST(RecordPushOptions, NoInlineTurnsOffInlinedFramesOfPushedProfilesOnly) {
  record_request inlined = parse_request({"--push", "http://h"});
  ASSERT_TRUE(inlined.push.has_value());
  EXPECT_TRUE(inlined.push->inline_frames);
  record_request plain = parse_request({"--push", "http://h", "--push-no-inline"});
  ASSERT_TRUE(plain.push.has_value());
  EXPECT_FALSE(plain.push->inline_frames);
  EXPECT_EQ(error_of({"--push-no-inline"}), "--push-* options need --push URL");
}

TEST(RecordPushOptions, ConflictsAndBadValuesAreUsageErrors) {
  EXPECT_EQ(error_of({"--push-label", "a=b"}), "--push-* options need --push URL");
  EXPECT_EQ(error_of({"--push", "http://h", "-o", "-"}),
            "--push needs files to export: it cannot write to a pipe (-o -)");
  EXPECT_EQ(error_of({"--push", "http://h", "--switch-output=1s"}),
            "--push cuts its own windows: it cannot be used with --switch-output");
  EXPECT_EQ(error_of({"--push", "http://h", "--overwrite"}),
            "--push sends every window: it cannot be used with --overwrite");
  EXPECT_EQ(error_of({"--push", "ftp://h"}),
            "--push: expected an http:// or https:// URL, got 'ftp://h'");
  EXPECT_EQ(error_of({"--push", "http://h", "--push-interval", "200ms"}),
            "--push-interval: expected 1s or more, got '200ms'");
  EXPECT_EQ(error_of({"--push", "http://h", "--push-label", "9x=1"}).rfind("--push-label: ", 0),
            0u);
  EXPECT_EQ(error_of({"--push", "http://h", "--push-token-file", "/nonexistent/token"}),
            "--push-token-file: expected a file holding the token, got '/nonexistent/token'");
}
