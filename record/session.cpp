#include "record/session.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <asio/io_context.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "async/executor_thread.hpp"
#include "io/append_writer.hpp"
#include "io/cpu_list.hpp"
#include "io/file_sink.hpp"
#include "io/host_features.hpp"
#include "io/perf_file_writer.hpp"
#include "io/small_file.hpp"
#include "io/system_error.hpp"
#include "io/tracefs.hpp"
#include "io/tracing_data.hpp"
#include "model/machine.hpp"
#include "record/build_id_table.hpp"
#include "record/event_set.hpp"
#include "record/kernel_map.hpp"
#include "record/model_feed.hpp"
#include "record/recording_output.hpp"
#include "record/stop_conditions.hpp"
#include "record/stream_layout.hpp"
#include "record/streamer.hpp"
#include "record/synthesizer.hpp"
#include "record/target_tasks.hpp"
#include "record/topology.hpp"
#include "record/workload.hpp"

namespace arec::record {
namespace {

constexpr std::size_t default_data_pages = 128;  // 512 KiB per cpu, perf's default for root
// Default --num-thread-synthesize: the online cpus, but /proc scanning stops scaling early.
constexpr std::size_t max_synthesis_threads = 8;

void say(const record_options& options, const std::string& line) {
  if (!options.quiet) std::fprintf(stderr, "%s\n", line.c_str());
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
      throw usage_error("-C: cpu " + std::to_string(cpu) + " is not online (online: " +
                        io::format_cpu_list(online) + ")");
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

// A streaming thread and its work. The thread is stopped before the streamer it runs dies.
struct streaming_thread {
  streaming_thread(const stream_thread_mask& mask, std::size_t index, const streamer_config& config)
      : thread(mask.affinity, "arec-stream-" + std::to_string(index)), stream(thread, config) {}
  ~streaming_thread() { thread.halt(); }
  async::executor_thread thread;
  streamer stream;
};

std::vector<io::perf::event_entry> file_events(const event_set& events) {
  std::vector<io::perf::event_entry> entries;
  for (const opened_event& event : events.events())
    entries.push_back({event.attr, event.name, event.ids});
  return entries;
}

io::perf::feature_set final_features(const record_options& options,
                                     std::span<const io::perf::event_entry> entries,
                                     const stream_stats& stats, bool directory,
                                     std::span<const std::string> command_line) {
  io::perf::feature_set features;
  io::perf::add_host_features(features);
  features.set(io::perf::feature_event_desc, io::perf::event_desc_payload(entries));
  features.set(io::perf::feature_cmdline, io::perf::cmdline_payload(command_line));
  if (stats.samples > 0)
    features.set(io::perf::feature_sample_time,
                 io::perf::sample_time_payload(stats.first_sample_time, stats.last_sample_time));
  if (directory) features.set(io::perf::feature_dir_format, io::perf::dir_format_payload());
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const event_spec& spec : options.events)
    if (spec.tracepoint) tracepoints.push_back(*spec.tracepoint);
  if (!tracepoints.empty()) {
    auto root = io::tracefs::find_root();
    if (!root) throw std::runtime_error("tracefs is not mounted: cannot describe tracepoints");
    features.set(io::perf::feature_tracing_data,
                 io::perf::tracing_data_payload(*root, tracepoints));
  }
  return features;
}

// The workload is known by its command name until its exec brings the real COMM record.
void synthesize_workload_comm(io::record_sink& sink, pid_t pid, const std::string& command) {
  record_buffer buffer;
  std::string_view name = command;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  auto pid_u32 = static_cast<std::uint32_t>(pid);
  sink.write(encode_comm(buffer, pid_u32, pid_u32, name.substr(0, 15), sample_id_trailer_size));
}

// Marks the end of the synthesized initial state, as perf does.
void write_finished_init(io::record_sink& sink) {
  constexpr io::perf::record_header finished_init{io::perf::record_finished_init, 0, 8};
  sink.write(std::as_bytes(std::span{&finished_init, 1}));
}

// What runs already: written before streaming starts, so it precedes every sample needing it.
// Every synthesized record also goes into `machine`, for the BUILD_ID feature at the end.
std::uint64_t synthesize(const record_options& options, const std::optional<workload>& child,
                         bool per_task, int fd, std::uint64_t offset, const std::string& path,
                         model::machine& machine, std::size_t online_cpus) {
  auto sink = std::make_unique<io::file_sink>(fd, offset, path);
  synthesis_config synthesis;
  synthesis.sample_id_size = sample_id_trailer_size;
  synthesis.model = &machine;
  synthesis.threads = options.synthesize_threads.value_or(
      static_cast<unsigned>(std::clamp<std::size_t>(online_cpus, 1, max_synthesis_threads)));
  model_feed_sink kernel_sink{machine, *sink};
  synthesize_kernel_maps(kernel_sink, synthesis);
  if (!options.pids.empty())
    synthesize_processes(*sink, options.pids, synthesis);
  else if (per_task)
    synthesize_workload_comm(*sink, child->pid(), options.workload.front());
  else
    synthesize_all_tasks(*sink, synthesis);
  write_finished_init(*sink);
  return sink->flush();
}

struct compression_totals {
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double ratio() const {
    return bytes_out ? static_cast<double>(bytes_in) / static_cast<double>(bytes_out) : 0;
  }
};

void print_summary(const record_options& options, const recording_output& output,
                   const std::vector<std::unique_ptr<streaming_thread>>& threads,
                   const stream_stats& total, const compression_totals& compression) {
  if (options.quiet) return;
  if (options.threads_spec || options.verbose) {
    for (std::size_t i = 0; i < threads.size(); ++i) {
      const streaming_thread& t = *threads[i];
      stream_stats stats = t.stream.stats();
      std::fprintf(stderr,
                   "arec: thread %zu: cpus=%s affinity=%s ran_on=%s samples=%llu lost=%llu "
                   "bytes=%llu cpu_time=%.3fs\n",
                   i, io::format_cpu_list(t.stream.cpus()).c_str(),
                   io::format_cpu_list(t.thread.affinity()).c_str(),
                   io::format_cpu_list(t.stream.ran_on()).c_str(),
                   static_cast<unsigned long long>(stats.samples),
                   static_cast<unsigned long long>(stats.lost),
                   static_cast<unsigned long long>(stats.bytes_out), t.thread.cpu_seconds());
    }
  }
  std::fprintf(stderr, "arec: %llu samples, %llu lost, %llu bytes written to %s\n",
               static_cast<unsigned long long>(total.samples),
               static_cast<unsigned long long>(total.lost),
               static_cast<unsigned long long>(output.total_bytes()), output.path().c_str());
  if (compression.bytes_in > 0)
    std::fprintf(stderr, "arec: compressed %llu bytes to %llu (ratio %.1f)\n",
                 static_cast<unsigned long long>(compression.bytes_in),
                 static_cast<unsigned long long>(compression.bytes_out), compression.ratio());
}

}  // namespace

int run_session(const record_options& options, std::span<const std::string> command_line) {
  std::vector<int> online = online_cpus();
  std::vector<int> cpus = monitored_cpus(options, online);
  thread_layout layout = plan_stream_threads(options, cpus, online);
  if (options.verbose)
    for (const std::string& note : layout.dropped) say(options, "arec: " + note);
  if (options.dry_run) {
    std::fputs(format_thread_layout(layout).c_str(), stdout);
    return 0;
  }
  std::vector<event_spec> specs = options.events;
  if (specs.empty()) specs.push_back(parse_event_spec("cycles"));
  bool per_task = !options.pids.empty() ||
                  (!options.workload.empty() && !options.system_wide && options.cpus.empty());

  std::optional<workload> child;
  if (!options.workload.empty()) child.emplace(workload::prepare(options.workload));
  event_target target;
  target.cpus = cpus;
  if (!options.pids.empty())
    target.tasks = threads_of_processes(options.pids);
  else if (per_task)
    target.tasks = {child->pid()};
  // Per cpu and task one fd per event (the tracking event included); per streaming thread a
  // data file, an io_uring and its eventfd.
  ensure_fd_limit(cpus.size() * target.tasks.size() * (specs.size() + 1) +
                  3 * layout.threads.size() + 64);

  sampling_config sampling = make_sampling_config(options, per_task && child.has_value());
  event_set events = event_set::open(specs, sampling, target,
                                     [&](const std::string& line) { say(options, line); });
  std::vector<io::perf::event_entry> entries = file_events(events);

  bool directory = options.threads_spec.has_value();
  recording_output output =
      recording_output::create(options.output_path, directory, layout.threads.size());
  io::perf::perf_file_writer header(output.header_fd(), output.header_path());
  std::uint64_t data_offset = header.write_prologue(entries);

  streamer_config stream_config;
  stream_config.write_rounds = !directory;  // perf 6.1 breaks on FINISHED_ROUND in data.N
  stream_config.compression_level = options.compression_level;
  // The tasks and dsos seen, shared by synthesis and every streaming thread (it must outlive them).
  model::machine machine;
  stream_config.model = &machine;
  std::size_t pages = options.mmap_pages.value_or(default_data_pages);
  std::size_t page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  // As perf does, a flush threshold above a quarter of the ring could let the ring fill up.
  stream_config.mmap_flush = std::min<std::uint64_t>(options.mmap_flush, pages * page_size / 4);
  std::vector<std::unique_ptr<streaming_thread>> threads;
  for (std::size_t i = 0; i < layout.threads.size(); ++i) {
    threads.push_back(std::make_unique<streaming_thread>(layout.threads[i], i, stream_config));
    for (int cpu : layout.threads[i].cpus)
      threads.back()->stream.add_ring(cpu, events.ring_owner(cpu), pages);
  }
  events.redirect_into_rings();

  std::uint64_t header_end = synthesize(options, child, per_task, output.header_fd(), data_offset,
                                        output.header_path(), machine, online.size());
  bool said_fallback = false;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    auto [writer, choice] = io::make_append_writer(output.stream_fd(i), output.stream_path(i),
                                                   directory ? 0 : header_end);
    if (!choice.fallback_reason.empty() && !said_fallback) {
      said_fallback = true;
      say(options, "arec: io_uring is unavailable (" + choice.fallback_reason +
                       "); writing with plain writes");
    }
    threads[i]->stream.start(std::move(writer));
  }
  if (!(per_task && child)) events.enable_sampling();

