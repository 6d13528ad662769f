// recording: one `arec` recording, phase by phase, behind run_session (session.hpp). Its
// members are implemented in four units, named at their declarations below; only those
// include this header.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "async/event_loop.hpp"
#include "async/task.hpp"
#include "io/unique_fd.hpp"
#include "model/machine.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "record/events/event_set.hpp"
#include "record/layout/stream_layout.hpp"
#include "record/offcpu/off_cpu_recorder.hpp"
#include "record/option_combinations.hpp"
#include "record/record_options.hpp"
#include "record/session/control_channel.hpp"
#include "record/session/messages.hpp"
#include "record/session/recording_output.hpp"
#include "record/session/rotated_files.hpp"
#include "record/session/status_line.hpp"
#include "record/session/streaming_thread.hpp"
#include "record/session/summary.hpp"
#include "record/session/workload.hpp"
#include "record/streaming/output_meter.hpp"
#include "record/streaming/stream_stats.hpp"
#include "record/streaming/streamer.hpp"
#include "record/synthesis/build_id_reader.hpp"
#include "record/synthesis/build_id_table.hpp"
#include "record/synthesis/jitdump_capture.hpp"
#include "record/synthesis/kernel_map.hpp"
#include "symbols/build_id_cache.hpp"

namespace arec::record {

// -k: the clock's resolution and one instant on it and on the wall clock, as perf takes them
// at the start of a recording, so that a reader can turn sample times into times of day.
struct clock_reference {
  std::uint64_t resolution_ns = 0;
  std::uint64_t wall_clock_ns = 0;
  std::uint64_t clock_ns = 0;
};

std::int64_t wall_clock_now_ns();
// perf's build-id cache, unless -N or -B turn it off (recording_setup.cpp).
bool caches_build_ids(const record_options& options);
std::unique_ptr<symbols::build_id_cache> build_id_cache_for(const record_options& options);

// Members are declared in the order they must be destroyed in reverse: the streaming threads
// stop before the events and files they use go away.
class recording {
 public:
  recording(const record_options& options, std::span<const std::string> command_line);
  int run();

 private:
  // 512 KiB per cpu, perf's default for root.
  static constexpr std::size_t default_data_pages = 128;
  // -m, else the default; with --off-cpu (as root) 2 MiB per cpu: a context-switch flood with
  // stacks fills 512 KiB within milliseconds (bench/compare offcpu-pipe lost 260,000 switches
  // of 2.5 s at 128 pages, 7,800 at 512).
  static std::size_t default_ring_pages(const record_options& options);

  bool has_targets() const { return names_targets(options_); }
  bool per_task() const { return records_per_task(options_); }
  // The workload is what is recorded (`arec -- cmd`), not only what bounds the recording
  // (`arec -a -- cmd`, `arec -p PID -- cmd`): then its events are enabled by its exec.
  bool workload_is_target() const { return !has_targets() && per_task() && child_; }
  bool directory() const { return options_.threads_spec.has_value(); }
  // --per-thread, where perf takes it: for tasks (a workload, -p, -t, -u), not with -a or -C.
  bool per_thread_rings() const { return options_.per_thread && per_task(); }
  // perf's pipe mode: -o -, or no -o while standard output is a pipe.
  bool to_pipe() const { return to_pipe_; }
  bool timestamped() const { return options_.timestamp_filename; }
  std::size_t ring_pages() const { return ring_pages_; }
  std::size_t ring_bytes() const { return ring_pages() * page_size_; }

  // session.cpp: the run, its control loop (signals, timers, --control, -D, the status line)
  // and the stop
  void record_only_drained_cpus();
  void wait_for_stop();
  async::task<void> switch_output_every_period();
  async::task<void> follow_enable_windows();
  static std::chrono::steady_clock::duration until(std::chrono::steady_clock::time_point start,
                                                   std::uint64_t ms);
  record::control_actions control_actions();
  void list_events(char detail);
  void announce(const std::string& line);
  async::task<void> keep_header_current();
  status_snapshot live_status() const;
  std::exception_ptr stop_streaming();
  int reap_workload();

