#include "cli/options.hpp"

#include <unistd.h>

#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include "io/cpu_list.hpp"
#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::record {
namespace {

enum class argument_kind {
  none,      // a flag
  required,  // "-C LIST", "-CLIST", "--cpu LIST", "--cpu=LIST"
  optional,  // only attached: "--threads=SPEC", "--threads"
};

// The groups of the help text, in the order printed.
enum class option_group { target, events, files, output, buffers, control, help, count_ };

constexpr std::array<std::string_view, static_cast<std::size_t>(option_group::count_)> group_titles{
    "Target selection",
    "Event selection and sampling",
    "Files",
    "Output",
    "Buffers and threads",
    "Run control",
    "Help"};

// One option as the user spelled it, for the handler and its error messages.
struct option_use {
  std::string_view spelled;  // "-C" or "--cpu", whichever was used
  std::string_view value;    // empty for flags and a bare optional value
  bool with_equals = false;  // "--cpu=0-3" rather than "--cpu 0-3"
};

// Throws "SPELLED VALUE: PROBLEM", the form of every bad-value message.
[[noreturn]] void reject(const option_use& use, std::string_view problem) {
  std::string message{use.spelled};
  message += use.with_equals ? '=' : ' ';
  message += use.value;
  message += ": ";
  message += problem;
  throw usage_error(message);
}

template <typename State>
struct option_spec {
  std::string_view long_name;  // without "--"; empty when there is none
  char short_name;             // 0 when there is none
  argument_kind argument;
  std::string_view argument_name;  // "LIST"
  std::string_view help;
  std::string_view default_text;  // empty when there is nothing to say
  option_group group;
  void (*apply)(State&, const option_use&);
};

std::string quoted(std::string_view text) {
  std::string result = "'";
  result += text;
  result += '\'';
  return result;
}

// A whole decimal number without sign or blanks.
std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || stop != end) return std::nullopt;
  return value;
}

// The multiplier of perf's size suffixes B, K, M and G (either case); 0 for anything else.
std::uint64_t size_unit(char suffix) {
  constexpr std::string_view suffixes = "bkmg";
  auto at = suffixes.find(static_cast<char>(std::tolower(static_cast<unsigned char>(suffix))));
  return at == std::string_view::npos ? 0 : std::uint64_t{1} << (10 * at);
}

bool has_size_suffix(std::string_view text) {
  return !text.empty() && size_unit(text.back());
}

// A byte count with an optional size suffix: "512K" = 524288.
std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t unit = 1;
  if (has_size_suffix(text)) {
    unit = size_unit(text.back());
    text.remove_suffix(1);
  }
  std::optional<std::uint64_t> count = parse_unsigned(text);
  if (!count || *count > std::numeric_limits<std::uint64_t>::max() / unit) return std::nullopt;
  return *count * unit;
}

