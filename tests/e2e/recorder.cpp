#include "recorder.hpp"

#include <stdlib.h>

#include <string_view>

namespace arec::e2e {

recorder recorder::from_environment() {
  const char* chosen = ::getenv("AREC_E2E_RECORDER");
  std::string binary = chosen && *chosen ? chosen : AREC_BINARY;
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

std::string test_program(const std::string& name) {
  return std::string(AREC_TEST_PROGRAMS) + "/" + name;
}

}  // namespace arec::e2e
