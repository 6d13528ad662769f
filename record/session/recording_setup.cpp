// The recording set up: its events opened, their rings mapped and handed to the streaming
// threads, the first output created and what already runs synthesized into it.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <iterator>

#include "base/system_error.hpp"
#include "base/usage_error.hpp"
#include "host/cgroup_fs.hpp"
#include "host/cpu_list.hpp"
#include "host/users.hpp"
#include "io/append_writer.hpp"
#include "io/file_sink.hpp"
#include "io/output_path.hpp"
#include "perf_data/pipe_stream.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/events/perf_event.hpp"
#include "record/session/initial_state.hpp"
#include "record/session/recording.hpp"
#include "record/streaming/ring_buffer.hpp"
#include "record/streaming/stream_sink.hpp"
#include "record/streaming/streamer.hpp"
#include "record/synthesis/known_tasks.hpp"
#include "record/synthesis/target_tasks.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::record {
namespace {

std::uint64_t nanoseconds(const timespec& time) {
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(time.tv_nsec);
}

clock_reference read_clock_reference(int clockid) {
  timespec resolution{}, wall{}, clock{};
  std::string what = "clock " + std::to_string(clockid);
  base::check_syscall(::clock_getres(clockid, &resolution), "clock_getres", what);
  base::check_syscall(::clock_gettime(CLOCK_REALTIME, &wall), "clock_gettime", "CLOCK_REALTIME");
  base::check_syscall(::clock_gettime(clockid, &clock), "clock_gettime", what);
  return {nanoseconds(resolution), nanoseconds(wall), nanoseconds(clock)};
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
  base::check_syscall(::setrlimit(RLIMIT_NOFILE, &limit), "setrlimit", "RLIMIT_NOFILE");
}

std::vector<perf_data::event_entry> file_events(const event_set& events) {
  std::vector<perf_data::event_entry> entries;
  // The switch sampler's samples never reach a file, but the kernel's LOST and THROTTLE
  // records for its rings carry its ids: a reader must find them in the attrs.
  for (const opened_event& event : events.events())
    entries.push_back({event.attr, event.name, event.ids});
  return entries;
}

}  // namespace

std::int64_t wall_clock_now_ns() {
  timespec wall{};
  base::check_syscall(::clock_gettime(CLOCK_REALTIME, &wall), "clock_gettime", "CLOCK_REALTIME");
  return static_cast<std::int64_t>(nanoseconds(wall));
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

void recording::open_events() {
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
  // --off-cpu's switch flood fills a ring as fast: the same.
  if (records_dwarf(options_) || options_.attrs.off_cpu)
    sampling.wakeup_bytes = static_cast<std::uint32_t>(ring_bytes() / 4);
  events_.emplace(event_set::open(specs, sampling, target,
                                  [&](const std::string& line) { say(options_, line); }));
  if (options_.user && events_->ring_keys().empty())
    throw std::runtime_error("-u: every process of user " + *options_.user +
                             " ended before it could be recorded");
  make_off_cpu_recorder();
  entries_ = file_events(*events_);
  if (options_.attrs.clockid) clock_ = read_clock_reference(*options_.attrs.clockid);
}

// -u: what the user runs now (its children follow through inherit), arec itself left out.
std::vector<pid_t> recording::user_processes(const std::string& user) {
  uid_t uid = host::resolve_user(user);
  std::vector<pid_t> processes = processes_of_user(uid, ::getpid());
  if (processes.empty())
    throw std::runtime_error("-u: user " + user + " (uid " + std::to_string(uid) +
                             ") runs no process to record");
  return processes;
}

// -G: each event's cgroup opened (one fd per event, -1 for none), in perf's words on failure.
std::vector<io::unique_fd> recording::open_cgroups(std::span<const event_spec> specs) {
  std::vector<io::unique_fd> fds(specs.size());
  if (std::all_of(specs.begin(), specs.end(),
                  [](const event_spec& spec) { return spec.cgroup.empty(); }))
    return fds;
  std::optional<std::string> mount = host::perf_event_cgroup_mount();
  if (!mount)
    throw base::usage_error(
        "-G: no cgroup file system is mounted (cgroup2, or cgroup with perf_event)");
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].cgroup.empty()) continue;
    try {
      fds[i] = host::open_cgroup(*mount, specs[i].cgroup);
    } catch (const std::system_error& error) {
      throw base::usage_error("no access to cgroup " + *mount + "/" + specs[i].cgroup + ": " +
                              error.code().message());
    }
  }
  return fds;
}