// Splits "a,b" at commas outside perf's "pmu/terms,.../" and "{group}" syntax, so that such
// an event is reported whole rather than cut at a comma.
std::vector<std::string_view> split_event_list(std::string_view text) {
  std::vector<std::string_view> parts;
  bool in_terms = false;
  int braces = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/') in_terms = !in_terms;
    if (c == '{') ++braces;
    if (c == '}') --braces;
    if (c == ',' && !in_terms && braces == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

int parse_compression_level(const option_use& use) {
  std::optional<std::uint64_t> level = parse_unsigned(use.value);
  if (!level || *level < 1 || *level > 22)
    reject(use, "the compression level must be a whole number from 1 to 22");
  return static_cast<int>(*level);
}

// ---- record ---------------------------------------------------------------------------------

// What the handlers fill in; `finished` stops parsing at --help and --version.
struct record_state {
  record_options options;
  enum class request { none, help, version } finished = request::none;
  std::string frequency_spelled;  // "-F" or "--freq", for the -F/-c conflict message
  std::string period_spelled;
};

void apply_cpus(record_state& state, const option_use& use) {
  try {
    state.options.cpus = io::parse_cpu_list(use.value);
  } catch (const std::invalid_argument& error) {
    reject(use, error.what());
  }
  if (state.options.cpus.empty()) reject(use, "the cpu list is empty");
}

void apply_pids(record_state& state, const option_use& use) {
  std::string_view rest = use.value;
  for (;;) {
    auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    std::optional<std::uint64_t> pid = parse_unsigned(part);
    if (!pid || *pid == 0 || *pid > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      reject(use, quoted(part) + " is not a process id (a positive integer)");
    state.options.pids.push_back(static_cast<int>(*pid));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

void apply_events(record_state& state, const option_use& use) {
  for (std::string_view name : split_event_list(use.value)) {
    try {
      state.options.events.push_back(parse_event_spec(name));
    } catch (const usage_error& error) {
      reject(use, error.what());
    }
  }
}

void apply_frequency(record_state& state, const option_use& use) {
  std::uint64_t hz = 0;
  if (use.value == "max") {
    hz = read_max_sample_rate();
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
    reject(use, "unknown call graph mode " + quoted(mode) + " (expected fp or dwarf)");
  state.options.call_graph = call_graph_mode::dwarf;
  state.options.dwarf_stack_size = default_dwarf_stack_size;
  if (!size_text) return;
  std::optional<std::uint64_t> size = parse_unsigned(*size_text);
  if (!size) reject(use, quoted(*size_text) + " is not a stack size in bytes");
  // perf rounds the size up to whole u64s before checking it.
  std::uint64_t rounded = (*size + 7) / 8 * 8;
  if (rounded == 0 || rounded > max_dwarf_stack_size)
    reject(use, "the dwarf stack size must be from 8 to 65528 bytes");
  state.options.dwarf_stack_size = static_cast<std::uint32_t>(rounded);
}

void apply_mmap_pages(record_state& state, const option_use& use) {
  constexpr std::uint64_t max_pages = std::uint64_t{1} << 31;
  std::uint64_t pages = 0;
  if (has_size_suffix(use.value)) {
    std::optional<std::uint64_t> bytes = parse_size(use.value);
    if (!bytes || *bytes == 0) reject(use, "expected a number of pages or a size like 512K or 2M");
    auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    // As perf does, a size becomes whole pages rounded up to a power of two.
    pages = std::bit_ceil((*bytes + page_size - 1) / page_size);
  } else {
    std::optional<std::uint64_t> count = parse_unsigned(use.value);
    if (!count) reject(use, "expected a number of pages or a size like 512K or 2M");
    if (!std::has_single_bit(*count))
      reject(use, "the number of mmap pages must be a power of two");
    pages = *count;
  }
  if (pages > max_pages) reject(use, "the ring buffer must not exceed 2^31 pages");
  state.options.mmap_pages = static_cast<std::uint32_t>(pages);
}

void apply_output(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the output file name is empty");
  state.options.output_path = std::string(use.value);
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

void apply_synthesize_threads(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> count = parse_unsigned(use.value);
  if (!count || *count == 0 || *count > std::numeric_limits<unsigned>::max())
    reject(use, "the number of threads must be a positive integer");
  state.options.synthesize_threads = static_cast<unsigned>(*count);
}

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
    record_spec{"pid", 'p', required, "PID[,PID...]",
                "sample existing processes (all their threads); repeatable", "", target,
                apply_pids},
    record_spec{
        "event", 'e', required, "EVENT[,EVENT...]",
        "event to sample, repeatable: a hardware or software event (cycles, cpu-clock, "
        "page-faults, ...) with optional :u/:k/:h/:p/:P modifiers, a tracepoint SYSTEM:EVENT "
        "or a raw rHEX; see 'perf list'",
        "cycles, or cpu-clock where there is no hardware PMU", events, apply_events},
    record_spec{"freq", 'F', required, "HZ|max",
                "sample HZ times a second; 'max' is kernel.perf_event_max_sample_rate", "4000 Hz",
                events, apply_frequency},
    record_spec{"count", 'c', required, "PERIOD", "sample once every PERIOD events (not with -F)",
                "", events, apply_period},
    record_spec{
        "", 'g', none, "", "record call graphs by frame pointers (--call-graph fp)", "", events,
        [](record_state& s, const option_use&) { s.options.call_graph = call_graph_mode::fp; }},
    record_spec{"call-graph", 0, required, "MODE[,SIZE]",
                "record call graphs: MODE fp (frame pointers) or dwarf (copy SIZE bytes of user "
                "stack per sample, a multiple of 8 up to 65528)",
                "no call graphs; dwarf SIZE 8192", events, apply_call_graph},
    record_spec{"output", 'o', required, "FILE", "write the recording to FILE", "arec.data", output,
                apply_output},
    record_spec{"compress", 'z', none, "", "compress records with zstd level 1", "off", output,
                [](record_state& s, const option_use&) {
                  if (s.options.compression_level == 0) s.options.compression_level = 1;
                }},
    record_spec{"compression-level", 0, required, "N",
                "compress records with zstd level N, 1 (fastest) to 22 (smallest); implies -z", "",
                output,
                [](record_state& s, const option_use& use) {
                  s.options.compression_level = parse_compression_level(use);
                }},
    record_spec{"buildid-mmap", 0, none, "",
                "let the kernel put build-ids in MMAP2 records; beware: the kernel then marks "
                "the MMAP2 records of every other perf session on the machine as holding "
                "build-ids too, which perf 6.1 cannot read",
                "build-ids read from the files", output,
                [](record_state& s, const option_use&) { s.options.buildid_mmap = true; }},
    record_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                [](record_state& s, const option_use&) { s.options.quiet = true; }},
    record_spec{"verbose", 'v', none, "", "print more details; repeat for more (-vv)", "", output,
                [](record_state& s, const option_use&) { ++s.options.verbose; }},
    record_spec{"mmap-pages", 'm', required, "PAGES|SIZE",
                "ring buffer size per CPU: a power of two number of pages, or a size like 512K "
                "or 2M (rounded up to a power of two pages)",
                "128 pages, 512K", buffers, apply_mmap_pages},
    record_spec{"mmap-flush", 0, required, "BYTES",
                "drain a ring buffer only once it holds BYTES (K, M, G suffixes allowed)", "1",
                buffers, apply_mmap_flush},
    record_spec{"threads", 0, optional, "SPEC",
                "stream with parallel threads, one per SPEC: cpu, core, package, numa, or "
                "CPUS/AFFINITY[:CPUS/AFFINITY...] (each thread drains CPUS and runs on "
                "AFFINITY); bare --threads means cpu",
                "one streaming thread", buffers, apply_threads},
    record_spec{"num-thread-synthesize", 0, required, "N",
                "use N threads to synthesize the existing processes at startup",
                "online cpus, at most 8", buffers, apply_synthesize_threads},
    record_spec{"duration", 0, required, "SECONDS", "stop after SECONDS (fractions allowed)",
                "until COMMAND exits or Ctrl-C", control, apply_duration},
    record_spec{"dry-run", 0, none, "", "check the options, then exit without recording", "",
                control, [](record_state& s, const option_use&) { s.options.dry_run = true; }},
    record_spec{
        "help", 'h', none, "", "show this help and exit", "", help,
        [](record_state& s, const option_use&) { s.finished = record_state::request::help; }},
    record_spec{
        "version", 0, none, "", "show arec's version and exit", "", help,
        [](record_state& s, const option_use&) { s.finished = record_state::request::version; }},
};

// ---- convert --------------------------------------------------------------------------------

struct convert_state {
  convert_options options;
  bool finished = false;  // --help
};

using convert_spec = option_spec<convert_state>;

constexpr std::array convert_table{
    convert_spec{"input", 'i', required, "FILE", "read the arec recording FILE", "arec.data", files,
                 [](convert_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the input file name is empty");
                   s.options.input = std::string(use.value);
                 }},
    convert_spec{"output", 'o', required, "FILE", "write the perf.data file FILE", "arec.perf.data",
                 files,
                 [](convert_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the output file name is empty");
                   s.options.output = std::string(use.value);
                 }},
    convert_spec{"keep-compressed", 0, none, "",
                 "keep the output compressed, at the recording's zstd level", "", output,
                 [](convert_state& s, const option_use&) { s.options.keep_compressed = true; }},
    convert_spec{"compress", 'z', none, "", "compress the output with zstd level 1", "off", output,
                 [](convert_state& s, const option_use&) {
                   if (s.options.compression_level == 0) s.options.compression_level = 1;
                 }},
    convert_spec{"compression-level", 0, required, "N",
                 "compress the output with zstd level N, 1 (fastest) to 22 (smallest)", "", output,
                 [](convert_state& s, const option_use& use) {
                   s.options.compression_level = parse_compression_level(use);
                 }},
    convert_spec{"salvage", 0, none, "",
                 "recover what can be read from a truncated or damaged recording", "", output,
                 [](convert_state& s, const option_use&) { s.options.salvage = true; }},
    convert_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                 [](convert_state& s, const option_use&) { s.options.quiet = true; }},
    convert_spec{"verbose", 'v', none, "", "print more details; repeat for more (-vv)", "", output,
                 [](convert_state& s, const option_use&) { ++s.options.verbose; }},
    convert_spec{"help", 'h', none, "", "show this help and exit", "", help,
                 [](convert_state& s, const option_use&) { s.finished = true; }},
};

// ---- the parser -----------------------------------------------------------------------------

bool is_finished(const record_state& state) {
  return state.finished != record_state::request::none;
}
bool is_finished(const convert_state& state) {
  return state.finished;
}

// An exact long name, else the only one that starts with `name` (as perf accepts).
template <typename State, std::size_t N>
const option_spec<State>& find_long(const std::array<option_spec<State>, N>& table,
                                    std::string_view name, std::string_view arg) {
  const option_spec<State>* match = nullptr;
  int prefix_matches = 0;
  for (const option_spec<State>& spec : table) {
    if (spec.long_name.empty()) continue;
    if (spec.long_name == name) return spec;
    if (!name.empty() && spec.long_name.starts_with(name)) {
      match = &spec;
      ++prefix_matches;
    }
  }
  if (prefix_matches == 1) return *match;
  if (prefix_matches > 1) {
    std::string candidates;
    for (const option_spec<State>& spec : table)
      if (!spec.long_name.empty() && spec.long_name.starts_with(name))
        candidates += (candidates.empty() ? "--" : ", --") + std::string(spec.long_name);
    throw usage_error("ambiguous option " + quoted(arg) + " (could be " + candidates + ")");
  }
  throw usage_error("unknown option " + quoted(arg));
}

template <typename State, std::size_t N>
const option_spec<State>& find_short(const std::array<option_spec<State>, N>& table, char name,
                                     std::string_view arg) {
  for (const option_spec<State>& spec : table)
    if (spec.short_name == name) return spec;
  std::string message = "unknown option '-" + std::string(1, name) + "'";
  if (arg.size() > 2) message += " in " + quoted(arg);
  throw usage_error(message);
}

[[noreturn]] void throw_missing_value(std::string_view spelled) {
  throw usage_error("option " + quoted(spelled) + " requires a value");
}

// Applies the options in `args` to `state` and returns the index of the first argument after
// them: the workload, or args.size(). Stops early once a handler finishes the state.
template <typename State, std::size_t N>
std::size_t parse_arguments(std::span<const char* const> args,
                            const std::array<option_spec<State>, N>& table, State& state) {
  std::size_t i = 0;
  while (i < args.size() && !is_finished(state)) {
    std::string_view arg = args[i];
    if (arg == "--") return i + 1;
    if (arg.size() < 2 || arg[0] != '-') return i;  // the workload starts here
    ++i;
    if (arg[1] == '-') {
      std::string_view body = arg.substr(2);
      auto equals = body.find('=');
      const option_spec<State>& spec = find_long(table, body.substr(0, equals), arg);
      std::string spelled = "--" + std::string(spec.long_name);
      option_use use{.spelled = spelled};
      if (equals != std::string_view::npos) {
        if (spec.argument == argument_kind::none)
          throw usage_error("option " + quoted(spelled) + " takes no value");
        use.value = body.substr(equals + 1);
        use.with_equals = true;
      } else if (spec.argument == argument_kind::required) {
        if (i == args.size()) throw_missing_value(spelled);
        use.value = args[i++];
      }
      spec.apply(state, use);
      continue;
    }
    // One or more short options: "-a", "-ag", "-C0,1", "-agC 0,1".
    for (std::size_t pos = 1; pos < arg.size() && !is_finished(state); ++pos) {
      const option_spec<State>& spec = find_short(table, arg[pos], arg);
      char spelled[3] = {'-', spec.short_name, '\0'};
      option_use use{.spelled = spelled};
      if (spec.argument == argument_kind::none) {
        spec.apply(state, use);
        continue;
      }
      use.value = arg.substr(pos + 1);
      if (use.value.empty() && spec.argument == argument_kind::required) {
        if (i == args.size()) throw_missing_value(spelled);
        use.value = args[i++];
      }
      spec.apply(state, use);
      break;
    }
  }
  return i;
}

// ---- help text ------------------------------------------------------------------------------

constexpr std::size_t help_column = 32;
constexpr std::size_t help_width = 100;

// Appends `text` word-wrapped to help_width, continuation lines indented to help_column.
void append_wrapped(std::string& out, std::size_t column, std::string_view text) {
  while (!text.empty()) {
    std::size_t room = help_width - column;
    std::size_t cut = text.size();
    if (cut > room) {
      cut = text.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0) cut = text.find(' ');
      if (cut == std::string_view::npos) cut = text.size();
    }
    out += text.substr(0, cut);
    out += '\n';
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!text.empty()) out.append(help_column, ' ');
    column = help_column;
  }
}

template <typename State, std::size_t N>
void append_option_groups(std::string& out, const std::array<option_spec<State>, N>& table) {
  for (std::size_t g = 0; g < group_titles.size(); ++g) {
    bool titled = false;
    for (const option_spec<State>& spec : table) {
      if (static_cast<std::size_t>(spec.group) != g) continue;
      if (!titled) {
        out += '\n';
        out += group_titles[g];
        out += ":\n";
        titled = true;
      }
      std::string left = "  ";
      left += spec.short_name ? std::string{'-', spec.short_name} : "  ";
      if (!spec.long_name.empty()) {
        left += spec.short_name ? ", --" : "  --";
        left += spec.long_name;
      }
      if (spec.argument == argument_kind::required) {
        left += ' ';
        left += spec.argument_name;
      } else if (spec.argument == argument_kind::optional) {
        left += "[=";
        left += spec.argument_name;
        left += ']';
      }
      std::string help{spec.help};
      if (!spec.default_text.empty()) {
        help += " (default: ";
        help += spec.default_text;
        help += ')';
      }
      out += left;
      if (left.size() + 2 > help_column) {
        out += '\n';
        out.append(help_column, ' ');
      } else {
        out.append(help_column - left.size(), ' ');
      }
      append_wrapped(out, help_column, help);
    }
  }
}

}  // namespace

record_command parse_record_command_line(std::span<const char* const> args) {
  record_state state;
  std::size_t workload = parse_arguments(args, record_table, state);
  if (state.finished == record_state::request::help) return help_request{record_help_text()};
  if (state.finished == record_state::request::version) return version_request{};
  record_options& options = state.options;
  if (options.frequency && options.period)
    throw usage_error(state.frequency_spelled + " and " + state.period_spelled +
                      " are exclusive: sample at a frequency or every PERIOD events, not both");
  if (options.compression_level > 0 && options.mmap_pages) {
    // perf's reader learns the size of its per-record decompression buffer from a u32 (the
    // COMPRESSED feature's mmap_len): two rings' worth and a page must fit in it.
    auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    if (*options.mmap_pages * page_size >= (std::uint64_t{1} << 31))
      throw usage_error("with -z, rings must be smaller than 2G (-m " +
                        std::to_string(*options.mmap_pages) + " pages is " +
                        std::to_string((*options.mmap_pages * page_size) >> 30) + "G)");
  }
  for (std::size_t i = workload; i < args.size(); ++i) options.workload.emplace_back(args[i]);
  if (options.events.empty()) options.events.push_back(parse_event_spec("cycles"));
  // perf's default target: without a workload or -p/-C, the whole system.
  if (options.workload.empty() && options.pids.empty() && options.cpus.empty())
    options.system_wide = true;
  return options;
}

std::variant<convert_options, help_request> parse_convert_command_line(
    std::span<const char* const> args) {
  convert_state state;
  std::size_t rest = parse_arguments(args, convert_table, state);
  if (state.finished) return help_request{convert_help_text()};
  if (rest < args.size())
    throw usage_error("unexpected argument " + quoted(args[rest]) + " (name files with -i and -o)");
  return state.options;
}

std::string record_help_text() {
  std::string out =
      "Usage: arec [OPTIONS] [--] [COMMAND [ARGS...]]\n"
      "       arec convert [OPTIONS]   (see arec convert --help)\n"
      "\n"
      "Samples COMMAND, existing processes (-p) or CPUs (-a, -C) into a perf.data file that\n"
      "perf 6.1 and hotspot read. Without COMMAND, -p or -C it samples the whole system until\n"
      "Ctrl-C or --duration. Options follow perf record's names and meanings.\n";
  append_option_groups(out, record_table);
  out +=
      "\nExamples:\n"
      "  arec -a -g -- sleep 5                   sample all CPUs with call graphs for 5 seconds,\n"
      "  perf report -i arec.data                then read the recording with perf\n"
      "  arec -F 999 --call-graph dwarf ./app    sample ./app at 999 Hz with DWARF call graphs\n"
      "  arec -p 1234 --duration 10              sample process 1234 for 10 seconds\n"
      "  arec -a -e sched:sched_switch sleep 1   record every context switch for 1 second\n"
      "  arec --threads=core -a                  stream with one thread per CPU core\n"
      "  arec --threads=0-3/3:4-7/4 -- ./app     two threads: one drains CPUs 0-3 running on\n"
      "                                          CPU 3, the other CPUs 4-7 running on CPU 4\n"
      "  arec -z -g -- ./app                     record ./app compressed, with call graphs,\n"
      "  arec convert -i arec.data -o arec.perf.data\n"
      "                                          then make one plain time-ordered file of it\n"
      "  perf report -i arec.perf.data           and read it with perf report\n"
      "  hotspot arec.perf.data                  or with hotspot\n"
      "\n"
      "While recording on a terminal, one status line shows the time, samples, bytes written,\n"
      "lost samples and the fullest ring buffer (not with -q). At the end one summary line\n"
      "says what was recorded; when samples were lost it suggests how to lose fewer.\n";
  return out;
}

std::string convert_help_text() {
  std::string out =
      "Usage: arec convert [OPTIONS]\n"
      "\n"
      "Converts an arec recording into a perf.data file for perf 6.1 and hotspot.\n";
  append_option_groups(out, convert_table);
  out +=
      "\nExamples:\n"
      "  arec convert -i arec.data -o arec.perf.data && hotspot arec.perf.data\n"
      "  arec convert --salvage -i crashed.data -o perf.data && perf report -i perf.data\n"
      "\n"
      "On a terminal a progress bar shows the bytes converted, the rate and the time left\n"
      "(not with -q).\n";
  return out;
}

template <typename State, std::size_t N>
std::vector<std::string> option_names(const std::array<option_spec<State>, N>& table) {
  std::vector<std::string> names;
  for (const option_spec<State>& spec : table) {
    if (spec.short_name) names.push_back(std::string{'-', spec.short_name});
    if (!spec.long_name.empty()) names.push_back("--" + std::string(spec.long_name));
  }
  return names;
}

std::vector<std::string> record_option_names() {
  return option_names(record_table);
}

std::vector<std::string> convert_option_names() {
  return option_names(convert_table);
}

}  // namespace arec::record
