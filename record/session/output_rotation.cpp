// The recording's outputs switched (--switch-output, --timestamp-filename): the file renamed
// PATH.<time> and finished while the streams go on into a fresh PATH; and the --overwrite
// snapshots that a switch or the stop writes.
#include <algorithm>
#include <cstdio>
#include <future>

#include "base/system_error.hpp"
#include "host/clock_pair.hpp"
#include "host/host_features.hpp"
#include "io/append_writer.hpp"
#include "io/output_path.hpp"
#include "perf_data/container_ids_feature.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/session/flight_recorder.hpp"
#include "record/session/initial_state.hpp"
#include "record/session/recording.hpp"
#include "record/streaming/stream_sink.hpp"
#include "record/streaming/streamer.hpp"
#include "record/synthesis/known_tasks.hpp"

namespace arec::record {

// --switch-output: the file is renamed PATH.<time> and finished, while the streaming thread
// goes on into a fresh PATH. Runs on the control thread, as does everything else that
// touches the header.
void recording::switch_output() {
  if (switch_failure_ || failed_) return;
  try {
    rotate_output();
  } catch (...) {
    // The recording ends; what is on disk stays readable (docs/crash-safety.md).
    switch_failure_ = std::current_exception();
    control_.stop();
  }
}

void recording::rotate_output() {
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
  io::rename_output(options_.output_path, rotated);
  auto [next, next_header] = create_next_output(rotated);
  recording_output old_output = std::exchange(*output_, std::move(next));
  perf_data::perf_file_writer old_header = std::exchange(*header_, std::move(next_header));
  std::uint64_t old_header_end = header_end_;
  std::vector<output_cut> cuts = cut_every_stream();
  output_cut cut = merged(cuts);
  if (directory()) cut.data_end = old_header_end;  // the header file's own records
  if (cut.failure) cut_back(old_output, cuts);
  std::exception_ptr failure = cut.failure;
  if (!failure) failure = append_off_cpu_time(old_output, cuts, cut);
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

// --off-cpu: the old file gets the off-CPU time that ended in it (the blocks not yet written
// and the sums of short ones), after its last record; its data end moves past them. A failed
// write leaves the end where it was (the file stays whole) and is the switch's failure.
std::exception_ptr recording::append_off_cpu_time(const recording_output& old_output,
                                                  std::vector<output_cut>& cuts, output_cut& cut) {
  if (!off_cpu_) return nullptr;
  std::vector<std::byte> samples;
  off_cpu_->cut(samples);
  if (samples.empty()) return nullptr;
  try {
    io::write_all_at(old_output.stream_fd(0), samples.data(), samples.size(), cuts[0].data_end,
                     old_output.stream_path(0));
  } catch (const std::system_error&) {
    return std::current_exception();
  }
  cuts[0].data_end += samples.size();
  if (!directory()) cut.data_end = cuts[0].data_end;  // the file's end, as merged() takes it
  return nullptr;
}

// The output a switch goes on into, with its prologue, named PATH. When that fails (a full
// disk may refuse even the prologue) the current output is given its name back and stays
// current: nothing was cut yet.
std::pair<recording_output, perf_data::perf_file_writer> recording::create_next_output(
    const std::string& rotated) {
  std::optional<recording_output> next;
  try {
    next.emplace(recording_output::create(options_.output_path, directory(), threads_.size()));
    perf_data::perf_file_writer header(next->header_fd(), next->header_path());
    header.write_prologue(entries_);  // same events: the same data offset
    next->publish();
    return {std::move(*next), std::move(header)};
  } catch (...) {
    if (next && directory()) io::remove_output(options_.output_path);
    io::rename_output(rotated, options_.output_path);
    throw;
  }
}

// --overwrite --switch-output: the snapshot each thread took goes into its current file now.
void recording::write_taken_snapshots() {
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
std::vector<output_cut> recording::cut_every_stream() {
  std::size_t trailer = perf_data::sample_id_trailer_size(shared_sample_type(options_.attrs));
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

output_cut recording::merged(const std::vector<output_cut>& cuts) {
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
void recording::cut_back(const recording_output& output, const std::vector<output_cut>& cuts) {
  for (std::size_t i = 0; i < cuts.size(); ++i)
    base::check_syscall(::ftruncate(output.stream_fd(i), static_cast<off_t>(cuts[i].data_end)),
                        "ftruncate", output.stream_path(i));
}

// --overwrite: the rings are copied at once (the moments before the request, not arec's
// own work after it), then what runs is read again into the file the snapshot goes to, as
// perf's --tail-synthesize (which --overwrite implies) does: the records that described it
// may have been overwritten. Those records have time 0, which perf applies as it reads them,
// before the snapshot's samples, which come after them.
void recording::take_snapshot() {
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
void recording::pause_every_ring() {
  for (std::size_t paused = 0; paused < threads_.size(); ++paused) {
    try {
      threads_[paused]->stream.pause_rings();
    } catch (...) {
      for (std::size_t i = 0; i < paused; ++i) threads_[i]->stream.resume_rings();
      throw;
    }
  }
}

perf_data::clock_pair recording::read_clocks() const {
  return host::read_clock_pair(options_.attrs.clockid).value_or(perf_data::clock_pair{});
}

// The features of a file that is finished: its own samples' times, the build-ids seen so far.
// After a failed write only what is on the file counts: the data size is its durable end
// even when the features no longer fit (a directory's header file keeps the features it got
// after synthesis: rewriting them in place could leave its table and header bits at odds).
void recording::finish_file(perf_data::perf_file_writer& header, const output_cut& cut) {
  if (cut.failure && directory()) return;
  perf_data::feature_set set = features(cut.stats, {cut.compressed_in, cut.compressed_out});
  if (!options_.no_buildid)
    set.set(perf_data::feature_build_id, perf_data::build_id_payload(collect_build_ids(machine_)));
  if (auto maps = build_ids_.perf_maps(); !maps.empty())
    set.set(perf_data::feature_arec_perf_maps, perf_data::perf_maps_payload(maps));
  // Read for every file, as the start of the next one, whether this one holds a dump or not.
  perf_data::clock_pair file_end = read_clocks();
  if (auto dumps = jitdumps_.dumps(); !dumps.empty())
    set.set(perf_data::feature_arec_jitdumps,
            perf_data::jitdumps_payload({file_start_clocks_, file_end}, dumps));
  file_start_clocks_ = file_end;
  if (auto containers = build_ids_.containers(); !containers.empty())
    set.set(perf_data::feature_arec_container_ids, perf_data::container_ids_payload(containers));
  build_ids_.forget_gone_processes();  // this file holds theirs; the next ones need not
  jitdumps_.forget_gone_processes();
  tell_unread_files(&header == &*header_);  // the last file is the one header_ still holds
  try {
    header.write_epilogue(cut.data_end - data_offset_, set);
  } catch (const std::system_error&) {
    header.update_data_size(cut.data_end - data_offset_);  // fits in place
    if (!cut.failure) throw;
  }
}

// Files whose process was gone before arec could read them (short-lived processes, often in
// containers): their samples stay unnamed, which the user learns here, by name for the first
// few and by count at the end. Where several files were mapped at one path, perf 6.1 applies
// the path's one BUILD_ID entry to the first of them only and reads the others from the path
// (docs/symbols.md): the warning says so instead of promising unnamed samples.
void recording::tell_unread_files(bool last) {
  constexpr std::size_t named_at_most = 4;
  if (options_.no_buildid) return;
  std::vector<unread_file> unread = unread_sampled_files(machine_);
  for (const unread_file& file : unread) {
    if (unread_files_told_.size() >= named_at_most) break;
    if (std::find(unread_files_told_.begin(), unread_files_told_.end(), file.name) !=
        unread_files_told_.end())
      continue;
    unread_files_told_.push_back(file.name);
    if (file.files == 1)
      say(options_, "arec: warning: " + file.name +
                        " ended before arec could read the file it mapped; its samples stay "
                        "unnamed rather than take the names of the file at that path now");
    else
      say(options_, "arec: warning: " + file.name + ": " + std::to_string(file.unread) +
                        " of the " + std::to_string(file.files) +
                        " files mapped at this path ended before arec could read them; perf "
                        "6.1 keeps one build-id per path and may name their samples from the "
                        "file at that path now");
  }
  if (last && unread.size() > unread_files_told_.size())
    say(options_, "arec: warning: and " +
                      std::to_string(unread.size() - unread_files_told_.size()) +
                      " more paths whose mapped files ended before arec could read them");
}

// --timestamp-filename: the finished file takes its time, as every rotated one did.
void recording::name_final_output() {
  final_path_ = rotated_files_.next_name();
  io::rename_output(options_.output_path, final_path_);
  if (!options_.transient_outputs) say(options_, "arec: dump " + final_path_);
  rotated_files_.keep(final_path_);
}

}  // namespace arec::record
