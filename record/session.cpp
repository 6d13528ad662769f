#include "record/session.hpp"

#include <sys/resource.h>
#include <sys/stat.h>

#include <array>
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <cstdio>
#include <optional>

#include "async/executor_thread.hpp"
#include "async/readiness.hpp"
#include "io/append_writer.hpp"
#include "io/cpu_list.hpp"
#include "io/file_sink.hpp"
#include "io/host_features.hpp"
#include "io/output_path.hpp"
#include "io/perf_file_writer.hpp"
#include "io/small_file.hpp"
#include "io/system_error.hpp"
#include "io/tracefs.hpp"
#include "io/tracing_data.hpp"
#include "record/event_set.hpp"
#include "record/kernel_map.hpp"
#include "record/streamer.hpp"
#include "record/synthesizer.hpp"
#include "record/target_tasks.hpp"
#include "record/workload.hpp"

namespace arec::record {
namespace {

constexpr std::size_t default_data_pages = 128;  // 512 KiB per cpu, perf's default for root

void say(const record_options& options, const std::string& line) {
  if (!options.quiet) std::fprintf(stderr, "%s\n", line.c_str());
}

std::vector<int> online_cpus() {
  std::array<char, 4096> buffer;
  auto text = io::read_small_file(AT_FDCWD, "/sys/devices/system/cpu/online", buffer);
  if (!text) io::throw_errno("read", "/sys/devices/system/cpu/online");
  return io::parse_cpu_list(*text);
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

std::vector<int> monitored_cpus(const record_options& options) {
  std::vector<int> online = online_cpus();
  if (options.cpus.empty()) return online;
  for (int cpu : options.cpus)
    if (!std::binary_search(online.begin(), online.end(), cpu))
      throw usage_error("-C: cpu " + std::to_string(cpu) + " is not online (online: " +
                        io::format_cpu_list(online) + ")");
  return options.cpus;
}

std::vector<event_spec> requested_events(const record_options& options) {
  if (!options.events.empty()) return options.events;
  return {parse_event_spec("cycles")};
}

// Each fd counts against RLIMIT_NOFILE: raise the soft limit to the hard one when needed.
void ensure_fd_limit(std::size_t needed) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed + 64) return;
  if (limit.rlim_max < needed + 64)
    throw std::runtime_error("this recording needs about " + std::to_string(needed + 64) +
                             " file descriptors but the hard limit (ulimit -Hn) is " +
                             std::to_string(limit.rlim_max));
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

struct output_files {
  std::string header_path;
  io::unique_fd header;
};

output_files create_output(const record_options& options) {
  io::keep_previous_output(options.output_path);
  output_files files;
  files.header_path = options.output_path;
  files.header = io::create_output_file(files.header_path);
  return files;
}

std::vector<io::perf::event_entry> file_events(const event_set& events) {
  std::vector<io::perf::event_entry> entries;
  for (const opened_event& event : events.events())
    entries.push_back({event.attr, event.name, event.ids});
  return entries;
}

io::perf::feature_set final_features(const record_options& options, const event_set& events,
                                     std::span<const io::perf::event_entry> entries,
                                     const stream_stats& stats,
                                     std::span<const std::string> command_line) {
  io::perf::feature_set features;
  io::perf::add_host_features(features);
  features.set(io::perf::feature_event_desc, io::perf::event_desc_payload(entries));
  features.set(io::perf::feature_cmdline, io::perf::cmdline_payload(command_line));
  if (stats.samples > 0)
    features.set(io::perf::feature_sample_time,
                 io::perf::sample_time_payload(stats.first_sample_time, stats.last_sample_time));
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const event_spec& spec : options.events)
    if (spec.tracepoint) tracepoints.push_back(*spec.tracepoint);
  if (!tracepoints.empty()) {
    auto root = io::tracefs::find_root();
    if (!root) throw std::runtime_error("tracefs is not mounted: cannot describe tracepoints");
    features.set(io::perf::feature_tracing_data,
                 io::perf::tracing_data_payload(*root, tracepoints));
  }
  (void)events;
  return features;
}

async::task<void> stop_at_exit(async::readiness& exit, asio::io_context& control) {
  bool exited = co_await exit.readable();
  if (exited) control.stop();
  co_return;
}

// Waits, on the control thread, for whatever ends the recording.
class stop_conditions {
 public:
  stop_conditions(asio::io_context& control, const record_options& options, workload* child)
      : signals_(control, SIGINT, SIGTERM, SIGHUP), timer_(control) {
    signals_.async_wait([this, &control](std::error_code error, int signal) {
      if (!error) stopped_by_signal_ = signal;
      control.stop();
    });
    if (options.duration_s) {
      timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(*options.duration_s)));
      timer_.async_wait([&control](std::error_code error) {
        if (!error) control.stop();
      });
    }
    if (child) {
      child_exit_.emplace(control.get_executor(), child->exit_fd());
      asio::co_spawn(control, stop_at_exit(*child_exit_, control), asio::detached);
    }
  }
  int stopped_by_signal() const { return stopped_by_signal_; }

 private:
  asio::signal_set signals_;
  asio::steady_timer timer_;
  std::optional<async::readiness> child_exit_;
  int stopped_by_signal_ = 0;
};

}  // namespace

