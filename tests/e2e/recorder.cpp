#include "recorder.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <string_view>
#include <thread>

namespace arec::e2e {

namespace {

// The environment variable's value when set and non-empty.
const char* chosen_by(const char* variable) {
  const char* value = ::getenv(variable);
  return value && *value ? value : nullptr;
}

}  // namespace

std::string arec_binary() {
  const char* chosen = chosen_by("AREC_E2E_AREC");
  return chosen ? chosen : AREC_BUILT_BINARY;
}

bool arec_is_sanitized() {
#ifdef AREC_TESTS_SANITIZED
  return true;
#else
  const char* chosen = chosen_by("AREC_E2E_SANITIZED");
  return chosen && std::string_view(chosen) == "1";
#endif
}

recorder recorder::from_environment() {
  const char* chosen = chosen_by("AREC_E2E_RECORDER");
  std::string binary = chosen ? chosen : arec_binary();
  std::string_view name = binary;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  bool is_perf = name == "perf" || name.starts_with("perf_");
  return recorder(std::move(binary), is_perf);
}

recorder recorder::reference_perf() { return recorder("perf", true, {"--no-bpf-event"}); }

recorder::recorder(std::string binary, bool is_perf, std::vector<std::string> fixed_args)
    : binary_(std::move(binary)), is_perf_(is_perf), fixed_args_(std::move(fixed_args)) {}

std::string recorder::describe() const {
  return (is_perf_ ? "perf record (" : "arec (") + binary_ + ")";
}

std::vector<std::string> recorder::command(std::vector<std::string> args) const {
  std::vector<std::string> argv{binary_};
  if (is_perf_) argv.emplace_back("record");
  argv.insert(argv.end(), fixed_args_.begin(), fixed_args_.end());
  argv.insert(argv.end(), std::make_move_iterator(args.begin()),
              std::make_move_iterator(args.end()));
  return argv;
}

std::vector<std::string> recorder::duration_args(const std::string& seconds) const {
  if (is_perf_) return {"--", "sleep", seconds};
  return {"--duration", seconds};
}

bool wait_until_written(const std::string& path, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  struct stat st {};
  while (::stat(path.c_str(), &st) != 0 || st.st_size == 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    // Polls gently: on a busy machine a spinning test would take the recorder's CPU.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

std::string test_program(const std::string& name) {
  return std::string(AREC_TEST_PROGRAMS) + "/" + name;
}

}  // namespace arec::e2e
