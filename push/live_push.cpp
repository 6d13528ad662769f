#include "push/live_push.hpp"

#include <exception>
#include <utility>

#include "async/thread_signals.hpp"
#include "io/output_path.hpp"

namespace arec::push {
namespace {

exporting::profile_limits encoder_limits(const fleet::ingest_limits& server) {
  return {.max_samples = server.max_samples_per_profile,
          .max_bytes = server.max_profile_size_bytes,
          .max_stack_depth = server.max_stack_depth};
}

exporting::window_encoding encoding_of(const fleet::push_options& options) {
  exporting::window_encoding encoding;
  encoding.otlp = options.format == fleet::push_format::otlp;
  encoding.metric_safe_type_names = options.format == fleet::push_format::parca;
  encoding.series_per_process = options.format == fleet::push_format::parca;
  for (const fleet::label& attribute : options.resource_attributes)
    encoding.resource.attributes.push_back({attribute.name, attribute.value});
  return encoding;
}

}  // namespace

live_push::live_push(fleet::push_options options, bool keep_outputs, fleet::reporter report)
    : report_(std::move(report)),
      keep_outputs_(keep_outputs),
      limits_(encoder_limits(options.limits)),
      encoding_(encoding_of(options)),
      payload_(fleet::payload_of(options.format)),
      sender_(std::move(options), report_),
      exporter_(options.inline_frames),  // a bool: the move above left it as it was
      thread_([this] { run(); }) {}

live_push::~live_push() {
  stop();
}

void live_push::output_finished(window_output window) {
  base::exclusive_lock lock{mutex_};
  waiting_.push_back(std::move(window));
  queued_.notify_one();
}

void live_push::stop(const fleet::flush_interrupt& interrupt) {
  {
    base::exclusive_lock lock{mutex_};
    stopping_ = true;
    queued_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  sender_.stop(interrupt);
}

push_totals live_push::totals() const {
  push_totals totals;
  {
    base::exclusive_lock lock{mutex_};
    totals = totals_;
  }
  totals.delivered = sender_.counts().delivered;  // after the lock: mutex_ stays a leaf
  return totals;
}

void live_push::run() {
  async::block_signals_in_this_thread();  // the recorder's control thread handles them
  for (;;) {
    window_output next;
    {
      base::exclusive_lock lock{mutex_};
      while (waiting_.empty() && !stopping_) queued_.wait(mutex_);
      if (waiting_.empty()) return;  // stopping, and everything was exported
      next = std::move(waiting_.front());
      waiting_.pop_front();
    }
    export_and_push(next);
  }
}

// Said once, the first time: a host that needs it once needs it every window, and the totals
// at the end say how often.
void live_push::report_limits_met(const exporting::window_export& exported, bool first_split,
                                  bool first_cut) const {
  if (first_split) {
    report_("push: a window holds more than the server takes in one profile (" +
            std::to_string(limits_.max_samples) + " samples, " + std::to_string(limits_.max_bytes) +
            " bytes): it is sent as " + std::to_string(exported.parts.size()) +
            " profiles of the same time range");
  }
  if (first_cut) {
    report_("push: stacks deeper than the server's " + std::to_string(limits_.max_stack_depth) +
            " frames are cut to their innermost " + std::to_string(limits_.max_stack_depth) + " (" +
            std::to_string(exported.cut_stacks) + " in this window)");
  }
}

void live_push::export_and_push(const window_output& window) {
  exporting::window_export exported;
  try {
    exported =
        exporter_.export_window(window.path, window.start_ns, window.end_ns, limits_, encoding_);
  } catch (const std::exception& error) {
    report_(std::string("push: cannot export the window in ") + window.path + ": " + error.what() +
            (keep_outputs_ ? "" : "; it is kept there"));
    base::exclusive_lock lock{mutex_};
    ++totals_.failed;
    return;
  }
  for (exporting::window_profile& part : exported.parts) {
    fleet::push_window pushed{
        .profile = {reinterpret_cast<const char*>(part.gzipped.data()), part.gzipped.size()},
        .uncompressed_size = part.uncompressed_size,
        .start_ns = window.start_ns,
        .end_ns = window.end_ns,
        .payload = payload_};
    for (auto& [name, value] : part.labels) pushed.labels.push_back({name, value});
    sender_.push(std::move(pushed));
  }
  bool first_split = false, first_cut = false;
  {
    base::exclusive_lock lock{mutex_};
    first_split = exported.split_for_limits && totals_.split_windows == 0;
    totals_.split_windows += exported.split_for_limits ? 1 : 0;
    first_cut = exported.cut_stacks != 0 && totals_.cut_stacks == 0;
    ++totals_.windows;
    totals_.profiles += exported.parts.size();
    totals_.cut_stacks += exported.cut_stacks;
    totals_.samples += exported.samples;
  }
  report_limits_met(exported, first_split, first_cut);
  for (const std::string& warning : exported.warnings) report_("push: " + warning);
  if (keep_outputs_) return;
  try {
    io::remove_output(window.path);
  } catch (const std::exception& error) {
    report_(std::string("push: cannot remove a pushed window: ") + error.what());
  }
}

}  // namespace arec::push
