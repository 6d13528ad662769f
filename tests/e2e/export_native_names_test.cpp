// Native frames named on a stock host (issue 42): the vdso as perf names it, code without
// symbols grouped per function, MiniDebugInfo, inlined functions, debuginfod. Each test records a
// real program and checks `arec export` (and --push, perf report) against perf's own reading of the
// same file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "debuginfod_server.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "pushed_windows.hpp"
#include "recorder.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// The samples of folded stacks whose leaf frame is exactly `name`, and all of them.
struct leaf_count {
  long long named = 0;
  long long total = 0;
};
leaf_count folded_leaves(const std::string& folded, const std::string& name) {
  leaf_count count;
  std::istringstream lines{folded};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    long long samples = std::stoll(line.substr(space + 1));
    std::string stack = line.substr(0, space);
    count.total += samples;
    if (stack.substr(stack.rfind(';') + 1) == name) count.named += samples;
  }
  return count;
}

std::string export_folded(const std::string& data) {
  test::command_result folded =
      test::run_command({arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  EXPECT_EQ(folded.exit_code, 0) << folded.describe();
  return folded.out;
}

void record(const std::string& data, std::vector<std::string> workload) {
  std::vector<std::string> command{arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--"};
  command.insert(command.end(), workload.begin(), workload.end());
  test::command_result recorded = test::run_command(command);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
}

// libc's clock_gettime calls the vdso's; perf script names that frame __vdso_clock_gettime
// ([vdso]) and arec export must name exactly the same samples so.
TEST(ExportNativeNames, TheVdsoIsNamedAsPerfNamesIt) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("clock.data");
  record(data, {test_program("clock_loop"), "600"});
  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  long long perf_named = 0;
  for (const script_sample& sample : script.samples)
    if (sampled_in(sample, "__vdso_clock_gettime", "[vdso]")) ++perf_named;
  ASSERT_GT(perf_named, 0) << excerpt(script.run.out);
  leaf_count arec = folded_leaves(export_folded(data), "__vdso_clock_gettime");
  EXPECT_EQ(arec.named, perf_named) << "of " << arec.total << " samples";
}

TEST(ExportNativeNames, TheVdsoIsNamedInPushedWindows) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  test::stand_in_server server;
  test::command_result run = test::run_command(
      push_command("pyroscope", server.url(), {"--", test_program("clock_loop"), "1500"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  long long named = 0;
  for (const test::received_push& push : server.received()) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(dir.file("window.pb.gz"), std::ios::binary) << push.profiles.front();
    test::command_result decoded =
        npm_pprof_summary(dir.file("window.pb.gz"), "__vdso_clock_gettime");
    ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
    named += json_number(decoded.out, "leafMatches");
  }
  EXPECT_GT(named, 0) << run.describe();
}

// The function symbols of `binary` by address, as nm lists them.
std::map<std::uint64_t, std::string> functions_of(const std::string& binary) {
  test::command_result nm = test::run_command({"nm", "--defined-only", binary});
  EXPECT_EQ(nm.exit_code, 0) << nm.describe();
  std::map<std::uint64_t, std::string> functions;
  std::istringstream lines{nm.out};
  std::string address, type, name;
  while (lines >> address >> type >> name)
    if (type == "t" || type == "T") functions.emplace(std::stoull(address, nullptr, 16), name);
  return functions;
}

// The starts of `binary`'s functions that have no size (nm -S prints none), such as _init.
std::set<std::uint64_t> sizeless_functions_of(const std::string& binary) {
  test::command_result nm = test::run_command({"nm", "-S", "--defined-only", binary});
  EXPECT_EQ(nm.exit_code, 0) << nm.describe();
  std::set<std::uint64_t> starts;
  std::istringstream lines{nm.out};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields{line};
    std::string address, type, name, extra;
    if ((fields >> address >> type >> name) && !(fields >> extra) && (type == "t" || type == "T"))
      starts.insert(std::stoull(address, nullptr, 16));
  }
  return starts;
}

// Folded stacks with each "FILE+0xSTART" frame replaced by the function nm names at START
// ("?START" when nm has no function there: a grouping that is no function's start). Code that
// starts inside a sizeless function's reach (up to the next symbol, as perf and arec read one:
// the PLT after _init, whose call frame information starts there) takes that function's name.
std::string with_true_names(const std::string& folded, const std::string& file,
                            const std::map<std::uint64_t, std::string>& functions,
                            const std::set<std::uint64_t>& sizeless) {
  const std::regex grouped(file + R"(\+0x([0-9a-f]+))");
  std::string out;
  auto last = folded.cbegin();
  for (std::sregex_iterator it(folded.begin(), folded.end(), grouped), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    std::uint64_t start = std::stoull((*it)[1].str(), nullptr, 16);
    auto found = functions.upper_bound(start);
    if (found != functions.begin()) --found;
    bool named = found != functions.end() &&
                 (found->first == start || (found->first < start && sizeless.contains(found->first)));
    out += named ? found->second : "?" + (*it)[1].str();
    last = (*it)[0].second;
  }
  out.append(last, folded.cend());
  return out;
}

// The samples of folded stacks with a frame (the comm left out) that has no name.
long long samples_with_unknown_frames(const std::string& folded) {
  long long count = 0;
  std::istringstream lines{folded};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    std::string frames = ";" + line.substr(0, space) + ";";
    frames = frames.substr(frames.find(';', 1));
    if (frames.find(";[unknown];") != std::string::npos)
      count += std::stoll(line.substr(space + 1));
  }
  return count;
}

// Folded stacks are sorted by their text, which renaming frames reorders.
std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// A stripped binary (strip --strip-all: .symtab gone, .eh_frame kept) is named one frame per
// function, FILE+0xSTART from its FDE: the same recording exported again once the file at its
// path has its symbols back (same build-id) gives the same stacks, frame for frame, with the
// real names at those starts. The pprof mapping keeps the build-id for a backend symbolizer.
TEST(ExportNativeNames, CodeWithoutSymbolsIsOneFramePerFunction) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string full = dir.file("hot_pair.full"), stripped = dir.file("hot_pair");
  test::command_result strip =
      test::run_command({"strip", "--strip-all", "-o", stripped, test_program("hot_pair")});
  ASSERT_EQ(strip.exit_code, 0) << strip.describe();
  std::filesystem::copy_file(test_program("hot_pair"), full);
  ASSERT_TRUE(functions_of(stripped).empty()) << "stripped: nm finds no function";
  const std::string data = dir.file("stripped.data");
  record(data, {stripped, "600"});
  test::command_result grouped_run =
      test::run_command({arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  ASSERT_EQ(grouped_run.exit_code, 0) << grouped_run.describe();
  const std::string& grouped = grouped_run.out;
  // What stays unnamed (no symbol, no FDE: libc's early start-up, kernel frames kallsyms hides)
  // is counted in the summary: exactly the samples with an [unknown] frame.
  long long unknown = samples_with_unknown_frames(grouped);
  EXPECT_EQ(grouped_run.err.find("arec: " + std::to_string(unknown) + " of ") != std::string::npos,
            unknown != 0)
      << unknown << " samples with [unknown] frames\n"
      << grouped_run.err;
  const std::string pprof = dir.file("stripped.pb.gz");
  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data, "-o", pprof}).exit_code,
            0);

  std::filesystem::rename(full, stripped);  // the same build, its symbols back
  const std::string named = export_folded(data);
  std::map<std::uint64_t, std::string> functions = functions_of(stripped);
  EXPECT_EQ(sorted_lines(with_true_names(grouped, "hot_pair", functions,
                                         sizeless_functions_of(stripped))),
            sorted_lines(named))
      << grouped;
  EXPECT_GT(folded_leaves(named, "hot_major").named, 0) << named;

  test::command_result raw =
      test::run_command({"go", "tool", "pprof", "-raw", "-symbolize=none", pprof});
  ASSERT_EQ(raw.exit_code, 0) << raw.describe();
  std::string line = stripped + " " + build_id_of(stripped);
  EXPECT_NE(raw.out.find(line), std::string::npos) << line << "\n" << excerpt(raw.out);
}

