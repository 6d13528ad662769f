// run_session: one recording (record/session/recording.hpp) from the checks to the summary.
// This unit holds its run, in phase order, the control loop that runs while the rings drain
// (signals, timers, --control, -D, the status line) and the stop.
#include "record/session/session.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>

#include "async/timer.hpp"
#include "base/system_error.hpp"
#include "base/usage_error.hpp"
#include "host/cpu_list.hpp"
#include "host/stop_signals.hpp"
#include "io/output_path.hpp"
#include "io/small_file.hpp"
#include "record/layout/topology.hpp"
#include "record/option_combinations.hpp"
#include "record/session/flight_recorder.hpp"
#include "record/session/recording.hpp"
#include "record/session/stop_conditions.hpp"
#include "record/streaming/streamer.hpp"
#include "record/synthesis/target_tasks.hpp"

namespace arec::record {
namespace {

std::vector<int> online_cpus() {
  std::array<char, 4096> buffer;
  std::string path = sysfs_root() + "/devices/system/cpu/online";
  auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  if (!text) base::throw_errno("read", path);
  return host::parse_cpu_list(*text);
}

std::vector<int> monitored_cpus(const record_options& options, const std::vector<int>& online) {
  if (options.cpus.empty()) return online;
  for (int cpu : options.cpus)
    if (!std::binary_search(online.begin(), online.end(), cpu))
      throw base::usage_error("-C: cpu " + std::to_string(cpu) +
                              " is not online (online: " + host::format_cpu_list(online) + ")");
  return options.cpus;
}

}  // namespace

recording::recording(const record_options& options, std::span<const std::string> command_line)
    : options_(options), command_line_(command_line) {
  if (!options_.no_buildid) {
    machine_.objects().on_created(
        [this](const std::shared_ptr<model::dso>& object) { build_ids_.enqueue(object); });
    machine_.objects().on_mapped_again(
        [this](const std::shared_ptr<model::dso>& object) { build_ids_.enqueue_again(object); });
  }
  if (caches_sampled_dsos())
    machine_.objects().on_sampled(
        [this](const std::shared_ptr<model::dso>& object) { build_ids_.enqueue_sampled(object); });
  machine_.on_jit_sampled([this](pid_t pid) { build_ids_.enqueue_perf_map(pid); });
  machine_.on_jit_process_exit([this](pid_t pid) {
    build_ids_.enqueue_late_perf_map(pid);
    build_ids_.enqueue_call([this, pid] { jitdumps_.read_new(pid); });
  });
  machine_.on_jitdump_mapped([this](const host::mapping_place& place, std::string_view name) {
    build_ids_.enqueue_call(
        [this, place, path = std::string(name)] { jitdumps_.open(place, path); });
  });
  machine_.on_process_sampled([this](pid_t pid) { build_ids_.enqueue_container_of(pid); });
}

int recording::run() {
  // A reader that goes away (the data pipe's, --control's ack fifo's, or stderr's: `arec ...
  // 2>&1 | head`) makes writes fail with EPIPE instead of killing arec before its file is
  // finished; the data pipe's and the ack's failures are reported, messages are dropped.
  host::stop_signals::ignore_broken_pipe();
  for (const std::string& note : options_.notes) say(options_, note);
  std::vector<int> online = online_cpus();
  online_cpu_count_ = online.size();
  cpus_ = monitored_cpus(options_, online);
  layout_ = plan_stream_threads(options_, cpus_, online);
  if (options_.verbose)
    for (const std::string& note : layout_.dropped) say(options_, "arec: " + note);
  record_only_drained_cpus();
  if (options_.dry_run) {
    std::fputs(format_thread_layout(layout_).c_str(), stdout);
    return 0;
  }
  // Decided after --dry-run, which writes its layout to stdout whatever stdout is.
  to_pipe_ = options_.output_path == "-" || (!options_.output_given && io::is_pipe(STDOUT_FILENO));
  check_option_combinations(options_, to_pipe_);
  if (options_.control) {
    commands_.emplace(control_channel::open(
        *options_.control, [this](const std::string& line) { say(options_, line); }));
  }
  // Everything that can fail on bad input or limits (events, ring mappings) comes before the
  // first file is created, so such a failure leaves nothing half-written.
  fit_ring_pages();  // before the events: a DWARF recording's wakeup is a share of the ring
  open_events();
  map_rings();
  // --exclude-perf: the threads that drain the rings run from here on; leave them out too.
  if (std::any_of(options_.events.begin(), options_.events.end(),
                  [](const event_spec& spec) { return spec.exclude_recorder; }))
    events_->exclude_threads(threads_of_processes(std::array{static_cast<int>(::getpid())}));
  create_output();
  window_start_ns_ = wall_clock_now_ns();
  file_start_clocks_ = read_clocks();
  start_streaming();
  wait_for_stop();
  std::exception_ptr failure = stop_streaming();
  if (!failure) failure = switch_failure_;
  finalize(failure);  // before waiting for the workload: the file is complete however that ends
  int status = reap_workload();
  if (failure) std::rethrow_exception(failure);
  return status;
}

// User masks need not cover every monitored cpu; as perf does, a cpu that no streaming
// thread drains is not recorded at all (an event there would have no ring).
void recording::record_only_drained_cpus() {
  std::vector<int> drained;
  for (const stream_thread_mask& thread : layout_.threads)
    drained.insert(drained.end(), thread.cpus.begin(), thread.cpus.end());
  std::sort(drained.begin(), drained.end());
  if (drained != cpus_ && options_.verbose) {
    std::vector<int> left;
    std::set_difference(cpus_.begin(), cpus_.end(), drained.begin(), drained.end(),
                        std::back_inserter(left));
    say(options_, "arec: cpus " + host::format_cpu_list(left) +
                      " are in no --threads mask and are not recorded");
  }
  cpus_ = std::move(drained);
}

void recording::wait_for_stop() {
  // A stop signal during start-up ends the recording as soon as it is complete enough for
  // perf to read; a workload that was not started yet never runs.
  if (host::stop_signals::arrived().stops > 0) return;
  std::vector<io::unique_fd> target_exits = open_pidfds(target_processes_);
  stop_sources sources{.duration_s = options_.duration_s};
  if (child_) sources.workload_exit_fd = child_->exit_fd();
  if (options_.switch_output && options_.switch_output->on_signal)
    sources.switch_output = [this] { switch_output(); };
  if (options_.switch_output && options_.switch_output->time.count() > 0)
    async::spawn_detached(control_.get_executor(), switch_output_every_period());
  for (const io::unique_fd& fd : target_exits) sources.target_exit_fds.push_back(fd.get());
  stop_conditions stop(control_, std::move(sources),
                       [this](const std::string& line) { say(options_, line); });
  async::spawn_detached(control_.get_executor(), keep_header_current());
  if (child_) child_->start();
  if (options_.delayed) async::spawn_detached(control_.get_executor(), follow_enable_windows());
  // Like perf 6.1, which sleeps through -D's first delay, commands wait in their fd until
  // the first window opens (with -D -1 they are read at once: they are what enables).
  if (commands_ && (!options_.delayed || options_.enable_windows.empty()))
    commands_->serve(control_.get_executor(), control_actions());
  if (options_.verbose) say(options_, "arec: recording started");
  status_.start(control_.get_executor(), [this] { return live_status(); });
  control_.run();
  status_.clear();  // before anything else is said
}

// --switch-output=TIME: a switch every period, counted from the recording's start.
async::task<void> recording::switch_output_every_period() {
  async::timer timer(control_.get_executor());
  for (;;) {
    bool elapsed = co_await timer.wait_for(options_.switch_output->time);
    if (!elapsed) co_return;
    switch_output();
  }
  co_return;
}

// -D: sampling starts disabled and follows the windows, timed from the workload's start (or
// the recording's, without one), saying so as perf does.
async::task<void> recording::follow_enable_windows() {
  announce("arec: events disabled");
  async::timer timer(control_.get_executor());
  auto start = std::chrono::steady_clock::now();
  bool first = true;
  for (const enable_window& window : options_.enable_windows) {
    bool on_time = co_await timer.wait_for(until(start, window.start_ms));
    if (!on_time) co_return;
    events_->enable_sampling();
    announce("arec: events enabled");
    if (first && commands_) commands_->serve(control_.get_executor(), control_actions());
    first = false;
    if (!window.end_ms) co_return;
    on_time = co_await timer.wait_for(until(start, *window.end_ms));
    if (!on_time) co_return;
    events_->disable_sampling();
    announce("arec: events disabled");
  }
  co_return;
}

std::chrono::steady_clock::duration recording::until(std::chrono::steady_clock::time_point start,
                                                     std::uint64_t ms) {
  return std::max<std::chrono::steady_clock::duration>(
      start + std::chrono::milliseconds(ms) - std::chrono::steady_clock::now(), {});
}

// --control's commands act on the events and the loop, from the loop's own thread.
record::control_actions recording::control_actions() {
  record::control_actions actions;
  actions.sample_all = [this](bool on) {
    if (on)
      events_->enable_sampling();
    else
      events_->disable_sampling();
  };
  actions.sample_one = [this](const std::string& name, bool on) {
    return events_->set_event_enabled(name, on);
  };
  actions.list_events = [this](char detail) { list_events(detail); };
  actions.stop = [this] { control_.stop(); };
  if (options_.attrs.overwrite && options_.switch_output)
    actions.snapshot = [this] { switch_output(); };  // the file is written on return
  actions.say = [this](const std::string& line) { announce(line); };
  return actions;
}

// "evlist": the events' names on stderr, as perf prints them whatever -q says; with -F (and
// -v, where perf prints every attr field) each one's frequency or period.
void recording::list_events(char detail) {
  status_.erase();
  for (const perf_data::event_entry& entry : entries_) {
    std::string line = entry.name;
    if (detail == 'F' || detail == 'v')
      line += (entry.attr.freq ? ": sample_freq=" : ": sample_period=") +
              std::to_string(entry.attr.sample_period);
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// A line for the user while the status line may be drawn.
void recording::announce(const std::string& line) {
  status_.erase();
  say(options_, line);
}

// Every second: a single file's header learns its durable data size, and with -v the user
// learns how many samples are safely on disk (what any crash would still keep).
async::task<void> recording::keep_header_current() {
  async::timer timer(control_.get_executor());
  for (;;) {
    co_await timer.wait_for(std::chrono::seconds(1));
    if (!directory() && !to_pipe())
      header_->update_data_size(threads_.front()->stream.durable_offset() - data_offset_);
    if (options_.verbose && !options_.quiet) {
      status_.erase();
      std::uint64_t samples = 0;
      for (const auto& t : threads_) samples += t->stream.durable_samples();
      std::fprintf(stderr, "arec: progress: %llu samples on disk\n",
                   static_cast<unsigned long long>(samples));
    }
  }
}

// What the status line shows; reads only what the streaming threads publish atomically.
status_snapshot recording::live_status() const {
  status_snapshot status;
  streamer_progress sum;
  for (const auto& t : threads_) {
    streamer_progress progress = t->stream.progress();
    status.samples += t->stream.durable_samples();
    status.bytes_written += t->stream.durable_offset();
    sum.lost += progress.lost;
    sum.ring_bytes += progress.ring_bytes;
    sum.file_bytes += progress.file_bytes;
    status.fullest_ring_permille =
        std::max(status.fullest_ring_permille, progress.fullest_permille);
  }
  status.lost = sum.lost;
  if (options_.compression_level > 0 && sum.file_bytes > 0)
    status.compression_ratio =
        static_cast<double>(sum.ring_bytes) / static_cast<double>(sum.file_bytes);
  return status;
}

// Drains every ring and ends the streaming threads; returns the first write failure.
std::exception_ptr recording::stop_streaming() {
  if (!failed_ && !switch_failure_) {
    try {
      take_snapshot();  // the end writes the rings' last state
    } catch (const std::system_error&) {
      // A failed write failed the stream, and a failed pause recurs in the final drain's
      // own snapshot: join() below reports either.
    }
  }
  events_->disable();
  for (auto& t : threads_) t->stream.stop();
  std::exception_ptr failure;
  for (auto& t : threads_) {
    try {
      t->thread.join();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  for (auto& t : threads_) {
    total_.merge(t->stream.stats());
    auto [in, out] = t->stream.compression_totals();
    compression_.bytes_in += in;
    compression_.bytes_out += out;
  }
  failed_ = static_cast<bool>(failure);
  return failure;
}

// As perf does, a workload still running when the recording ends is asked to end (SIGTERM)
// and waited for. A stop signal that arrives while it takes its time (or that came already
// while the file was finished) ends that wait: arec then ends as that signal ends a process.
int recording::reap_workload() {
  if (!child_) return 0;
  namespace signals = host::stop_signals;
  unsigned stops_when_recording_ended = signals::arrived().stops > 0 ? 1 : 0;
  if (!child_->exits_within(std::chrono::milliseconds(0))) {
    child_->terminate();
    if (!child_->exits_within(std::chrono::milliseconds(200))) {
      say(options_, "arec: waiting for the workload (pid " + std::to_string(child_->pid()) +
                        ") to exit; press Ctrl-C again to stop waiting");
      while (!child_->exits_before(signals::wakeup_fd())) {
        signals::drain_wakeups();
        if (signals::arrived().stops > stops_when_recording_ended)
          signals::die_of(signals::arrived().first_stop);
      }
    }
  }
  return child_->wait();
}

int run_session(const record_options& options, std::span<const std::string> command_line) {
  return recording(options, command_line).run();
}

}  // namespace arec::record