  std::vector<io::unique_fd> target_exits = open_pidfds(options.pids);
  std::vector<int> exit_fds;
  if (child) exit_fds.push_back(child->exit_fd());
  for (const io::unique_fd& fd : target_exits) exit_fds.push_back(fd.get());
  asio::io_context control(1);
  stop_conditions stop(control, options.duration_s, exit_fds);
  if (child) child->start();
  control.run();

  events.disable();
  for (auto& t : threads) t->stream.stop();
  for (auto& t : threads) t->thread.join();
  int status = 0;
  if (child) {
    if (stop.stopping_signal() || options.duration_s) child->terminate();
    status = child->wait();
  }

  stream_stats total;
  compression_totals compression;
  for (auto& t : threads) {
    total.merge(t->stream.stats());
    auto [in, out] = t->stream.compression_totals();
    compression.bytes_in += in;
    compression.bytes_out += out;
  }
  std::uint64_t data_size = directory ? header_end - data_offset
                                      : threads.front()->stream.file_offset() - data_offset;
  io::perf::feature_set features =
      final_features(options, entries, total, directory, command_line);
  if (options.compression_level > 0)
    // perf's reader sizes its decompression buffer from mmap_len: one ring's worth at most.
    features.set(io::perf::feature_compressed,
                 io::perf::compressed_payload(
                     static_cast<std::uint32_t>(options.compression_level),
                     static_cast<std::uint32_t>(compression.ratio() + 0.5),
                     static_cast<std::uint32_t>((pages + 1) * page_size)));
  features.set(io::perf::feature_build_id,
               io::perf::build_id_payload(collect_build_ids(machine)));
  header.write_epilogue(data_size, features);
  print_summary(options, output, threads, total, compression);
  return status;
}

}  // namespace arec::record