void recording::create_output() {
  if (to_pipe()) {
    // What a file keeps in its header leads the stream instead; the features that are
    // only known at the end (SAMPLE_TIME, BUILD_ID) are left out, as perf does.
    std::vector<std::byte> head =
        perf_data::pipe_stream_head(entries_, features(stream_stats{}, compression_totals{}));
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

// --off-cpu: where the switch sampler's records hold what the tracker needs, and the id the
// off-CPU samples are written under.
void recording::make_off_cpu_recorder() {
  if (!options_.attrs.off_cpu) return;
  off_cpu_layout layout;
  for (const opened_event& event : events_->events()) {
    if (event.role == event_role::switch_sampler) {
      layout.sampler_sample_type = event.attr.sample_type;
      layout.sampler_regs_user = event.attr.sample_regs_user;
      layout.sampler_ids.insert(layout.sampler_ids.end(), event.ids.begin(), event.ids.end());
    } else if (event.role == event_role::off_cpu_time && !event.ids.empty()) {
      layout.output_sample_type = event.attr.sample_type;
      layout.output_id = event.ids.front();
    }
  }
  std::sort(layout.sampler_ids.begin(), layout.sampler_ids.end());
  layout.trailer_time_from_end = trailer_time_from_end();
  layout.threshold_ns = options_.off_cpu_thresh_ms * 1'000'000;
  off_cpu_.emplace(std::move(layout), layout_.threads.size(), &machine_);
}

// Where a side-band record keeps its TIME: this many bytes before its end (sample_id_all).
std::size_t recording::trailer_time_from_end() const {
  return perf_data::trailer_bytes_after_time(shared_sample_type(options_.attrs)) + 8;
}

streamer_config recording::stream_config(std::size_t thread_index) {
  streamer_config config;
  config.model = &machine_;
  config.write_rounds = !directory();  // perf 6.1 breaks on FINISHED_ROUND in data.N
  config.compression_level = options_.compression_level;
  // As perf does, a flush threshold above a quarter of the ring could let the ring fill up.
  config.mmap_flush = options_.attrs.no_buffering
                          ? 1
                          : std::min<std::uint64_t>(options_.mmap_flush, ring_bytes() / 4);
  config.sample_time_offset = perf_data::sample_time_offset(shared_sample_type(options_.attrs));
  config.meter = meter_ ? &*meter_ : nullptr;
  config.overwrite = options_.attrs.overwrite;
  config.trailer_time_from_end = trailer_time_from_end();
  config.samples = sample_fields();  // for the cache, and for JIT code's perf maps
  if (off_cpu_) {
    config.off_cpu = &*off_cpu_;
    config.thread_index = thread_index;
    config.fixups.dropped_sample_ids = off_cpu_->sampler_ids();
    config.fixups.sample_id_offset = off_cpu_->sampler_id_offset();
    config.fixups.drop_switches = !options_.attrs.switch_events;  // unless asked for
  }
  config.fixups.clear_leaked_build_id_flags =
      std::none_of(entries_.begin(), entries_.end(),
                   [](const perf_data::event_entry& event) { return event.attr.build_id; });
  return config;
}

// The streams mark the dsos samples fall in, for the cache, unless every dso goes in anyway.
bool recording::caches_sampled_dsos() const {
  return caches_build_ids(options_) && !options_.buildid_all;
}

// Where the attrs' shared sample_type puts a sample's address, thread and time.
sample_position recording::sample_fields() const {
  std::uint64_t type = shared_sample_type(options_.attrs);
  return {perf_data::sample_ip_offset(type), perf_data::sample_tid_offset(type),
          perf_data::sample_time_offset(type)};
}

// As perf warns: a ring is drained when it wakes the drain (or at a round), so each file
// overshoots SIZE by up to that much per ring.
void recording::warn_of_small_switch_size(std::uint64_t switch_size) const {
  std::uint64_t wakeup = records_dwarf(options_) ? ring_bytes() / 4 : ring_bytes() / 2;
  if (!switch_size || switch_size >= wakeup) return;
  const char* units[] = {"B", "K", "M", "G"};
  std::size_t unit = 0;
  for (; wakeup >= 1024 && unit + 1 < std::size(units); ++unit) wakeup /= 1024;
  say(options_, "arec: warning: switch-output data size lower than wakeup kernel buffer size (" +
                    std::to_string(wakeup) + units[unit] + ") expect bigger perf.data sizes");
}

// --switch-output=SIZE and --max-size count the bytes of every streaming thread together.
void recording::make_output_meter() {
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

// -m larger than the kernel maps: perf 6.1 then maps no data pages at all (its mask
// overflows an int at 2^20 pages) and records no sample, saying nothing. arec takes the
// largest ring the kernel maps, found on a dummy event of its own, and says so.
std::size_t recording::default_ring_pages(const record_options& options) {
  if (options.mmap_pages) return *options.mmap_pages;
  // Root only: another user's rings count against kernel.perf_event_mlock_kb.
  if (options.attrs.off_cpu && ::geteuid() == 0) return 4 * default_data_pages;
  return default_data_pages;
}

void recording::fit_ring_pages() {
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
                    " (" + std::strerror(ENOMEM) + "); using " + std::to_string(fits) + " pages (" +
                    ring_size_text(fits * page_size_) + "), the largest it maps");
  ring_pages_ = fits;
}

// A ring's size, a power of two: "512K", "1G", as perf prints -m's.
std::string recording::ring_size_text(std::uint64_t bytes) {
  constexpr const char* units[] = {"B", "K", "M", "G", "T"};
  std::size_t unit = 0;
  for (; bytes >= 1024 && bytes % 1024 == 0 && unit + 1 < std::size(units); ++unit) bytes /= 1024;
  return std::to_string(bytes) + units[unit];
}

void recording::map_rings() {
  make_output_meter();
  for (std::size_t i = 0; i < layout_.threads.size(); ++i) {
    auto stop_recording = [this] {
      async::post(control_.get_executor(), [this] { control_.stop(); });
    };
    threads_.push_back(std::make_unique<streaming_thread>(layout_.threads[i], i, stream_config(i),
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
void recording::start_streaming() {
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
void recording::synthesize_what_runs() {
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
void recording::synthesize_into_header(bool switched) {
  std::uint64_t offset = data_offset_;
  if (switched) {
    std::vector<std::byte> tasks = encode_known_tasks(
        machine_, perf_data::sample_id_trailer_size(shared_sample_type(options_.attrs)));
    io::write_all_at(output_->header_fd(), tasks.data(), tasks.size(), offset,
                     output_->header_path());
    offset += tasks.size();
  }
  auto sink = std::make_unique<io::file_sink>(output_->header_fd(), offset, output_->header_path());
  synthesize_initial_state(options_, target_processes_, child_, per_task(), *sink, machine_,
                           online_cpu_count_, kernel_, switched);
  header_end_ = sink->flush();
}

// From here on, a crash leaves files perf reads. A directory's header file is complete once
// synthesis is written (its features are rewritten at the end with the final counts); a
// single file's data size is kept current while recording (keep_header_current).
void recording::make_recoverable() {
  if (to_pipe()) return;  // a pipe stream is readable as far as it got
  if (directory())
    header_->write_epilogue(header_end_ - data_offset_, features({}, {}));
  else  // the synthesized records are on disk: count them now, not a second from now
    header_->update_data_size(threads_.front()->stream.durable_offset() - data_offset_);
}

}  // namespace arec::record
