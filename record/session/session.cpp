#include "record/session/session.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>

#include "async/event_loop.hpp"
#include "async/executor_thread.hpp"
#include "async/timer.hpp"
#include "io/append_writer.hpp"
#include "io/cgroup_fs.hpp"
#include "io/file_sink.hpp"
#include "io/output_path.hpp"
#include "io/perf_data/host_features.hpp"
#include "io/perf_data/perf_file_writer.hpp"
#include "io/perf_data/container_ids_feature.hpp"
#include "io/perf_data/perf_maps_feature.hpp"
#include "io/perf_data/pipe_stream.hpp"
#include "io/perf_data/sample_layout.hpp"
#include "io/perf_data/tracing_data.hpp"
#include "io/small_file.hpp"
#include "io/stop_signals.hpp"
#include "io/system_error.hpp"
#include "io/tracefs.hpp"
#include "io/usage_error.hpp"
#include "io/users.hpp"
#include "model/machine.hpp"
#include "record/events/event_set.hpp"
#include "record/events/perf_event.hpp"
#include "record/layout/stream_layout.hpp"
#include "record/layout/topology.hpp"
#include "record/session/control_channel.hpp"
#include "record/session/flight_recorder.hpp"
#include "record/session/initial_state.hpp"
#include "record/session/messages.hpp"
#include "record/session/recording_output.hpp"
#include "record/session/rotated_files.hpp"
#include "record/session/status_line.hpp"
#include "record/session/stop_conditions.hpp"
#include "record/session/streaming_thread.hpp"
#include "record/session/summary.hpp"
#include "record/session/workload.hpp"
#include "record/streaming/compression_stage.hpp"
#include "record/streaming/ring_buffer.hpp"
#include "record/streaming/stream_sink.hpp"
#include "record/streaming/streamer.hpp"
#include "record/synthesis/build_id_reader.hpp"
#include "record/synthesis/build_id_table.hpp"
#include "record/synthesis/kernel_map.hpp"
#include "record/synthesis/known_tasks.hpp"
#include "record/synthesis/target_tasks.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::record {

namespace {

constexpr std::size_t default_data_pages = 128;  // 512 KiB per cpu, perf's default for root

// -k: the clock's resolution and one instant on it and on the wall clock, as perf takes them
// at the start of a recording, so that a reader can turn sample times into times of day.
struct clock_reference {
  std::uint64_t resolution_ns = 0;
  std::uint64_t wall_clock_ns = 0;
  std::uint64_t clock_ns = 0;
};

std::uint64_t nanoseconds(const timespec& time) {
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(time.tv_nsec);
}

clock_reference read_clock_reference(int clockid) {
  timespec resolution{}, wall{}, clock{};
  std::string what = "clock " + std::to_string(clockid);
  io::check_syscall(::clock_getres(clockid, &resolution), "clock_getres", what);
  io::check_syscall(::clock_gettime(CLOCK_REALTIME, &wall), "clock_gettime", "CLOCK_REALTIME");
  io::check_syscall(::clock_gettime(clockid, &clock), "clock_gettime", what);
  return {nanoseconds(resolution), nanoseconds(wall), nanoseconds(clock)};
}

std::int64_t wall_clock_now_ns() {
  timespec wall{};
  io::check_syscall(::clock_gettime(CLOCK_REALTIME, &wall), "clock_gettime", "CLOCK_REALTIME");
  return static_cast<std::int64_t>(nanoseconds(wall));
}

std::vector<int> online_cpus() {
  std::array<char, 4096> buffer;
  std::string path = sysfs_root() + "/devices/system/cpu/online";
  auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
  if (!text) io::throw_errno("read", path);
  return io::parse_cpu_list(*text);
}

std::vector<int> monitored_cpus(const record_options& options, const std::vector<int>& online) {
  if (options.cpus.empty()) return online;
  for (int cpu : options.cpus)
    if (!std::binary_search(online.begin(), online.end(), cpu))
      throw io::usage_error("-C: cpu " + std::to_string(cpu) +
                            " is not online (online: " + io::format_cpu_list(online) + ")");
  return options.cpus;
}

// Each fd counts against RLIMIT_NOFILE: raise the soft limit to the hard one when needed.
void ensure_fd_limit(std::size_t needed) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  if (limit.rlim_max < needed)
    throw std::runtime_error("this recording needs " + std::to_string(needed) +
                             " file descriptors but the hard limit (ulimit -Hn) is " +
                             std::to_string(limit.rlim_max));
  limit.rlim_cur = limit.rlim_max;
  io::check_syscall(::setrlimit(RLIMIT_NOFILE, &limit), "setrlimit", "RLIMIT_NOFILE");
}

std::vector<io::perf::event_entry> file_events(const event_set& events) {
  std::vector<io::perf::event_entry> entries;
  for (const opened_event& event : events.events())
    entries.push_back({event.attr, event.name, event.ids});
  return entries;
}

// The event groups, by index among the file's events (the requested ones come first, in order).
std::vector<io::perf::group_entry> event_groups(std::span<const event_spec> events) {
  std::vector<io::perf::group_entry> groups;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].group_size > 1)
      groups.push_back({events[i].group_name, static_cast<std::uint32_t>(i), events[i].group_size});
  return groups;
}