int run_session(const record_options& options, std::span<const std::string> command_line) {
  std::vector<int> cpus = monitored_cpus(options);
  std::vector<event_spec> specs = requested_events(options);
  bool per_task = !options.pids.empty() || (!options.workload.empty() && !options.system_wide &&
                                            options.cpus.empty());
  std::optional<workload> child;
  if (!options.workload.empty()) child.emplace(workload::prepare(options.workload));

  event_target target;
  target.cpus = cpus;
  if (!options.pids.empty())
    target.tasks = threads_of_processes(options.pids);
  else if (per_task)
    target.tasks = {child->pid()};
  ensure_fd_limit(target.cpus.size() * target.tasks.size() * (specs.size() + 1) + 16);

  sampling_config sampling = make_sampling_config(options, per_task && child.has_value());
  event_set events = event_set::open(specs, sampling, target,
                                     [&](const std::string& line) { say(options, line); });
  std::vector<io::perf::event_entry> entries = file_events(events);

  output_files output = create_output(options);
  io::perf::perf_file_writer header(output.header.get());
  std::uint64_t data_offset = header.write_prologue(entries);

  // One streaming thread serves every cpu here; --threads lays out more.
  async::executor_thread thread({}, "arec-stream");
  streamer_config stream_config;
  stream_config.mmap_flush = options.mmap_flush;
  std::size_t pages = options.mmap_pages.value_or(default_data_pages);

  auto sink = std::make_unique<io::file_sink>(output.header.get(), data_offset, output.header_path);
  streamer stream(thread, stream_config);
  for (int cpu : cpus) stream.add_ring(cpu, events.ring_owner(cpu), pages);
  events.redirect_into_rings();

  synthesis_config synthesis;
  synthesis.sample_id_size = sample_id_trailer_size;
  synthesize_kernel_maps(*sink, synthesis);
  if (!options.pids.empty())
    synthesize_processes(*sink, options.pids, synthesis);
  else if (!per_task)
    synthesize_all_tasks(*sink, synthesis);
  else
    synthesize_workload_comm(*sink, child->pid(), options.workload.front());
  write_finished_init(*sink);
  std::uint64_t stream_offset = sink->flush();
  sink.reset();

  auto [writer, choice] = io::make_append_writer(output.header.get(), output.header_path,
                                                 stream_offset);
  if (!choice.fallback_reason.empty())
    say(options, "arec: io_uring is unavailable (" + choice.fallback_reason +
                     "); writing with plain writes");
  stream.start(std::move(writer));
  if (!per_task || !child) events.enable_sampling();

  asio::io_context control(1);
  stop_conditions stop(control, options, child ? &*child : nullptr);
  if (child) child->start();
  control.run();

  events.disable();
  stream.stop();
  thread.join();
  int status = 0;
  if (child) {
    if (stop.stopped_by_signal() || options.duration_s) child->terminate();
    status = child->wait();
  }

  stream_stats stats = stream.stats();
  std::uint64_t data_size = stream.file_offset() - data_offset;
  header.write_epilogue(data_size, final_features(options, events, entries, stats, command_line));
  struct stat written {};
  io::check_syscall(::fstat(output.header.get(), &written), "stat", output.header_path);
  if (!options.quiet)
    std::fprintf(stderr, "arec: %llu samples, %llu lost, %llu bytes written to %s\n",
                 static_cast<unsigned long long>(stats.samples),
                 static_cast<unsigned long long>(stats.lost),
                 static_cast<unsigned long long>(written.st_size), options.output_path.c_str());
  return status;
}

}  // namespace arec::record
