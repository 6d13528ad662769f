// recorder: the program the end-to-end tests record with. By default the arec built next to
// the tests; AREC_E2E_RECORDER selects another, and a `perf` there is run as `perf record`,
// which validates the tests themselves against the reference implementation.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace arec::e2e {

class recorder {
 public:
  // AREC_E2E_RECORDER when set and non-empty, else arec_binary().
  // A recorder whose file name is "perf" or "perf_<version>" is perf; any other is arec.
  static recorder from_environment();
  // perf record as the reference that side-by-side tests compare arec with. It runs with
  // --no-bpf-event: its BPF side-band thread polls with a one-second timeout that perf waits
  // out at exit (1.2 s per `-- true` recording instead of 0.4 here), and no comparison reads
  // what the option changes (bpf_event on perf's tracking event, its BPF side band).
  static recorder reference_perf();
  recorder(std::string binary, bool is_perf, std::vector<std::string> fixed_args = {});

  bool is_arec() const noexcept { return !is_perf_; }
  // "arec (/path/arec)" or "perf record (/usr/bin/perf)", for messages.
  std::string describe() const;

  // The full command line that records with `args` (perf: "perf record ARGS...").
  std::vector<std::string> command(std::vector<std::string> args) const;

  // Arguments that end a recording without a workload after `seconds`: arec's
  // `--duration S`; for perf, which has no such option, a `-- sleep S` workload.
  std::vector<std::string> duration_args(const std::string& seconds) const;

  // The exit status for an unknown option: arec follows the getopt convention, 2; perf's
  // parse-options exits 129.
  int usage_error_status() const noexcept { return is_perf_ ? 129 : 2; }

 private:
  std::string binary_;
  bool is_perf_;
  std::vector<std::string> fixed_args_;  // put before every command's own arguments
};

// The arec every end-to-end test runs (to record, convert, export, archive): AREC_E2E_AREC when
// set and non-empty, else the arec CMake built next to these tests. The sanitizer
// configurations run the release build's tests against their own arec this way
// (docs/testing.md, "One e2e test program for every configuration").
std::string arec_binary();

// Whether that arec is instrumented (ASan, TSan: several times slower), so timing loops may
// take fewer tries: AREC_E2E_SANITIZED=1, or these tests built in a sanitizer configuration.
bool arec_is_sanitized();

// Waits until the file `path` has bytes (a recorder writes its header before anything else):
// false when `limit` passes first.
bool wait_until_written(const std::string& path, std::chrono::seconds limit);

// Absolute path of a program built from tests/programs/NAME.c.
std::string test_program(const std::string& name);

}  // namespace arec::e2e