io::perf::feature_set final_features(const record_options& options,
                                     std::span<const io::perf::event_entry> entries,
                                     const stream_stats& stats, bool directory,
                                     std::span<const std::string> command_line) {
  io::perf::feature_set features;
  io::perf::add_host_features(features);
  features.set(io::perf::feature_event_desc, io::perf::event_desc_payload(entries));
  features.set(io::perf::feature_cmdline, io::perf::cmdline_payload(command_line));
  if (auto groups = event_groups(options.events); !groups.empty())
    features.set(io::perf::feature_group_desc, io::perf::group_desc_payload(groups));
  if (stats.samples > 0)
    features.set(io::perf::feature_sample_time,
                 io::perf::sample_time_payload(stats.first_sample_time, stats.last_sample_time));
  if (directory) features.set(io::perf::feature_dir_format, io::perf::dir_format_payload());
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const event_spec& spec : options.events)
    if (spec.tracepoint) tracepoints.push_back(*spec.tracepoint);
  if (!tracepoints.empty()) {
    features.set(io::perf::feature_tracing_data,
                 io::perf::tracing_data_payload(io::tracefs::root(), tracepoints));
  }
  return features;
}

// perf's build-id cache, unless -N or -B turn it off. As in perf, only the dsos that got a
// sample go in (every mapped one with --buildid-all): a file mapped and never run, by any user
// of the machine, must not be copied into the recording user's cache.
bool caches_build_ids(const record_options& options) {
  return !options.no_buildid && !options.no_buildid_cache && !options.dry_run;
}

std::unique_ptr<symbols::build_id_cache> build_id_cache_for(const record_options& options) {
  if (!caches_build_ids(options)) return nullptr;
  return std::make_unique<symbols::build_id_cache>(
      symbols::default_build_id_dir(), [&options](const std::string& line) { say(options, line); });
}

}  // namespace

namespace {

// One recording, phase by phase. Members are declared in the order they must be destroyed in
// reverse: the streaming threads stop before the events and files they use go away.
class recording {
 public:
  recording(const record_options& options, std::span<const std::string> command_line)
      : options_(options), command_line_(command_line) {
    if (!options_.no_buildid)
      machine_.objects().on_created(
          [this](const std::shared_ptr<model::dso>& object) { build_ids_.enqueue(object); });
    if (caches_sampled_dsos())
      machine_.objects().on_sampled(
          [this](const std::shared_ptr<model::dso>& object) { build_ids_.enqueue_sampled(object); });
    machine_.on_jit_sampled([this](pid_t pid) { build_ids_.enqueue_perf_map(pid); });
    machine_.on_process_sampled([this](pid_t pid) { build_ids_.enqueue_container_of(pid); });
  }