  // recording_setup.cpp: the events, the rings, the first output and what already runs
  void open_events();
  void make_off_cpu_recorder();
  std::size_t trailer_time_from_end() const;
  static std::vector<pid_t> user_processes(const std::string& user);
  static std::vector<io::unique_fd> open_cgroups(std::span<const event_spec> specs);
  void create_output();
  streamer_config stream_config(std::size_t thread_index);
  bool caches_sampled_dsos() const;
  sample_position sample_fields() const;
  void warn_of_small_switch_size(std::uint64_t switch_size) const;
  void make_output_meter();
  void fit_ring_pages();
  static std::string ring_size_text(std::uint64_t bytes);
  void map_rings();
  void start_streaming();
  void synthesize_what_runs();
  void synthesize_into_header(bool switched);
  void make_recoverable();

  // output_rotation.cpp: --switch-output, --timestamp-filename and the --overwrite snapshots
  void switch_output();
  void rotate_output();
  std::pair<recording_output, perf_data::perf_file_writer> create_next_output(
      const std::string& rotated);
  void write_taken_snapshots();
  std::vector<output_cut> cut_every_stream();
  std::exception_ptr append_off_cpu_time(const recording_output& old_output,
                                         std::vector<output_cut>& cuts, output_cut& cut);
  static output_cut merged(const std::vector<output_cut>& cuts);
  static void cut_back(const recording_output& output, const std::vector<output_cut>& cuts);
  void take_snapshot();
  void pause_every_ring();
  void finish_file(perf_data::perf_file_writer& header, const output_cut& cut);
  // The pair of clocks now; zeros when perf_event_open refuses the reading.
  perf_data::clock_pair read_clocks() const;
  void tell_unread_files(bool last);
  void name_final_output();

  // recording_finish.cpp: the features, name and summary of the last output
  perf_data::feature_set features(const stream_stats& stats,
                                  const compression_totals& compression) const;
  written_output output_written() const;
  void finalize(std::exception_ptr failure);
  std::optional<symbols::debug_fetch_totals> fetch_debug_files();
  void remove_empty_output();
  std::string failure_note(std::exception_ptr failure, const std::string& path,
                           std::uint64_t samples_in_last) const;
  void output_finished(const std::string& path);
  std::optional<off_cpu_totals> off_cpu_totals_of_recording();

  const record_options& options_;
  std::span<const std::string> command_line_;
  std::size_t page_size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t ring_pages_ = default_ring_pages(options_);  // fit_ring_pages may lower it
  std::vector<int> cpus_;
  std::size_t online_cpu_count_ = 0;
  thread_layout layout_;
  std::optional<workload> child_;
  std::vector<pid_t> target_processes_;  // the processes -p names (a thread stands for its own)
  std::optional<event_set> events_;
  std::optional<off_cpu_recorder> off_cpu_;  // --off-cpu; shared by the streaming threads
  std::vector<perf_data::event_entry> entries_;
  bool to_pipe_ = false;
  std::optional<recording_output> output_;
  std::optional<perf_data::perf_file_writer> header_;
  std::optional<clock_reference> clock_;  // with -k: for CLOCKID and CLOCK_DATA
  std::uint64_t data_offset_ = 0;
  std::uint64_t header_end_ = 0;
  async::event_loop control_;
  std::optional<control_channel> commands_;  // --control; after control_: its wait goes first
  // The jitdumps of the recorded processes, opened on build_ids_'s thread: it outlives it.
  jitdump_capture jitdumps_{[this](const std::string& line) { say(options_, line); }};
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
  // The sampled files named in a warning as gone before they were read (a few; then a count).
  std::vector<std::string> unread_files_told_;
  // --switch-output and --timestamp-filename.
  std::exception_ptr switch_failure_;
  unsigned switches_ = 0;
  std::uint64_t rotated_bytes_ = 0;       // what the finished files took
  std::uint64_t last_rotated_bytes_ = 0;  // what the newest of them took
  bool output_removed_ = false;           // remove_empty_output
  std::optional<output_meter> meter_;     // --switch-output=SIZE, --max-size
  kernel_sources kernel_;                 // the kernel's text, found once for every file
  rotated_files rotated_files_{options_.output_path, options_.switch_max_files,
                               [this](const std::string& line) { say(options_, line); }};
  std::string final_path_;            // the final file's name once timestamped
  std::int64_t window_start_ns_ = 0;  // wall clock: the current output's window began
  // CLOCK_MONOTONIC and the recording's clock as the current output began (jitdump times).
  perf_data::clock_pair file_start_clocks_;
  stream_stats total_;
  compression_totals compression_;
};

}  // namespace arec::record