// `program` rebuilt at `out` the way find-debuginfo (Fedora, RHEL) builds MiniDebugInfo: the
// functions of .symtab that .dynsym lacks, kept alone in a copy of the debug sections,
// xz-compressed into .gnu_debugdata of the fully stripped binary (gdb's manual, "MiniDebugInfo").
void make_mini_debuginfo_binary(const std::string& program, const std::string& out,
                                const std::string& scratch) {
  const std::string script = R"(set -e
cd "$2"
nm -D "$1" --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
nm "$1" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort > funcsyms
comm -13 dynsyms funcsyms > keep_symbols
objcopy --only-keep-debug "$1" debug
objcopy -S --remove-section .gdb_index --remove-section .comment \
  --keep-symbols=keep_symbols debug mini_debuginfo
strip --strip-all -R .comment -o "$3" "$1"
xz --force mini_debuginfo
objcopy --add-section .gnu_debugdata=mini_debuginfo.xz "$3"
)";
  test::command_result made = test::run_command({"sh", "-c", script, "sh", program, scratch, out});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
}

// The samples perf script (with HOME's build-id cache) takes in `symbol` of `dso`.
long long perf_script_count(const std::string& home, const std::string& data,
                            const std::string& symbol, const std::string& dso) {
  test::command_result run = test::run_command(
      {"env", "HOME=" + home, "perf", "script", "-i", data, "-F", "comm,tid,ip,sym,dso"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  long long count = 0;
  for (const script_sample& sample : parse_perf_script(run.out))
    if (sampled_in(sample, symbol, dso)) ++count;
  return count;
}

// A binary that carries only MiniDebugInfo is named by arec export from it, and arec's
// build-id cache gets its symbols as a `debug` entry, so perf 6.1 (which does not read
// .gnu_debugdata) names it too, on arec's file and on the converted one: the same samples.
TEST(ExportNativeNames, MiniDebugInfoNamesAStrippedBinaryInExportAndPerfReport) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string home = dir.file("home"), scratch = dir.file("scratch");
  std::filesystem::create_directory(home);
  std::filesystem::create_directory(scratch);
  const std::string binary = dir.file("hot_pair");
  make_mini_debuginfo_binary(test_program("hot_pair"), binary, scratch);
  ASSERT_TRUE(functions_of(binary).empty()) << "nm finds no function: only .gnu_debugdata has them";

  const std::string data = dir.file("mini.data");
  test::command_result recorded =
      test::run_command({"env", "HOME=" + home, arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o",
                         data, "--", binary, "600"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  const std::string id = build_id_of(binary);
  EXPECT_TRUE(std::filesystem::exists(home + "/.debug/.build-id/" + id.substr(0, 2) + "/" +
                                      id.substr(2) + "/debug"))
      << "the MiniDebugInfo is in the cache as perf's debug entry";

  test::command_result folded = test::run_command(
      {"env", "HOME=" + home, arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  long long perf_named = perf_script_count(home, data, "hot_major", "hot_pair");
  ASSERT_GT(perf_named, 0) << "perf names it from arec's cache";
  EXPECT_EQ(folded_leaves(folded.out, "hot_major").named, perf_named) << folded.out;

  const std::string converted = dir.file("converted.data");
  test::command_result convert = test::run_command(
      {"env", "HOME=" + home, arec_binary(), "convert", "-i", data, "-o", converted});
  ASSERT_EQ(convert.exit_code, 0) << convert.describe();
  EXPECT_EQ(perf_script_count(home, converted, "hot_major", "hot_pair"), perf_named);
}

// The innermost function addr2line -i gives at each file address of `binary`.
std::map<std::uint64_t, std::string> innermost_functions(const std::string& binary,
                                                         const std::set<std::uint64_t>& addresses) {
  std::vector<std::string> command{"addr2line", "-a", "-f", "-i", "-e", binary};
  for (std::uint64_t address : addresses) {
    std::ostringstream hex;
    hex << "0x" << std::hex << address;
    command.push_back(hex.str());
  }
  test::command_result run = test::run_command(command);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  // "0xADDRESS", then function and file:line pairs, innermost first.
  std::map<std::uint64_t, std::string> innermost;
  std::istringstream lines{run.out};
  std::uint64_t current = 0;
  bool expect_function = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("0x")) {
      current = std::stoull(line, nullptr, 16);
      expect_function = true;
    } else if (expect_function) {
      innermost[current] = line;
      expect_function = false;
    }
  }
  return innermost;
}

// A function inlined into its caller (-g DWARF: DW_TAG_inlined_subroutine) is its own frame
// under the caller, in folded stacks and in pprof's Line list, for exactly the samples whose
// address addr2line -i places in it; --no-inline gives the caller alone, as perf report does.
TEST(ExportNativeNames, AnInlinedFunctionIsShownUnderItsCaller) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("inlined.data"), binary = test_program("inlined_leaf");
  test::command_result recorded =
      test::run_command({arec_binary(), "-q", "-e", "cpu-clock", "-o", data, "--", binary, "500"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();

  // perf script's SYMBOL+OFFSET of each sample in the program, as file addresses (nm's).
  test::command_result script =
      test::run_command({"perf", "script", "-i", data, "-F", "ip,sym,symoff,dso"});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::map<std::uint64_t, std::string> functions = functions_of(binary);
  std::map<std::string, std::uint64_t> by_name;
  for (const auto& [address, name] : functions) by_name.emplace(name, address);
  const std::regex sample(R"(\s*[0-9a-f]+ (\S+)\+0x([0-9a-f]+) \((.*)\))");
  std::vector<std::uint64_t> sampled;
  long long in_outer = 0;
  std::istringstream lines{script.out};
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_match(line, match, sample) || match[3] != binary) continue;
    auto found = by_name.find(match[1]);
    ASSERT_NE(found, by_name.end()) << line;
    sampled.push_back(found->second + std::stoull(match[2], nullptr, 16));
    if (match[1] == "outer_function") ++in_outer;
  }
  std::map<std::uint64_t, std::string> innermost =
      innermost_functions(binary, {sampled.begin(), sampled.end()});
  long long inlined = 0;
  for (std::uint64_t address : sampled) inlined += innermost[address] == "inlined_work";
  ASSERT_GT(inlined, 0) << "addr2line places no sample in inlined_work";

  test::command_result folded =
      test::run_command({arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  EXPECT_EQ(folded_leaves(folded.out, "inlined_work").named, inlined) << folded.out;
  EXPECT_NE(folded.out.find("inlined_leaf;outer_function;inlined_work "), std::string::npos)
      << folded.out;

  test::command_result plain = test::run_command(
      {arec_binary(), "export", "--no-inline", "--format=folded", "-i", data, "-o", "-"});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  EXPECT_EQ(folded_leaves(plain.out, "outer_function").named, in_outer) << plain.out;
  EXPECT_EQ(plain.out.find("inlined_work"), std::string::npos) << plain.out;

  // pprof: one location, two lines (inlined_work, then outer_function), which go tool pprof
  // shows as "inlined_work (inline)".
  const std::string pprof = dir.file("inlined.pb.gz");
  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data, "-o", pprof}).exit_code,
            0);
  test::command_result top =
      test::run_command({"go", "tool", "pprof", "-top", "-symbolize=none", pprof});
  ASSERT_EQ(top.exit_code, 0) << top.describe();
  EXPECT_NE(top.out.find("inlined_work (inline)"), std::string::npos) << top.out;

  // OTLP: the same two lines in one location_table entry.
  const std::string otlp = dir.file("inlined.otlp.pb");
  ASSERT_EQ(
      test::run_command({arec_binary(), "export", "-q", "--format=otlp", "-i", data, "-o", otlp})
          .exit_code,
      0);
  test::command_result request = protoc_decode(otlp, protoc_message::otlp_request);
  ASSERT_EQ(request.exit_code, 0) << request.describe();
  const std::regex two_lines(R"(lines \{\s*function_index: \d+\s*\}\s*lines \{)");
  EXPECT_TRUE(std::regex_search(request.out, two_lines)) << excerpt(request.out);

  // arec report: the page's plain-text summary gives inlined_work its own self share, the
  // share of the samples folded stacks end in it.
  const std::string page = dir.file("inlined.html");
  ASSERT_EQ(test::run_command({arec_binary(), "report", "-q", "-i", data, "-o", page}).exit_code,
            0);
  std::stringstream read;
  read << std::ifstream{page}.rdbuf();
  const std::string html = read.str();
  std::smatch row;
  ASSERT_TRUE(std::regex_search(html, row, std::regex(R"(([0-9.]+)%\s+[0-9.]+%\s+inlined_work\n)")))
      << excerpt(html);
  leaf_count leaves = folded_leaves(folded.out, "inlined_work");
  EXPECT_NEAR(std::stod(row[1]), 100.0 * leaves.named / leaves.total, 0.006);
}

// The windows --push sends show the inlined function as the innermost line of its caller's
// location; --push-no-inline leaves the caller's line alone.
TEST(ExportNativeNames, InlinedFunctionsArePushedUnlessTurnedOff) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  auto leaves_pushed = [&](std::vector<std::string> more, const std::string& leaf) {
    test::stand_in_server server;
    more.insert(more.end(), {"--", test_program("inlined_leaf"), "500"});
    test::command_result run = test::run_command(push_command("pyroscope", server.url(), more));
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    long long leaves = 0;
    for (const test::received_push& push : server.received()) {
      EXPECT_EQ(push.profiles.size(), 1u);
      std::ofstream(dir.file("window.pb.gz"), std::ios::binary) << push.profiles.front();
      test::command_result decoded = npm_pprof_summary(dir.file("window.pb.gz"), leaf);
      EXPECT_EQ(decoded.exit_code, 0) << decoded.describe();
      leaves += json_number(decoded.out, "innermostMatches");
    }
    return leaves;
  };
  EXPECT_GT(leaves_pushed({}, "inlined_work"), 0);
  EXPECT_EQ(leaves_pushed({"--push-no-inline"}, "inlined_work"), 0);
  EXPECT_GT(leaves_pushed({"--push-no-inline"}, "outer_function"), 0);
}

