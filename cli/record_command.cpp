#include "cli/record_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "host/stop_signals.hpp"
#include "io/file_copy.hpp"
#include "io/output_path.hpp"
#include "push/live_push.hpp"
#include "record/session/session.hpp"

namespace arec::cli {
namespace {

// Without -o the windows are written where only this run looks, and removed once pushed.
class window_directory {
 public:
  window_directory() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = io::create_private_directory(std::string(tmp && *tmp ? tmp : "/tmp") + "/arec-push");
  }
  ~window_directory() {
    try {
      // A window that could not be exported stays, and was reported with its path.
      io::remove_empty_directory(path_);
    } catch (const std::exception&) {
    }
  }
  window_directory(const window_directory&) = delete;
  window_directory& operator=(const window_directory&) = delete;
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// The last line of a pushed recording. Profiles and windows differ when windows over the
// server's limits were split, and for Parca (a profile per process).
void print_push_summary(const push::push_totals& totals, const fleet::push_options& push_options) {
  auto n = [](std::uint64_t value) { return static_cast<unsigned long long>(value); };
  bool per_process = push_options.format == fleet::push_format::parca;
  if (totals.profiles == totals.windows && !per_process) {
    std::fprintf(stderr, "arec: push: %llu of %llu window(s) delivered to %s (%llu samples)\n",
                 n(totals.delivered), n(totals.windows), push_options.url.c_str(),
                 n(totals.samples));
  } else {
    std::string split = totals.split_windows == 0 ? ""
                                                  : ", " + std::to_string(totals.split_windows) +
                                                        " split to the server's limits";
    std::fprintf(
        stderr,
        "arec: push: %llu of %llu profile(s) delivered to %s (%llu window(s)%s%s, %llu samples)\n",
        n(totals.delivered), n(totals.profiles), push_options.url.c_str(), n(totals.windows),
        per_process ? ", a profile per process" : "", split.c_str(), n(totals.samples));
  }
  if (totals.cut_stacks != 0) {
    std::fprintf(stderr, "arec: push: %llu stack(s) cut to the server's %zu frames\n",
                 n(totals.cut_stacks), push_options.limits.max_stack_depth);
  }
}

int record_and_push(record::record_options options, const fleet::push_options& push_options,
                    std::span<const std::string> command_line) {
  std::optional<window_directory> windows;
  bool keep = options.output_given;
  if (!keep) {
    windows.emplace();
    options.output_path = windows->path() + "/window.data";
    options.output_given = true;
    options.transient_outputs = true;
  }
  push::live_push live(push_options, keep);
  options.on_output_finished = [&live](const record::finished_output& output) {
    live.output_finished({output.path, output.start_ns, output.end_ns});
  };
  int status = record::run_session(options, command_line);
  // The stop signal that ended the recording is counted already: one more (a second Ctrl-C, a
  // SIGTERM) ends the flush, and what is not delivered stays in the spool.
  unsigned stops = host::stop_signals::arrived().stops;
  live.stop({host::stop_signals::wakeup_fd(), [stops] {
               host::stop_signals::drain_wakeups();
               return host::stop_signals::arrived().stops > stops;
             }});
  if (!options.quiet) print_push_summary(live.totals(), push_options);
  return status;
}

}  // namespace

int run_record_command(record_request request, std::span<const std::string> command_line) {
  if (!request.push) return record::run_session(request.options, command_line);
  return record_and_push(std::move(request.options), *request.push, command_line);
}

}  // namespace arec::cli
