// The recording's last output finished: its features, its name, what the summary says of it,
// and what a failed write leaves.
#include <cerrno>
#include <system_error>

#include "host/host_features.hpp"
#include "host/tracefs.hpp"
#include "host/tracing_data.hpp"
#include "io/output_path.hpp"
#include "record/session/recording.hpp"
#include "record/streaming/compression_stage.hpp"
#include "record/streaming/streamer.hpp"

namespace arec::record {
namespace {

// The event groups, by index among the file's events (the requested ones come first, in order).
std::vector<perf_data::group_entry> event_groups(std::span<const event_spec> events) {
  std::vector<perf_data::group_entry> groups;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].group_size > 1)
      groups.push_back({events[i].group_name, static_cast<std::uint32_t>(i), events[i].group_size});
  return groups;
}

perf_data::feature_set final_features(const record_options& options,
                                      std::span<const perf_data::event_entry> entries,
                                      const stream_stats& stats, bool directory,
                                      std::span<const std::string> command_line) {
  perf_data::feature_set features;
  host::add_host_features(features);
  features.set(perf_data::feature_event_desc, perf_data::event_desc_payload(entries));
  features.set(perf_data::feature_cmdline, perf_data::cmdline_payload(command_line));
  if (auto groups = event_groups(options.events); !groups.empty())
    features.set(perf_data::feature_group_desc, perf_data::group_desc_payload(groups));
  if (stats.samples > 0)
    features.set(perf_data::feature_sample_time,
                 perf_data::sample_time_payload(stats.first_sample_time, stats.last_sample_time));
  if (directory) features.set(perf_data::feature_dir_format, perf_data::dir_format_payload());
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const event_spec& spec : options.events)
    if (spec.tracepoint) tracepoints.push_back(*spec.tracepoint);
  if (!tracepoints.empty()) {
    features.set(perf_data::feature_tracing_data,
                 host::tracing_data_payload(host::tracefs::root(), tracepoints));
  }
  return features;
}

}  // namespace

perf_data::feature_set recording::features(const stream_stats& stats,
                                           const compression_totals& compression) const {
  perf_data::feature_set set =
      final_features(options_, entries_, stats, directory(), command_line_);
  if (options_.compression_level > 0)
    // perf's reader sizes its decompression buffer from mmap_len (the page is perf's habit).
    set.set(perf_data::feature_compressed,
            perf_data::compressed_payload(
                static_cast<std::uint32_t>(options_.compression_level),
                static_cast<std::uint32_t>(compression.ratio() + 0.5),
                static_cast<std::uint32_t>(compression_stage::max_decoded_bytes(ring_bytes()) +
                                           page_size_)));
  if (clock_) {
    set.set(perf_data::feature_clockid, perf_data::clockid_payload(clock_->resolution_ns));
    set.set(perf_data::feature_clock_data,
            perf_data::clock_data_payload(static_cast<std::uint32_t>(*options_.attrs.clockid),
                                          clock_->wall_clock_ns, clock_->clock_ns));
  }
  return set;
}

// What the summary says was written: the bytes on disk of the last file (or directory), and
// with rotation those of every file.
written_output recording::output_written() const {
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

// The last output gets its features and final header; after a failed write (`failure`) it is
// cut back to what is on disk first (docs/crash-safety.md).
void recording::finalize(std::exception_ptr failure) {
  if (to_pipe()) {  // everything is in the stream already
    print_summary(options_, output_written(), threads_, total_, compression_, ring_pages(),
                  off_cpu_totals_of_recording());
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
  std::optional<symbols::debug_fetch_totals> fetched;
  if (failed_ && switches_ > 0 && last.stats.samples == 0) {
    remove_empty_output();
  } else {
    build_ids_.stop();  // what it has not reached is read here
    finish_file(*header_, last);
    if (timestamped()) name_final_output();
    fetched = fetch_debug_files();
  }
  written_output written = output_written();
  if (failure) written.failure = failure_note(failure, written.path, last.stats.samples);
  print_summary(options_, written, threads_, total_, compression_, ring_pages(),
                off_cpu_totals_of_recording(), fetched);
  output_finished(written.path);
}

// The file is complete and every ring drained: only now may debuginfod take its (bounded) time,
// to fill the cache's `debug` entries perf report names stripped objects from.
std::optional<symbols::debug_fetch_totals> recording::fetch_debug_files() {
  symbols::build_id_cache* cache = build_ids_.cache();
  // -N, -B, --debuginfod-deadline 0; after a failed write the disk may be full.
  if (!cache || failed_ || options_.debuginfod_deadline.count() == 0) return std::nullopt;
  return cache->fetch_debug_files(options_.debuginfod_deadline);
}

// After a failed switch the new output may hold no sample at all (a full disk took nothing
// but its prologue and tasks): it is removed, and the file before it is the last.
void recording::remove_empty_output() {
  io::remove_output(options_.output_path);
  output_removed_ = true;
  say(options_, "arec: " + options_.output_path +
                    " is removed: no sample reached it before the write failed");
}

// What the summary adds after a failed write: that the disk was full (or the error), what the
// last file holds, and what did not reach it. Empty when no write failed.
std::string recording::failure_note(std::exception_ptr failure, const std::string& path,
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
void recording::output_finished(const std::string& path) {
  if (!options_.on_output_finished) return;
  std::int64_t now = wall_clock_now_ns();
  options_.on_output_finished({path, window_start_ns_, now});
  window_start_ns_ = now;
}

std::optional<off_cpu_totals> recording::off_cpu_totals_of_recording() {
  if (!off_cpu_) return std::nullopt;
  off_cpu_recorder::totals counted = off_cpu_->counted();
  return off_cpu_totals{counted.samples, counted.blocked_ns, counted.unattributed,
                        counted.incomplete};
}

}  // namespace arec::record