// A stripped binary whose debug file only a local debuginfod server (elfutils', on 127.0.0.1,
// over a directory of debug files this test makes) holds is named by arec export as from the
// file itself, the server being asked about that build-id only; stopped, it costs the export
// one warning and the names, nothing else.
TEST(ExportNativeNames, DebuginfodNamesAStrippedBinaryThatNoLocalFileNames) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  if (auto why = missing_debuginfod()) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string home = dir.file("home");
  std::filesystem::create_directory(home);
  const stripped_program program = make_stripped_program(dir);
  const std::string &stripped = program.stripped, &full = program.full, &id = program.build_id;
  debuginfod_server server(dir, program.served, id);
  const std::string url = server.url();
  ASSERT_FALSE(url.empty()) << "debuginfod never served " << id;

  const std::string data = dir.file("stripped.data");
  test::command_result recorded =
      test::run_command({"env", "HOME=" + home, arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o",
                         data, "--", stripped, "600"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  auto export_with = [&](const std::string& urls, const std::string& cache) {
    return test::run_command({"env", "HOME=" + home, "DEBUGINFOD_URLS=" + urls,
                              "DEBUGINFOD_CACHE_PATH=" + cache, arec_binary(), "export",
                              "--format=folded", "-i", data, "-o", "-"});
  };
  test::command_result fetched = export_with(url, dir.file("client-cache"));
  ASSERT_EQ(fetched.exit_code, 0) << fetched.describe();
  EXPECT_EQ(fetched.err.find("debuginfod"), std::string::npos) << fetched.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("client-cache") + "/" + id + "/debuginfo"))
      << "fetched into DEBUGINFOD_CACHE_PATH, as every elfutils client keeps it";

  std::vector<std::string> asked = server.stop_and_list_asked();
  for (const std::string& asked_id : asked)
    EXPECT_EQ(asked_id, id) << "asked only about the sampled object no local file names";
  EXPECT_GE(asked.size(), 2u) << "the readiness poll and the export asked";

  test::command_result down = export_with(url, dir.file("cold-cache"));
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  EXPECT_NE(down.err.find("arec: warning: debuginfod"), std::string::npos) << down.err;
  EXPECT_NE(down.out.find("hot_pair+0x"), std::string::npos) << "grouped, not named";

  std::filesystem::rename(full, stripped);  // the same build, its symbols back
  const std::string named = export_folded(data);
  EXPECT_EQ(sorted_lines(fetched.out), sorted_lines(named)) << fetched.out;
  EXPECT_GT(folded_leaves(fetched.out, "hot_major").named, 0) << fetched.out;
}

}  // namespace
}  // namespace arec::e2e
