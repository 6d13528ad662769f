// debuginfod at the recording's end (issue 42): a stripped program whose hot code is static,
// recorded with DEBUGINFOD_URLS at a real local debuginfod, gets its debug file in the build-id
// cache as perf's `debug` entry, so that perf 6.1 names it from arec's own file; a server that
// is down or never answers costs one warning and nothing of the file. HOME and the client cache
// are the test's own: the real ~/.debug is never touched.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "debuginfod_server.hpp"
#include "io/unique_fd.hpp"
#include "perf_report.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "pushed_windows.hpp"
#include "recorder.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

struct recording_end {
  test::command_result run;
  std::string data;
};

// `arec -e cpu-clock -g -o DATA [OPTIONS] -- PROGRAM 600` with HOME and the client cache in
// `dir`, and DEBUGINFOD_URLS `url`: not quiet, its summary and warnings are what is checked.
recording_end record_with(const test::temp_dir& dir, const std::string& program,
                          const std::string& url, const std::string& name,
                          const std::vector<std::string>& options = {}) {
  recording_end end{{}, dir.file(name + ".data")};
  std::vector<std::string> command{"env",
                                   "HOME=" + dir.file("home"),
                                   "DEBUGINFOD_URLS=" + url,
                                   "DEBUGINFOD_CACHE_PATH=" + dir.file(name + "-client-cache"),
                                   arec_binary(),
                                   "-e",
                                   "cpu-clock",
                                   "-g",
                                   "-o",
                                   end.data};
  command.insert(command.end(), options.begin(), options.end());
  command.insert(command.end(), {"--", program, "600"});
  end.run = test::run_command(command);
  return end;
}

// perf report on `data` with HOME's build-id cache and no debuginfod of its own: what it names
// comes from the file and the cache arec filled.
perf_report report_of(const test::temp_dir& dir, const std::string& data) {
  perf_report report;
  report.run = test::run_command({"env", "-u", "DEBUGINFOD_URLS", "HOME=" + dir.file("home"),
                                  "perf", "report", "--stdio", "-i", data, "--sort", "dso,sym",
                                  "--no-children", "-g", "none"});
  report.rows = parse_perf_report(report.run.out);
  return report;
}

double share_of(const perf_report& report, const std::string& dso, const std::string& symbol) {
  double percent = 0;
  for (const report_row& row : report.rows)
    if (row.dso == dso && (symbol.empty() || row.symbol == symbol)) percent += row.percent;
  return percent;
}

struct fetch_line {
  long files = -1, asked = -1, unnamed = -1;
};
// The summary's debuginfod line; files -1 when there is none.
fetch_line fetch_line_of(const std::string& err) {
  static const std::regex line(
      R"(arec: debuginfod: fetched (\d+) debug files \([0-9.]+ MB\) for (\d+) objects; (\d+) sampled objects still unnamed\n)");
  std::smatch found;
  if (!std::regex_search(err, found, line)) return {};
  return {std::stol(found[1]), std::stol(found[2]), std::stol(found[3])};
}

long debuginfod_warnings(const std::string& err) {
  long lines = 0;
  for (std::size_t at = err.find("arec: warning: debuginfod"); at != std::string::npos;
       at = err.find("arec: warning: debuginfod", at + 1))
    ++lines;
  return lines;
}

std::string cache_debug_entry(const test::temp_dir& dir, const std::string& id) {
  return dir.file("home") + "/.debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + "/debug";
}

// The build-ids of the objects that got samples, as perf counts hits.
std::vector<std::string> sampled_build_ids(const test::temp_dir& dir, const std::string& data) {
  test::command_result listed = test::run_command(
      {"env", "HOME=" + dir.file("home"), "perf", "buildid-list", "-H", "-i", data});
  EXPECT_EQ(listed.exit_code, 0) << listed.describe();
  std::vector<std::string> ids;
  const std::regex id(R"(^([0-9a-f]{40}) )", std::regex::multiline);
  for (std::sregex_iterator it(listed.out.begin(), listed.out.end(), id), end; it != end; ++it)
    ids.push_back((*it)[1]);
  return ids;
}

class RecordDebuginfod : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    if (auto why = missing_debuginfod()) GTEST_SKIP() << *why;
    std::filesystem::create_directory(dir_.file("home"));
    program_ = make_stripped_program(dir_);
  }
  test::temp_dir dir_;
  stripped_program program_;
};