  int run() {
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
    to_pipe_ =
        options_.output_path == "-" || (!options_.output_given && io::is_pipe(STDOUT_FILENO));
    if (to_pipe_ && directory())
      throw io::usage_error("parallel streaming (--threads) is not available in pipe mode");
    if (per_thread_rings() && directory())
      throw io::usage_error("--per-thread option is mutually exclusive to parallel streaming mode");
    check_output_switching();
    check_overwrite(options_, to_pipe());
    if (to_pipe_) io::stop_signals::ignore_broken_pipe();
    if (options_.control) {
      commands_.emplace(control_channel::open(
          *options_.control, [this](const std::string& line) { say(options_, line); }));
      // An ack reader that went away is reported, not a SIGPIPE that kills the recording.
      if (commands_->acknowledges()) io::stop_signals::ignore_broken_pipe();
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
    start_streaming();
    wait_for_stop();
    std::exception_ptr failure = stop_streaming();
    if (!failure) failure = switch_failure_;
    finalize(failure);  // before waiting for the workload: the file is complete however that ends
    int status = reap_workload();
    if (failure) std::rethrow_exception(failure);
    return status;
  }

 private:
  bool has_targets() const {
    return !options_.pids.empty() || !options_.tids.empty() || options_.user.has_value();
  }
  bool per_task() const {
    return has_targets() ||
           (!options_.workload.empty() && !options_.system_wide && options_.cpus.empty());
  }
  // The workload is what is recorded (`arec -- cmd`), not only what bounds the recording
  // (`arec -a -- cmd`, `arec -p PID -- cmd`): then its events are enabled by its exec.
  bool workload_is_target() const { return !has_targets() && per_task() && child_; }
  bool directory() const { return options_.threads_spec.has_value(); }
  // --per-thread, where perf takes it: for tasks (a workload, -p, -t, -u), not with -a or -C.
  bool per_thread_rings() const { return options_.per_thread && per_task(); }
  // perf's pipe mode: -o -, or no -o while standard output is a pipe.
  bool to_pipe() const { return to_pipe_; }

  bool timestamped() const { return options_.timestamp_filename; }

  // A pipe has no file to rename; with --threads each rotation is a whole data directory.
  void check_output_switching() const {
    bool rotation = options_.switch_output || options_.timestamp_filename;
    if (rotation && to_pipe())
      throw io::usage_error(
          "--switch-output and --timestamp-filename are not available in pipe mode");
  }

  // User masks need not cover every monitored cpu; as perf does, a cpu that no streaming
  // thread drains is not recorded at all (an event there would have no ring).
  void record_only_drained_cpus() {
    std::vector<int> drained;
    for (const stream_thread_mask& thread : layout_.threads)
      drained.insert(drained.end(), thread.cpus.begin(), thread.cpus.end());
    std::sort(drained.begin(), drained.end());
    if (drained != cpus_ && options_.verbose) {
      std::vector<int> left;
      std::set_difference(cpus_.begin(), cpus_.end(), drained.begin(), drained.end(),
                          std::back_inserter(left));
      say(options_, "arec: cpus " + io::format_cpu_list(left) +
                        " are in no --threads mask and are not recorded");
    }
    cpus_ = std::move(drained);
  }

  void open_events() {
    std::vector<event_spec> specs = options_.events;
    if (specs.empty()) specs.push_back(parse_event_spec("cycles"));
    // In pipe mode the workload's output goes to stderr: stdout carries the recording.
    if (!options_.workload.empty()) child_.emplace(workload::prepare(options_.workload, to_pipe()));
    event_target target;
    target.cpus = cpus_;
    if (per_thread_rings()) {
      target.cpus = {-1};
      target.ring_per_task = true;
    }
    std::vector<io::unique_fd> cgroups = open_cgroups(specs);
    for (const io::unique_fd& fd : cgroups) target.cgroup_fds.push_back(fd.get());
    if (options_.user) {
      target_processes_ = user_processes(*options_.user);
      target.tasks = threads_of_processes(target_processes_, true);
      target.skip_gone_tasks = true;
    } else if (has_targets()) {
      // -t threads stand for their processes where a process is meant: synthesis, and the
      // exits that end the recording; only those threads are sampled.
      std::vector<pid_t> pid_processes = processes_of(options_.pids);
      std::vector<pid_t> tid_processes = processes_of(options_.tids, "-t");
      target.tasks = threads_of_processes(pid_processes);
      target.tasks.insert(target.tasks.end(), options_.tids.begin(), options_.tids.end());
      std::sort(target.tasks.begin(), target.tasks.end());
      target.tasks.erase(std::unique(target.tasks.begin(), target.tasks.end()), target.tasks.end());
      std::merge(pid_processes.begin(), pid_processes.end(), tid_processes.begin(),
                 tid_processes.end(), std::back_inserter(target_processes_));
      target_processes_.erase(std::unique(target_processes_.begin(), target_processes_.end()),
                              target_processes_.end());
    } else if (per_task())
      target.tasks = {child_->pid()};
    // Per cpu and task one fd per event (the tracking event included); per streaming thread a
    // data file, an io_uring and its eventfd, and its executor's epoll, eventfd and timerfd
    // (counted in /proc/PID/fd by bench/scale: 6, docs/performance-log.md "Scale"). Counting 3
    // left a 192-CPU --threads=cpu recording at a 1024 soft limit without the raise it needs.
    constexpr std::size_t fds_per_streaming_thread = 6;
    ensure_fd_limit(target.cpus.size() * target.tasks.size() * (specs.size() + 1) +
                    fds_per_streaming_thread * layout_.threads.size() + 64);
    sampling_config sampling = make_sampling_config(options_, workload_is_target());
    // The kernel maps no ring of an inherited per-task event: as perf, --per-thread records
    // only the tasks it opens, not the children they start.
    if (per_thread_rings()) sampling.attrs.inherit = false;
    if (options_.buildid_mmap)
      say(options_,
          "arec: warning: --buildid-mmap: while arec records, the kernel marks the "
          "MMAP2 records of every other perf session on this machine as holding "
          "build-ids; perf record 6.1 sessions running meanwhile may abort");
    if (std::string warning = limit_frequency(sampling, options_.frequency.has_value(),
                                              read_max_sample_rate(), options_.strict_freq);
        !warning.empty())
      say(options_, warning);
    // A DWARF sample carries a stack copy (8 KiB by default): a ring holds few of them, so wake
    // the drain at a quarter instead of the kernel's half, to leave room while a write completes.
    if (records_dwarf(options_))
      sampling.wakeup_bytes = static_cast<std::uint32_t>(ring_bytes() / 4);
    events_.emplace(event_set::open(specs, sampling, target,
                                    [&](const std::string& line) { say(options_, line); }));
    if (options_.user && events_->ring_keys().empty())
      throw std::runtime_error("-u: every process of user " + *options_.user +
                               " ended before it could be recorded");
    entries_ = file_events(*events_);
    if (options_.attrs.clockid) clock_ = read_clock_reference(*options_.attrs.clockid);
  }

  // -u: what the user runs now (its children follow through inherit), arec itself left out.
  static std::vector<pid_t> user_processes(const std::string& user) {
    uid_t uid = io::resolve_user(user);
    std::vector<pid_t> processes = processes_of_user(uid, ::getpid());
    if (processes.empty())
      throw std::runtime_error("-u: user " + user + " (uid " + std::to_string(uid) +
                               ") runs no process to record");
    return processes;
  }

  // -G: each event's cgroup opened (one fd per event, -1 for none), in perf's words on failure.
  static std::vector<io::unique_fd> open_cgroups(std::span<const event_spec> specs) {
    std::vector<io::unique_fd> fds(specs.size());
    if (std::all_of(specs.begin(), specs.end(),
                    [](const event_spec& spec) { return spec.cgroup.empty(); }))
      return fds;
    std::optional<std::string> mount = io::perf_event_cgroup_mount();
    if (!mount)
      throw io::usage_error(
          "-G: no cgroup file system is mounted (cgroup2, or cgroup with perf_event)");
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].cgroup.empty()) continue;
      try {
        fds[i] = io::open_cgroup(*mount, specs[i].cgroup);
      } catch (const std::system_error& error) {
        throw io::usage_error("no access to cgroup " + *mount + "/" + specs[i].cgroup + ": " +
                              error.code().message());
      }
    }
    return fds;
  }

  void create_output() {
    if (to_pipe()) {
      // What a file keeps in its header leads the stream instead; the features that are
      // only known at the end (SAMPLE_TIME, BUILD_ID) are left out, as perf does.
      std::vector<std::byte> head =
          io::perf::pipe_stream_head(entries_, features(stream_stats{}, compression_totals{}));
      io::write_all(STDOUT_FILENO, head, "standard output");
      data_offset_ = head.size();
      return;
    }
    output_.emplace(
        recording_output::create(options_.output_path, directory(), layout_.threads.size()));
    header_.emplace(output_->header_fd(), output_->header_path());
    data_offset_ = header_->write_prologue(entries_);
    output_->publish();
  }

  streamer_config stream_config() {
    streamer_config config;
    config.model = &machine_;
    config.write_rounds = !directory();  // perf 6.1 breaks on FINISHED_ROUND in data.N
    config.compression_level = options_.compression_level;
    // As perf does, a flush threshold above a quarter of the ring could let the ring fill up.
    config.mmap_flush = options_.attrs.no_buffering
                            ? 1
                            : std::min<std::uint64_t>(options_.mmap_flush, ring_bytes() / 4);
    config.sample_time_offset = io::perf::sample_time_offset(shared_sample_type(options_.attrs));
    config.meter = meter_ ? &*meter_ : nullptr;
    config.overwrite = options_.attrs.overwrite;
    config.trailer_time_from_end =
        io::perf::trailer_bytes_after_time(shared_sample_type(options_.attrs)) + 8;
    config.samples = sample_fields();  // for the cache, and for JIT code's perf maps
    config.fixups.clear_leaked_build_id_flags =
        std::none_of(entries_.begin(), entries_.end(),
                     [](const io::perf::event_entry& event) { return event.attr.build_id; });
    return config;
  }
  // The streams mark the dsos samples fall in, for the cache, unless every dso goes in anyway.
  bool caches_sampled_dsos() const {
    return caches_build_ids(options_) && !options_.buildid_all;
  }
  // Where the attrs' shared sample_type puts a sample's address, thread and time.
  sample_position sample_fields() const {
    std::uint64_t type = shared_sample_type(options_.attrs);
    return {io::perf::sample_ip_offset(type), io::perf::sample_tid_offset(type),
            io::perf::sample_time_offset(type)};
  }
    // As perf warns: a ring is drained when it wakes the drain (or at a round), so each file
  // overshoots SIZE by up to that much per ring.
  void warn_of_small_switch_size(std::uint64_t switch_size) const {
    std::uint64_t wakeup = records_dwarf(options_) ? ring_bytes() / 4 : ring_bytes() / 2;
    if (!switch_size || switch_size >= wakeup) return;
    const char* units[] = {"B", "K", "M", "G"};
    std::size_t unit = 0;
    for (; wakeup >= 1024 && unit + 1 < std::size(units); ++unit) wakeup /= 1024;
    say(options_, "arec: warning: switch-output data size lower than wakeup kernel buffer size (" +
                      std::to_string(wakeup) + units[unit] + ") expect bigger perf.data sizes");
  }

  // --switch-output=SIZE and --max-size count the bytes of every streaming thread together.
  void make_output_meter() {
    std::uint64_t switch_size = options_.switch_output ? options_.switch_output->size : 0;
    if (!switch_size && !options_.max_size) return;
    warn_of_small_switch_size(switch_size);
    meter_.emplace(
        switch_size, [this] { async::post(control_.get_executor(), [this] { switch_output(); }); },
        options_.max_size,
        [this](std::uint64_t written) {
          async::post(control_.get_executor(), [this, written] {
            announce("arec: size limit reached (" + std::to_string(written / 1024) +
                     " KB), stopping the recording");
            control_.stop();
          });
        });
  }
  std::size_t ring_pages() const { return ring_pages_; }

  // -m larger than the kernel maps: perf 6.1 then maps no data pages at all (its mask
  // overflows an int at 2^20 pages) and records no sample, saying nothing. arec takes the
  // largest ring the kernel maps, found on a dummy event of its own, and says so.
  void fit_ring_pages() {
    if (ring_pages_ <= default_data_pages) return;
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_DUMMY;
    attr.disabled = 1;
    attr.exclude_kernel = 1;  // allowed at any perf_event_paranoid that lets arec record
    attr.exclude_hv = 1;
    perf_event probe = perf_event::open(attr, 0, -1, "dummy:u (ring size probe)");
    std::size_t fits = ring_buffer::largest_mappable(probe, ring_pages_);
    if (fits == ring_pages_) return;
    say(options_, "arec: warning: -m " + std::to_string(ring_pages_) +
                      ": the kernel maps no ring of " + ring_size_text(ring_pages_ * page_size_) +
                      " (" + std::strerror(ENOMEM) + "); using " + std::to_string(fits) +
                      " pages (" + ring_size_text(fits * page_size_) + "), the largest it maps");
    ring_pages_ = fits;
  }
  // A ring's size, a power of two: "512K", "1G", as perf prints -m's.
  static std::string ring_size_text(std::uint64_t bytes) {
    constexpr const char* units[] = {"B", "K", "M", "G", "T"};
    std::size_t unit = 0;
    for (; bytes >= 1024 && bytes % 1024 == 0 && unit + 1 < std::size(units); ++unit) bytes /= 1024;
    return std::to_string(bytes) + units[unit];
  }
  std::size_t ring_bytes() const { return ring_pages() * page_size_; }

  void map_rings() {
    make_output_meter();
    for (std::size_t i = 0; i < layout_.threads.size(); ++i) {
      auto stop_recording = [this] { async::post(control_.get_executor(), [this] { control_.stop(); }); };
      threads_.push_back(std::make_unique<streaming_thread>(layout_.threads[i], i, stream_config(),
                                                            stop_recording));
      if (options_.realtime_priority)
        threads_.back()->thread.set_realtime_priority(*options_.realtime_priority);
      if (const std::string& error = threads_.back()->thread.pin_error(); !error.empty())
        say(options_, "arec: streaming thread " + std::to_string(i) + " runs unpinned: " + error);
      if (const std::string& error = threads_.back()->slice_error; !error.empty())
        say(options_, "arec: streaming thread " + std::to_string(i) +
                          " keeps the default time slice: " + error);
      if (per_thread_rings()) {  // --per-thread: one thread (no --threads), a ring per task
        for (int task : events_->ring_keys())
          threads_.back()->stream.add_ring(-1, events_->ring_owner(task), ring_pages());
        continue;
      }
      for (int cpu : layout_.threads[i].cpus)
        threads_.back()->stream.add_ring(cpu, events_->ring_owner(cpu), ring_pages());
    }
    events_->redirect_into_rings();
  }

  // The rings drain from here on, while what already runs is synthesized: the tracking
  // event's records cannot pile up in them however long synthesis takes.
  void start_streaming() {
    bool said_fallback = false;
    for (std::size_t i = 0; i < threads_.size(); ++i) {
      auto [writer, choice] =
          to_pipe() ? io::make_append_writer(STDOUT_FILENO, "standard output", data_offset_,
                                             {.sequential = true})
                    : io::make_append_writer(output_->stream_fd(i), output_->stream_path(i),
                                             directory() ? 0 : data_offset_);
      if (!choice.fallback_reason.empty() && !said_fallback) {
        said_fallback = true;
        say(options_, "arec: io_uring is unavailable (" + choice.fallback_reason +
                          "); writing with plain writes");
      }
      threads_[i]->stream.start(std::move(writer));
    }
    synthesize_what_runs();
    make_recoverable();
    // As with perf, sampling starts once what already runs is described: the tracking event
    // saw every change meanwhile, and the samples are the workload's, not arec's start-up.
    if (!workload_is_target() && !options_.delayed) events_->enable_sampling();
  }

  // A directory's synthesized records go to its header file; a single file's go through the
  // streaming thread that owns the file's end, between its drains.
  void synthesize_what_runs() {
    kernel_.text = find_kernel_text(kernel_.kallsyms, kernel_.iomem);
    if (directory()) {
      synthesize_into_header(false);
    } else {
      stream_sink sink(threads_.front()->stream);
      synthesize_initial_state(options_, target_processes_, child_, per_task(), sink, machine_,
                               online_cpu_count_, kernel_);
      sink.flush();
    }
    for (auto& t : threads_) t->stream.release_rounds();
  }

  // After a switch (`switched`) the tasks the model knows come first: with several streaming
  // threads no single moment is the cut, so they are taken once every thread has cut.
  void synthesize_into_header(bool switched) {
    std::uint64_t offset = data_offset_;
    if (switched) {
      std::vector<std::byte> tasks = encode_known_tasks(
          machine_, io::perf::sample_id_trailer_size(shared_sample_type(options_.attrs)));
      io::write_all_at(output_->header_fd(), tasks.data(), tasks.size(), offset,
                       output_->header_path());
      offset += tasks.size();
    }
    auto sink =
        std::make_unique<io::file_sink>(output_->header_fd(), offset, output_->header_path());
    synthesize_initial_state(options_, target_processes_, child_, per_task(), *sink, machine_,
                             online_cpu_count_, kernel_, switched);
    header_end_ = sink->flush();
  }

  // From here on, a crash leaves files perf reads. A directory's header file is complete once
  // synthesis is written (its features are rewritten at the end with the final counts); a
  // single file's data size is kept current while recording (keep_header_current).
  void make_recoverable() {
    if (to_pipe()) return;  // a pipe stream is readable as far as it got
    if (directory())
      header_->write_epilogue(header_end_ - data_offset_, features({}, {}));
    else  // the synthesized records are on disk: count them now, not a second from now
      header_->update_data_size(threads_.front()->stream.durable_offset() - data_offset_);
  }

  void wait_for_stop() {
    // A stop signal during start-up ends the recording as soon as it is complete enough for
    // perf to read; a workload that was not started yet never runs.
    if (io::stop_signals::arrived().stops > 0) return;
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
  async::task<void> switch_output_every_period() {
    async::timer timer(control_.get_executor());
    for (;;) {
      bool elapsed = co_await timer.wait_for(options_.switch_output->time);
      if (!elapsed) co_return;
      switch_output();
    }
    co_return;
  }

  // --switch-output: the file is renamed PATH.<time> and finished, while the streaming thread
  // goes on into a fresh PATH. Runs on the control thread, as does everything else that
  // touches the header.
  void switch_output() {
    if (switch_failure_ || failed_) return;
    try {
      rotate_output();
    } catch (...) {
      // The recording ends; what is on disk stays readable (docs/crash-safety.md).
      switch_failure_ = std::current_exception();
      control_.stop();
    }
  }

  void rotate_output() {
    if (options_.attrs.overwrite) {
      take_snapshot();
      // Written while the file is still PATH and current: a write that fails (a full disk)
      // ends the recording with this file cut back and finished at the end, as any.
      write_taken_snapshots();
    }
    std::string rotated = rotated_files_.next_name();
    if (meter_) meter_->start_output();
    // Renamed first: the open fds keep writing into it, and PATH is free for the new output.
    // A crash from here on leaves PATH.<time> as salvageable as PATH was.
    io::check_syscall(::rename(options_.output_path.c_str(), rotated.c_str()), "rename",
                      options_.output_path + " to " + rotated);
    auto [next, next_header] = create_next_output(rotated);
    recording_output old_output = std::exchange(*output_, std::move(next));
    io::perf::perf_file_writer old_header = std::exchange(*header_, std::move(next_header));
    std::uint64_t old_header_end = header_end_;
    std::vector<output_cut> cuts = cut_every_stream();
    output_cut cut = merged(cuts);
    if (directory()) cut.data_end = old_header_end;  // the header file's own records
    if (cut.failure) cut_back(old_output, cuts);
    std::exception_ptr failure = cut.failure;
    try {
      finish_file(old_header, cut);
    } catch (const std::system_error&) {
      failure = std::current_exception();  // its data size is right: it is still announced
    }
    last_rotated_bytes_ = old_output.total_bytes();
    rotated_bytes_ += last_rotated_bytes_;
    ++switches_;
    if (!options_.transient_outputs) say(options_, "arec: dump " + rotated);
    rotated_files_.keep(rotated);
    output_finished(rotated);
    if (failure) std::rethrow_exception(failure);
    // What runs now, for the new output's samples; then its rounds may flow.
    if (directory()) {
      synthesize_into_header(true);
      for (auto& t : threads_) t->stream.release_rounds();
      make_recoverable();
      return;
    }
    streamer& stream = threads_.front()->stream;
    stream_sink sink(stream);
    synthesize_initial_state(options_, target_processes_, child_, per_task(), sink, machine_,
                             online_cpu_count_, kernel_, true);
    sink.flush();
    stream.release_rounds();
    header_->update_data_size(stream.durable_offset() - data_offset_);
  }

  // The output a switch goes on into, with its prologue, named PATH. When that fails (a full
  // disk may refuse even the prologue) the current output is given its name back and stays
  // current: nothing was cut yet.
  std::pair<recording_output, io::perf::perf_file_writer> create_next_output(
      const std::string& rotated) {
    std::optional<recording_output> next;
    try {
      next.emplace(recording_output::create(options_.output_path, directory(), threads_.size()));
      io::perf::perf_file_writer header(next->header_fd(), next->header_path());
      header.write_prologue(entries_);  // same events: the same data offset
      next->publish();
      return {std::move(*next), std::move(header)};
    } catch (...) {
      if (next && directory()) io::remove_output(options_.output_path);
      io::check_syscall(::rename(rotated.c_str(), options_.output_path.c_str()), "rename",
                        rotated + " back to " + options_.output_path);
      throw;
    }
  }

  // --overwrite --switch-output: the snapshot each thread took goes into its current file now.
  void write_taken_snapshots() {
    std::vector<std::future<void>> written;
    for (auto& t : threads_) written.push_back(t->stream.write_taken_snapshot());
    std::exception_ptr failure;
    for (std::future<void>& one : written) {
      try {
        one.get();
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  }

  // Every streaming thread goes on into its file of the new output (output_) at its next
  // drain; waits only for the writes already under way. A single file gets the tasks the model
  // knows at the cut from its thread; a directory's come into its header file after the cuts.
  // One cut per streaming thread.
  std::vector<output_cut> cut_every_stream() {
    std::size_t trailer = io::perf::sample_id_trailer_size(shared_sample_type(options_.attrs));
    std::vector<std::future<output_cut>> pending;
    for (std::size_t i = 0; i < threads_.size(); ++i) {
      auto [writer, choice] = io::make_append_writer(output_->stream_fd(i), output_->stream_path(i),
                                                     directory() ? 0 : data_offset_);
      std::function<std::vector<std::byte>()> prelude;
      if (!directory()) prelude = [this, trailer] { return encode_known_tasks(machine_, trailer); };
      pending.push_back(threads_[i]->stream.switch_output(std::move(writer), std::move(prelude)));
    }
    std::vector<output_cut> cuts;
    for (std::future<output_cut>& one : pending) cuts.push_back(one.get());
    return cuts;
  }
  static output_cut merged(const std::vector<output_cut>& cuts) {
    output_cut all;
    for (const output_cut& cut : cuts) {
      all.data_end = cut.data_end;
      all.stats.merge(cut.stats);
      all.compressed_in += cut.compressed_in;
      all.compressed_out += cut.compressed_out;
      if (!all.failure) all.failure = cut.failure;
    }
    return all;
  }

  // After a failed write (a full disk) every stream file of `output` is cut back to its durable
  // prefix, which ends on a record boundary: a reader of data.N walks to its end, and in a
  // single file the bytes freed give its features room.
  static void cut_back(const recording_output& output, const std::vector<output_cut>& cuts) {
    for (std::size_t i = 0; i < cuts.size(); ++i)
      io::check_syscall(::ftruncate(output.stream_fd(i), static_cast<off_t>(cuts[i].data_end)),
                        "ftruncate", output.stream_path(i));
  }

  // --overwrite: the rings are copied at once (the moments before the request, not arec's
  // own work after it), then what runs is read again into the file the snapshot goes to, as
  // perf's --tail-synthesize (which --overwrite implies) does: the records that described it
  // may have been overwritten. Those records have time 0, which perf applies as it reads them,
  // before the snapshot's samples, which come after them.
  void take_snapshot() {
    if (!options_.attrs.overwrite) return;
    pause_every_ring();
    std::vector<std::future<void>> taken;
    for (auto& t : threads_) taken.push_back(t->stream.take_snapshot());
    for (std::future<void>& one : taken) one.get();
    streamer& stream = threads_.front()->stream;  // with --threads: data.0, before its snapshot
    std::optional<pid_t> workload;
    if (workload_is_target()) workload = child_->pid();
    stream_sink sink(stream);
    synthesize_initial_state(options_, processes_to_describe(target_processes_, workload), child_,
                             per_task(), sink, machine_, online_cpu_count_, kernel_);
    sink.flush();
  }

  // Every thread's rings paused from here, before any thread copies its own: one instant for
  // the whole snapshot (as perf pauses all rings in one loop), not one per streaming thread.
  void pause_every_ring() {
    for (std::size_t paused = 0; paused < threads_.size(); ++paused) {
      try {
        threads_[paused]->stream.pause_rings();
      } catch (...) {
        for (std::size_t i = 0; i < paused; ++i) threads_[i]->stream.resume_rings();
        throw;
      }
    }
  }

  // The features of a file that is finished: its own samples' times, the build-ids seen so far.
  // After a failed write only what is on the file counts: the data size is its durable end
  // even when the features no longer fit (a directory's header file keeps the features it got
  // after synthesis: rewriting them in place could leave its table and header bits at odds).
  void finish_file(io::perf::perf_file_writer& header, const output_cut& cut) {
    if (cut.failure && directory()) return;
    io::perf::feature_set set = features(cut.stats, {cut.compressed_in, cut.compressed_out});
    if (!options_.no_buildid)
      set.set(io::perf::feature_build_id, io::perf::build_id_payload(collect_build_ids(machine_)));
    if (auto maps = build_ids_.perf_maps(); !maps.empty())
      set.set(io::perf::feature_arec_perf_maps, io::perf::perf_maps_payload(maps));
    if (auto containers = build_ids_.containers(); !containers.empty())
      set.set(io::perf::feature_arec_container_ids, io::perf::container_ids_payload(containers));
    build_ids_.forget_gone_processes();  // this file holds theirs; the next ones need not
    try {
      header.write_epilogue(cut.data_end - data_offset_, set);
    } catch (const std::system_error&) {
      header.update_data_size(cut.data_end - data_offset_);  // fits in place
      if (!cut.failure) throw;
    }
  }

  // -D: sampling starts disabled and follows the windows, timed from the workload's start (or
  // the recording's, without one), saying so as perf does.
  async::task<void> follow_enable_windows() {
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
  static std::chrono::steady_clock::duration until(std::chrono::steady_clock::time_point start,
                                                   std::uint64_t ms) {
    return std::max<std::chrono::steady_clock::duration>(
        start + std::chrono::milliseconds(ms) - std::chrono::steady_clock::now(), {});
  }
  // --control's commands act on the events and the loop, from the loop's own thread.
  record::control_actions control_actions() {
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
  void list_events(char detail) {
    status_.erase();
    for (const io::perf::event_entry& entry : entries_) {
      std::string line = entry.name;
      if (detail == 'F' || detail == 'v')
        line += (entry.attr.freq ? ": sample_freq=" : ": sample_period=") +
                std::to_string(entry.attr.sample_period);
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
  // A line for the user while the status line may be drawn.
  void announce(const std::string& line) {
    status_.erase();
    say(options_, line);
  }

  // Every second: a single file's header learns its durable data size, and with -v the user
  // learns how many samples are safely on disk (what any crash would still keep).
  async::task<void> keep_header_current() {
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
  status_snapshot live_status() const {
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
  std::exception_ptr stop_streaming() {
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
  int reap_workload() {
    if (!child_) return 0;
    namespace signals = io::stop_signals;
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

  io::perf::feature_set features(const stream_stats& stats,
                                 const compression_totals& compression) const {
    io::perf::feature_set set =
        final_features(options_, entries_, stats, directory(), command_line_);
    if (options_.compression_level > 0)
      // perf's reader sizes its decompression buffer from mmap_len (the page is perf's habit).
      set.set(io::perf::feature_compressed,
              io::perf::compressed_payload(
                  static_cast<std::uint32_t>(options_.compression_level),
                  static_cast<std::uint32_t>(compression.ratio() + 0.5),
                  static_cast<std::uint32_t>(compression_stage::max_decoded_bytes(ring_bytes()) +
                                             page_size_)));
    if (clock_) {
      set.set(io::perf::feature_clockid, io::perf::clockid_payload(clock_->resolution_ns));
      set.set(io::perf::feature_clock_data,
              io::perf::clock_data_payload(static_cast<std::uint32_t>(*options_.attrs.clockid),
                                           clock_->wall_clock_ns, clock_->clock_ns));
    }
    return set;
  }

  // What the summary says was written: the bytes on disk of the last file (or directory), and
  // with rotation those of every file.
  written_output output_written() const {
    if (to_pipe()) {
      std::uint64_t bytes = threads_.front()->stream.durable_offset();
      return {.path = "-", .bytes = bytes, .all_bytes = bytes};
    }
    written_output written;
    written.files = switches_ + 1;
    if (output_removed_) {
      written.path = rotated_files_.newest();
      written.bytes = last_rotated_bytes_;
      written.files = switches_;
      written.all_bytes = rotated_bytes_;
      return written;
    }
    written.path = final_path_.empty() ? output_->path() : final_path_;
    written.bytes = output_->total_bytes();
    written.all_bytes = rotated_bytes_ + written.bytes;
    return written;
  }

  // --timestamp-filename: the finished file takes its time, as every rotated one did.
  void name_final_output() {
    final_path_ = rotated_files_.next_name();
    io::check_syscall(::rename(options_.output_path.c_str(), final_path_.c_str()), "rename",
                      options_.output_path + " to " + final_path_);
    if (!options_.transient_outputs) say(options_, "arec: dump " + final_path_);
    rotated_files_.keep(final_path_);
  }

  // The last output gets its features and final header; after a failed write (`failure`) it is
  // cut back to what is on disk first (docs/crash-safety.md).
  void finalize(std::exception_ptr failure) {
    if (to_pipe()) {  // everything is in the stream already
      print_summary(options_, output_written(), threads_, total_, compression_, ring_pages());
      return;
    }
    std::vector<output_cut> lasts;
    for (const auto& t : threads_) lasts.push_back(t->stream.last_output());
    output_cut last = merged(lasts);  // this output's own samples and ratio
    if (failed_) {  // a write to this output failed (not, say, a rename at a switch)
      last.failure = failure;
      cut_back(*output_, lasts);
    }
    if (directory()) last.data_end = header_end_;  // the header file's own records
    if (failed_ && switches_ > 0 && last.stats.samples == 0) {
      remove_empty_output();
    } else {
      build_ids_.stop();  // what it has not reached is read here
      finish_file(*header_, last);
      if (timestamped()) name_final_output();
    }
    written_output written = output_written();
    if (failure) written.failure = failure_note(failure, written.path, last.stats.samples);
    print_summary(options_, written, threads_, total_, compression_, ring_pages());
    output_finished(written.path);
  }

  // After a failed switch the new output may hold no sample at all (a full disk took nothing
  // but its prologue and tasks): it is removed, and the file before it is the last.
  void remove_empty_output() {
    io::remove_output(options_.output_path);
    output_removed_ = true;
    say(options_, "arec: " + options_.output_path +
                      " is removed: no sample reached it before the write failed");
  }

  // What the summary adds after a failed write: that the disk was full (or the error), what the
  // last file holds, and what did not reach it. Empty when no write failed.
  std::string failure_note(std::exception_ptr failure, const std::string& path,
                           std::uint64_t samples_in_last) const {
    std::string why;
    try {
      std::rethrow_exception(failure);
    } catch (const std::system_error& error) {
      int code = error.code().value();
      if (code == ENOSPC || code == EDQUOT)
        why = "the disk was full";
      else if (failed_)
        why = error.what();
    } catch (...) {
    }
    if (why.empty()) return "";
    std::string note = "arec: " + why + ": " + path;
    if (output_removed_)
      note += " is the last file";
    else
      note += " holds what was written before (" + std::to_string(samples_in_last) +
              " samples, cut at the last whole record)";
    std::uint64_t unwritten = 0;
    for (const auto& t : threads_) unwritten += t->stream.unwritten_snapshot_samples();
    if (unwritten > 0)
      return note + "; the newest " + std::to_string(unwritten) +
             " samples of the snapshot did not fit and are lost";
    return note + "; what was recorded after it is lost";
  }

  // The window of a finished output ends now and the next one's begins.
  void output_finished(const std::string& path) {
    if (!options_.on_output_finished) return;
    std::int64_t now = wall_clock_now_ns();
    options_.on_output_finished({path, window_start_ns_, now});
    window_start_ns_ = now;
  }

  const record_options& options_;
  std::span<const std::string> command_line_;
  std::size_t page_size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t ring_pages_ = options_.mmap_pages.value_or(default_data_pages);  // fit_ring_pages
  std::vector<int> cpus_;
  std::size_t online_cpu_count_ = 0;
  thread_layout layout_;
  std::optional<workload> child_;
  std::vector<pid_t> target_processes_;  // the processes -p names (a thread stands for its own)
  std::optional<event_set> events_;
  std::vector<io::perf::event_entry> entries_;
  bool to_pipe_ = false;
  std::optional<recording_output> output_;
  std::optional<io::perf::perf_file_writer> header_;
  std::optional<clock_reference> clock_;  // with -k: for CLOCKID and CLOCK_DATA
  std::uint64_t data_offset_ = 0;
  std::uint64_t header_end_ = 0;
  async::event_loop control_;
  std::optional<control_channel> commands_;  // --control; after control_: its wait goes first
  // Reads the build-id of each dso machine_ creates; outlives machine_ and the streaming threads.
  build_id_reader build_ids_{build_id_sources{}, build_id_cache_for(options_),
                             options_.buildid_all ? cache_scope::mapped : cache_scope::sampled,
                             [this](const std::string& line) { say(options_, line); }};
  // The tasks and dsos seen, shared by synthesis and every streaming thread: it outlives them.
  model::machine machine_;
  std::vector<std::unique_ptr<streaming_thread>> threads_;
  // On a terminal's stderr while recording (not with -q); redrawn from control_.
  status_line status_{STDERR_FILENO, !options_.quiet};
  bool failed_ = false;
  // --switch-output and --timestamp-filename.
  std::exception_ptr switch_failure_;
  unsigned switches_ = 0;
  std::uint64_t rotated_bytes_ = 0;     // what the finished files took
  std::uint64_t last_rotated_bytes_ = 0;  // what the newest of them took
  bool output_removed_ = false;           // remove_empty_output
  std::optional<output_meter> meter_;   // --switch-output=SIZE, --max-size
  kernel_sources kernel_;               // the kernel's text, found once for every file
  rotated_files rotated_files_{options_.output_path, options_.switch_max_files,
                               [this](const std::string& line) { say(options_, line); }};
  std::string final_path_;              // the final file's name once timestamped
  std::int64_t window_start_ns_ = 0;    // wall clock: the current output's window began
  stream_stats total_;
  compression_totals compression_;
};

}  // namespace

int run_session(const record_options& options, std::span<const std::string> command_line) {
  return recording(options, command_line).run();
}

}  // namespace arec::record
