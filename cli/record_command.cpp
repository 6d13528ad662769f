#include "cli/record_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

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
  live.stop();
  push::push_totals totals = live.totals();
  if (!options.quiet)
    std::fprintf(stderr, "arec: push: %llu of %llu window(s) delivered to %s (%llu samples)\n",
                 static_cast<unsigned long long>(totals.delivered),
                 static_cast<unsigned long long>(totals.windows), push_options.url.c_str(),
                 static_cast<unsigned long long>(totals.samples));
  return status;
}

}  // namespace

int run_record_command(record_request request, std::span<const std::string> command_line) {
  if (!request.push) return record::run_session(request.options, command_line);
  return record_and_push(std::move(request.options), *request.push, command_line);
}

}  // namespace arec::cli
