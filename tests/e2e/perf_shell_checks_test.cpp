// The checks of perf's own shell tests (tools/perf/tests/shell: record.sh, pipe_test.sh,
// header.sh, record+zstd_comp_decomp.sh, test_perf_data_converter_json.sh) that concern the
// recorder, made with arec as the recorder: each test runs the command lines those scripts
// run, with perf's readers, and asserts what they assert. Their workloads (`perf test -w`,
// which perf 6.1 lacks) are replaced by hot_loop, and hardware events by software ones.
// Not here: buildid.sh needs the build-id cache (its own issue), and the checks of
// --per-thread, cgroups and leader sampling live with those options' tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

class RecordPerfShellChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }

  // Runs `script` with bash, where "$@" is the recorder ("perf record" or arec), $HOT the
  // hot_loop program and $DIR a scratch directory; fails the test unless it exits 0.
  test::command_result shell(const std::string& script) {
    std::vector<std::string> argv{"env",
                                  "HOT=" + test_program("hot_loop"),
                                  "DIR=" + dir_.path(),
                                  "bash",
                                  "-c",
                                  "set -o pipefail; " + script,
                                  "bash"};
    std::vector<std::string> recorder = rec_.command({});
    argv.insert(argv.end(), recorder.begin(), recorder.end());
    test::command_result run = test::run_command(argv, 120s);
    // stdout too: a failed check's evidence (a diff, a missing line) is what the script printed.
    EXPECT_EQ(run.exit_code, 0) << rec_.describe() << ": " << script << "\n"
                                << run.describe() << "\nstdout:\n"
                                << run.out.substr(run.out.size() -
                                                  std::min<std::size_t>(run.out.size(), 8000));
    return run;
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

// record.sh, test_workload.
TEST_F(RecordPerfShellChecks, WorkloadIsReportedAlsoWithThreadsPerPackage) {
  EXPECT_TRUE(has(shell("\"$@\" -o $DIR/d -- $HOT 200 2>/dev/null && perf report -i $DIR/d -q").out,
                  "hot_function"));
  EXPECT_TRUE(has(shell("\"$@\" -e cpu-clock,cs --threads=package -o $DIR/d -- $HOT 200 "
                        "2>/dev/null && perf report -i $DIR/d -q")
                      .out,
                  "hot_function"));
}

// record.sh, test_system_wide: -aB --synth=no; the workload's COMM and MMAPs come from the
// tracking event only.
TEST_F(RecordPerfShellChecks, SystemWideWithoutSynthesisIsReportedAlsoWithThreadsPerCpu) {
  EXPECT_TRUE(has(shell("\"$@\" -aB --synth=no -o $DIR/d -- $HOT 200 2>/dev/null && "
                        "perf report -i $DIR/d -q")
                      .out,
                  "hot_function"));
  EXPECT_TRUE(has(shell("\"$@\" -aB --synth=no -e cpu-clock,cs --threads=cpu -o $DIR/d -- $HOT "
                        "200 2>/dev/null && perf report -i $DIR/d -q")
                      .out,
                  "hot_function"));
}

// record.sh, test_register_capture, on cpu-clock (the script's event is a PMU's).
TEST_F(RecordPerfShellChecks, InterruptRegistersReachPerfScriptThroughAPipe) {
  test::command_result list = shell("\"$@\" --intr-regs=\\? 2>&1; true");
  EXPECT_TRUE(has(list.out,
                  "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 "
                  "R12 R13 R14 R15"))
      << list.out;
  test::command_result script = shell(
      "\"$@\" -o - --intr-regs=di,r8,dx,cx -e cpu-clock -c 100000 -- $HOT 200 "
      "2>/dev/null | perf script -F ip,sym,iregs -i - 2>/dev/null");
  EXPECT_TRUE(has(script.out, "DI:")) << script.out;
  EXPECT_TRUE(has(script.out, "R8:")) << script.out;
}

// pipe_test.sh, test_record_report: the workload's task from a pipe and from a saved stream.
TEST_F(RecordPerfShellChecks, PipedRecordingsShowTheWorkloadsTask) {
  EXPECT_TRUE(has(shell("\"$@\" -e task-clock:u -o - -- $HOT 200 | perf report -i - --task").out,
                  "hot_loop"));
  EXPECT_TRUE(has(shell("\"$@\" -g -e task-clock:u -o - -- $HOT 200 | perf report -i - --task").out,
                  "hot_loop"));
  EXPECT_TRUE(has(shell("\"$@\" -g -e task-clock:u -o - -- $HOT 200 > $DIR/d && "
                        "perf report -i $DIR/d --task")
                      .out,
                  "hot_loop"));
}

// pipe_test.sh, test_inject_bids, with the build-id options of perf 6.1's inject.
TEST_F(RecordPerfShellChecks, InjectedBuildIdsKeepTheSymbolsInEveryPipeShape) {
  for (std::string inject : {"-b", "--buildid-all"}) {
    SCOPED_TRACE(inject);
    const std::string in = "perf inject " + inject;
    for (const std::string& script : {
             "\"$@\" -e task-clock:u -o - -- $HOT 200 | " + in + " | perf report -i -",
             "\"$@\" -g -e task-clock:u -o - -- $HOT 200 | " + in + " | perf report -i -",
             "\"$@\" -e task-clock:u -o - -- $HOT 200 | " + in +
                 " -o $DIR/d && perf report -i $DIR/d",
             "\"$@\" -e task-clock:u -o $DIR/d -- $HOT 200 && " + in +
                 " -i $DIR/d | perf report -i -",
         }) {
      SCOPED_TRACE(script);
      EXPECT_TRUE(has(shell(script + " 2>/dev/null").out, "hot_function"));
    }
  }
}

// The script's last two shapes inject a pipe stream saved to a file. perf 6.1's inject fails
// on them ("failed to process sample") whoever recorded the stream: arec's must fare as perf
// record's does. In the piped shape perf report gives up first ("incompatible file format"):
// the rest of the pipe is drained, as a SIGPIPE would kill perf inject before it removes its
// /tmp/perf-vdso.so-* copy.
TEST_F(RecordPerfShellChecks, InjectingASavedPipeStreamFaresAsWithPerfRecordsStream) {
  for (const std::string& shape :
       {std::string("perf inject -b -i $DIR/d | { perf report -i -; s=$?; cat >/dev/null; "
                    "exit $s; }"),
        std::string("perf inject -b -i $DIR/d -o $DIR/d2 && perf report -i $DIR/d2")}) {
    SCOPED_TRACE(shape);
    auto symbols_found = [&](const std::vector<std::string>& recorder) {
      std::vector<std::string> argv{"env",
                                    "HOT=" + test_program("hot_loop"),
                                    "DIR=" + dir_.path(),
                                    "bash",
                                    "-c",
                                    "set -o pipefail; \"$@\" -e task-clock:u -o - -- $HOT 200 "
                                    "> $DIR/d && " +
                                        shape + " 2>/dev/null",
                                    "bash"};
      argv.insert(argv.end(), recorder.begin(), recorder.end());
      test::command_result run = test::run_command(argv, 120s);
      return run.exit_code == 0 && has(run.out, "hot_function");
    };
    EXPECT_EQ(symbols_found(rec_.command({})), symbols_found({"perf", "record"}));
  }
}

// header.sh: the header's lines, from a file and from a pipe.
TEST_F(RecordPerfShellChecks, HeaderHasEveryFieldInFileAndPipe) {
  const std::vector<std::string> fields{"captured",        "hostname",
                                        "os release",      "arch",
                                        "cpuid",           "nrcpus",
                                        "event",           "cmdline",
                                        "perf version",    "sibling (cores|dies|threads)",
                                        "sibling threads", "total memory"};
  // In the pipe, the reader leaves after the header: the recorder may then see a broken pipe
  // (perf dies of it), so only the reader's status counts.
  for (const std::string script :
       {"\"$@\" -o $DIR/d -g -- $HOT 100 2>/dev/null && perf report --header-only -I -i $DIR/d",
        "set +o pipefail; \"$@\" -o - -g -- $HOT 100 2>/dev/null | "
        "perf report --header-only -I -i -"}) {
    SCOPED_TRACE(script);
    std::string header = shell(script).out;
    for (const std::string& field : fields)
      EXPECT_TRUE(std::regex_search(header, std::regex(field))) << field << "\n" << header;
  }
}

// record+zstd_comp_decomp.sh: a -z recording says it is compressed, and perf report shows the
// same for it as for the copy perf inject decompresses.
TEST_F(RecordPerfShellChecks, CompressedRecordingReportsAsItsDecompressedCopy) {
  shell("\"$@\" -o $DIR/z -g -z -F 5000 -- dd count=500 if=/dev/urandom of=/dev/null 2>/dev/null");
  std::string stats = shell("perf report -i $DIR/z --header --stats").out;
  EXPECT_TRUE(has(stats, "# compressed : Zstd,")) << stats;
  EXPECT_TRUE(has(stats, "COMPRESSED events:")) << stats;
  shell(
      "perf inject -i $DIR/z -o $DIR/plain && "
      "diff <(perf report -i $DIR/z --stdio | head -n -3) "
      "<(perf report -i $DIR/plain --stdio | head -n -3)");
}

// test_perf_data_converter_json.sh: perf data convert --to-json gives valid JSON.
TEST_F(RecordPerfShellChecks, DataConvertToJsonGivesValidJson) {
  shell(
      "\"$@\" -o $DIR/d -F 99 -g -- $HOT 300 >/dev/null 2>&1 && "
      "perf data convert --to-json $DIR/j --force -i $DIR/d >/dev/null 2>&1 && "
      "[ $(wc -l < $DIR/j) -gt 0 ] && python3 -c \"import json; json.load(open('$DIR/j'))\"");
}

}  // namespace
}  // namespace arec::e2e