// (a) The sampled stripped program's debug file is fetched, once, into the cache as `debug`;
// perf report names hot_major from arec's own file; the server was asked about sampled
// build-ids only; the summary counts it; arec archive carries it.
TEST_F(RecordDebuginfod, TheDebugFileOfASampledStrippedObjectIsCachedForPerfReport) {
  debuginfod_server server(dir_, program_.served, program_.build_id);
  ASSERT_FALSE(server.url().empty()) << "debuginfod never served " << program_.build_id;
  recording_end end = record_with(dir_, program_.stripped, server.url(), "fetched");
  ASSERT_EQ(end.run.exit_code, 0) << end.run.describe();
  EXPECT_EQ(debuginfod_warnings(end.run.err), 0) << end.run.err;
  fetch_line line = fetch_line_of(end.run.err);
  EXPECT_GE(line.files, 1) << end.run.err;
  EXPECT_EQ(line.unnamed, line.asked - line.files) << end.run.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(cache_debug_entry(dir_, program_.build_id)));

  std::vector<std::string> asked = server.stop_and_list_asked();
  std::vector<std::string> sampled = sampled_build_ids(dir_, end.data);
  ASSERT_NE(std::find(sampled.begin(), sampled.end(), program_.build_id), sampled.end());
  for (const std::string& id : asked)
    EXPECT_NE(std::find(sampled.begin(), sampled.end(), id), sampled.end())
        << id << " was asked for, and got no sample";
  EXPECT_GE(std::count(asked.begin(), asked.end(), program_.build_id), 2)
      << "the readiness poll and the recording's end asked";

  perf_report report = report_of(dir_, end.data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_GT(share_of(report, "hot_pair", "hot_major"), 0) << report.run.out;

  // arec convert's one perf.data, read by perf with the same cache: the same names.
  const std::string converted = dir_.file("converted.data");
  test::command_result convert =
      test::run_command({"env", "HOME=" + dir_.file("home"), arec_binary(), "convert", "-q", "-i",
                         end.data, "-o", converted});
  ASSERT_EQ(convert.exit_code, 0) << convert.describe();
  perf_report converted_report = report_of(dir_, converted);
  ASSERT_EQ(converted_report.run.exit_code, 0) << converted_report.run.describe();
  EXPECT_DOUBLE_EQ(share_of(converted_report, "hot_pair", "hot_major"),
                   share_of(report, "hot_pair", "hot_major"))
      << converted_report.run.out;

  // arec archive packs the build-id's directory: the debug entry goes to the other machine.
  const std::string archive = dir_.file("fetched.tar.bz2");
  test::command_result archived =
      test::run_command({"env", "HOME=" + dir_.file("home"), arec_binary(), "archive", "-i",
                         end.data, "-o", archive});
  ASSERT_EQ(archived.exit_code, 0) << archived.describe();
  test::command_result listed = test::run_command({"tar", "tjf", archive});
  EXPECT_NE(listed.out.find("/" + program_.build_id + "/debug\n"), std::string::npos) << listed.out;
}

// --push: each window's export asks the server too, so the pushed profiles name the program.
TEST_F(RecordDebuginfod, PushedWindowsNameTheStrippedProgram) {
  debuginfod_server server(dir_, program_.served, program_.build_id);
  ASSERT_FALSE(server.url().empty()) << "debuginfod never served " << program_.build_id;
  test::stand_in_server store;
  std::vector<std::string> command{"env", "HOME=" + dir_.file("home"),
                                   "DEBUGINFOD_URLS=" + server.url(),
                                   "DEBUGINFOD_CACHE_PATH=" + dir_.file("push-client-cache")};
  for (const std::string& part :
       push_command("pyroscope", store.url(), {"-q", "--", program_.stripped, "600"}))
    command.push_back(part);
  test::command_result run = test::run_command(command);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  long long named = 0;
  for (const test::received_push& push : store.received()) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(dir_.file("window.pb.gz"), std::ios::binary) << push.profiles.front();
    test::command_result decoded = npm_pprof_summary(dir_.file("window.pb.gz"), "hot_major");
    ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
    named += json_number(decoded.out, "leafMatches");
  }
  EXPECT_GT(named, 0) << run.describe();
}

// (b) No server at the URL (a port nothing listens on): the recording completes, perf reads
// it, one warning says so; nothing is fetched, the program stays unnamed.
TEST_F(RecordDebuginfod, AServerThatIsDownCostsOneWarning) {
  recording_end end =
      record_with(dir_, program_.stripped, "http://127.0.0.1:" + free_port(), "down");
  ASSERT_EQ(end.run.exit_code, 0) << end.run.describe();
  EXPECT_EQ(debuginfod_warnings(end.run.err), 1) << end.run.err;
  fetch_line line = fetch_line_of(end.run.err);
  EXPECT_EQ(line.files, 0) << end.run.err;
  EXPECT_GE(line.asked, 1) << end.run.err;
  EXPECT_EQ(line.unnamed, line.asked) << end.run.err;
  EXPECT_FALSE(std::filesystem::exists(cache_debug_entry(dir_, program_.build_id)));
  perf_report report = report_of(dir_, end.data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_GT(share_of(report, "hot_pair", ""), 0) << report.run.out;
  EXPECT_EQ(share_of(report, "hot_pair", "hot_major"), 0) << report.run.out;
}

// (c) A server that accepts the connection and never answers (a socket listening, never
// accepting: the kernel completes the handshake): the end waits no longer than the deadline
// (--debuginfod-deadline; 0 asks nothing at all), which the one warning names, and the file is
// complete.
TEST_F(RecordDebuginfod, AServerThatNeverAnswersCostsTheDeadlineAndOneWarning) {
  io::unique_fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), size), 0);
  ASSERT_EQ(::listen(listener.get(), 16), 0);
  ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &size), 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));

  recording_end none =
      record_with(dir_, program_.stripped, url, "none", {"--debuginfod-deadline", "0"});
  ASSERT_EQ(none.run.exit_code, 0) << none.run.describe();
  EXPECT_EQ(none.run.err.find("debuginfod"), std::string::npos) << none.run.err;

  recording_end end = record_with(dir_, program_.stripped, url, "slow");
  ASSERT_EQ(end.run.exit_code, 0) << end.run.describe();
  EXPECT_EQ(debuginfod_warnings(end.run.err), 1) << end.run.err;
  EXPECT_NE(end.run.err.find("debuginfod: the 5 s and "), std::string::npos) << end.run.err;
  EXPECT_NE(end.run.err.find("allowed for fetching are used up"), std::string::npos) << end.run.err;
  EXPECT_EQ(fetch_line_of(end.run.err).files, 0) << end.run.err;
  perf_report report = report_of(dir_, end.data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_GT(share_of(report, "hot_pair", ""), 0) << report.run.out;
}

}  // namespace
}  // namespace arec::e2e
