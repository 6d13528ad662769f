#include "convert/converter.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "base/usage_error.hpp"
#include "convert/convert_input.hpp"
#include "convert/convert_output.hpp"
#include "convert/completed_chains.hpp"
#include "convert/deferred_callchains.hpp"
#include "convert/feature_check.hpp"
#include "convert/jit_mappings.hpp"
#include "convert/mmap_build_ids.hpp"
#include "convert/off_cpu_switches.hpp"
#include "convert/record_check.hpp"
#include "convert/record_clock.hpp"
#include "convert/reorder_window.hpp"
#include "io/file_status.hpp"
#include "io/record_sink.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/optional_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "perf_data/record_walker.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t read_buffer_bytes = 512 * 1024;
// What a source may hold besides its window: the decompressed bytes of one COMPRESSED record
// (one ring drain in arec's files) and zstd's context.
constexpr std::size_t decompression_allowance = 1u << 20;
constexpr std::size_t min_window_bytes = 1u << 20;
constexpr std::uint64_t progress_every = 4096;  // records

// The record types perf 6.1 knows: kernel 1..21 and its own 64..82 (COMPRESSED2, 83, is newer).
bool known_to_perf_6_1(std::uint32_t type) {
  return (type >= 1 && type <= 21) || (type >= 64 && type <= 82);
}

// Names of the record types newer perfs write and perf 6.1 does not know (perf's event.h).
const char* newer_record_name(std::uint32_t type) {
  switch (type) {
    case 22:
      return "CALLCHAIN_DEFERRED";
    case 83:
      return "COMPRESSED2";
    case 84:
      return "BPF_METADATA";
    case 85:
      return "SCHEDSTAT_CPU";
    case 86:
      return "SCHEDSTAT_DOMAIN";
    default:
      return nullptr;
  }
}

// Names of the header features newer perfs write, above perf 6.1's last (util/header.h).
std::string feature_name(unsigned bit) {
  switch (bit) {
    case 32:
      return "CPU_DOMAIN_INFO (32)";
    case 33:
      return "E_MACHINE (33)";
    case 34:
      return "CLN_SIZE (34)";
    default:
      return "feature " + std::to_string(bit);
  }
}

// One data range being merged: its reader, its reorder window and the FINISHED_ROUND state.
struct stream {
  stream(perf_data::record_walker source, std::size_t window_budget)
      : source(std::move(source)), window(window_budget) {}

  perf_data::record_walker source;
  reorder_window window;
  std::uint64_t last_time = 0;  // of the last record read; records without a time inherit it
  std::uint64_t max_time = 0;   // largest time read so far
  std::uint64_t round_max = 0;  // largest time read before the last FINISHED_ROUND
  std::uint64_t safe_time = 0;  // records up to this time cannot be preceded by later reads
  std::uint64_t released = 0;   // time of the last record that left the window
  bool exhausted = false;

  // The earliest buffered record can leave: nothing earlier can still come (end of input, or
  // the FINISHED_ROUND rule of docs/perf-data-format.md, "Ordering and FINISHED_ROUND"), or the
  // window is full (the assumption that a stream is never more out of order than its window:
  // docs/convert.md).
  bool ready() const {
    return !window.empty() && (exhausted || window.top_time() <= safe_time || window.over_budget());
  }
};

class merger {
 public:
  merger(const convert_input& input, bool salvage, io::record_sink& output,
         const convert_settings& settings, convert_report& report,
         const off_cpu_switches* switches = nullptr, deferred_callchains* deferred = nullptr)
      : input_(input),
        switches_(switches),
        deferred_(deferred),
        salvage_(salvage),
        output_(output),
        settings_(settings),
        report_(report),
        clock_(input.events),
        check_(input.events, record_check::cpu_count(input.features)) {}

  void run() {
    open_streams();
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      fill(*streams_[i]);
      if (!streams_[i]->window.empty()) push(i);
    }
    while (!heap_.empty()) {
      emit_switches_until(heap_.front().time);
      std::pop_heap(heap_.begin(), heap_.end(), later{});
      std::size_t index = heap_.back().index;
      heap_.pop_back();
      stream& from = *streams_[index];
      emit(from);
      fill(from);
      if (!from.window.empty()) push(index);
      if (++since_progress_ == progress_every) report_progress();
    }
    emit_switches_until(~std::uint64_t{0});
    for (const auto& s : streams_) {
      report_.compressed_in += s->source.compressed_records();
      if (const auto& damage = s->source.damage()) {
        report_.dropped_bytes += damage->dropped;
        report_.notes.push_back(s->source.path() + ": offset " + std::to_string(damage->offset) +
                                ": " + damage->problem + "; dropped the " +
                                std::to_string(damage->dropped) + " bytes from there on");
      }
    }
    report_progress();
  }

  std::optional<std::pair<std::uint64_t, std::uint64_t>> sample_times() const {
    if (report_.samples == 0) return std::nullopt;
    return std::pair{first_sample_, last_sample_};
  }

 private:
  struct head {
    std::uint64_t time;
    std::size_t index;
  };
  struct later {
    bool operator()(const head& a, const head& b) const noexcept {
      return a.time != b.time ? a.time > b.time : a.index > b.index;
    }
  };

  void open_streams() {
    std::size_t count = input_.ranges.size();
    std::size_t fixed =
        count * (read_buffer_bytes + decompression_allowance) + 2 * convert_output::batch_bytes;
    std::size_t left = settings_.memory_budget > fixed ? settings_.memory_budget - fixed : 0;
    std::size_t window = std::max(min_window_bytes, left / count);
    for (const perf_data::data_range& range : input_.ranges)
      streams_.push_back(std::make_unique<stream>(
          perf_data::record_walker::open(range,
                                         {.salvage = salvage_, .buffer_bytes = read_buffer_bytes}),
          window));
    heap_.reserve(count);
  }

  void push(std::size_t index) {
    heap_.push_back(head{streams_[index]->window.top_time(), index});
    std::push_heap(heap_.begin(), heap_.end(), later{});
  }

  // Reads records into the window until its earliest one may leave or the input ends.
  void fill(stream& s) {
    while (!s.exhausted && !s.ready()) {
      std::optional<perf_data::walked_record> record = s.source.next();
      if (!record) {
        s.exhausted = true;
        break;
      }
      std::uint32_t type = record->header.type;
      if (type == perf_data::record_finished_round) {
        s.safe_time = std::max(s.safe_time, s.round_max);
        s.round_max = s.max_time;
        continue;
      }
      if (type == perf_data::record_header_tracing_data || type == perf_data::record_auxtrace)
        throw perf_data::format_error(
            s.source.path(), record->offset,
            "record type " + std::to_string(type) +
                " carries data outside its size (pipe tracing data or AUX trace); not supported");
      // FINISHED_INIT only marks the end of the synthesized records, which the merge keeps first
      // anyway, and hotspot 1.3 reports it as an "unhandled event type".
      if (type == perf_data::record_finished_init) continue;
      // Stitched into the samples that wait for them (read before the merge).
      if (type == record_callchain_deferred && deferred_) continue;
      if (!known_to_perf_6_1(type)) {
        ++report_.unknown_records[type];
        continue;
      }
      if (const char* problem = check_.problem(record->bytes)) {
        reject(problem, s.source.path(), record->offset);
        continue;
      }
      std::uint64_t time = clock_.time_of(record->bytes).value_or(s.last_time);
      if (time < s.released) ++report_.late_records;
      s.last_time = time;
      s.max_time = std::max(s.max_time, time);
      s.window.push(time, record->bytes);
    }
  }

  void reject(const char* problem, const std::string& path, std::uint64_t offset) {
    auto& rejected = report_.rejected;
    auto same = std::find_if(rejected.begin(), rejected.end(),
                             [&](const rejected_records& r) { return r.problem == problem; });
    if (same == rejected.end())
      same = rejected.insert(rejected.end(),
                             {problem, 0, path + ": offset " + std::to_string(offset)});
    ++same->count;
  }

  void emit(stream& s) {
    std::span<const std::byte> record = s.window.top();
    std::uint64_t time = s.window.top_time();
    std::uint32_t type = 0;
    std::memcpy(&type, record.data(), sizeof type);
    if (type == PERF_RECORD_SAMPLE && time != 0) {
      if (report_.samples == 0) first_sample_ = time;
      first_sample_ = std::min(first_sample_, time);
      last_sample_ = std::max(last_sample_, time);
      ++report_.samples;
    }
    ++report_.records;
    output_.write(deferred_ ? deferred_->rewrite(record) : record);
    s.released = std::max(s.released, time);
    s.window.pop();
  }

  // The records made for off-CPU blocks, in time order, before the input's at the same time.
  void emit_switches_until(std::uint64_t time) {
    if (switches_ == nullptr) return;
    std::span<const off_cpu_switches::entry> entries = switches_->entries();
    for (; next_switch_ < entries.size() && entries[next_switch_].time <= time; ++next_switch_)
      output_.write(switches_->bytes_of(entries[next_switch_]));
  }

  void report_progress() {
    since_progress_ = 0;
    if (!settings_.progress) return;
    convert_progress progress{0, report_.input_bytes};
    for (const auto& s : streams_) progress.bytes_read += s->source.bytes_read();
    settings_.progress(progress);
  }

 public:
  std::size_t peak_window_bytes() const {
    std::size_t total = 0;
    for (const auto& s : streams_) total += s->window.peak_memory();
    return total;
  }

 private:
  const convert_input& input_;
  const off_cpu_switches* switches_;
  deferred_callchains* deferred_;
  std::size_t next_switch_ = 0;
  bool salvage_;
  io::record_sink& output_;
  const convert_settings& settings_;
  convert_report& report_;
  record_clock clock_;
  record_check check_;
  std::vector<std::unique_ptr<stream>> streams_;
  std::vector<head> heap_;
  std::uint64_t since_progress_ = 0;
  std::uint64_t first_sample_ = 0;
  std::uint64_t last_sample_ = 0;
};

// convert_output as the merge's destination, JIT code mappings rewritten on the way and the
// build-ids of MMAP2 records noted.
class output_sink final : public io::record_sink {
 public:
  output_sink(convert_output& output, jit_mappings& jit, mmap_build_ids& ids,
              completed_chains* chains, const record_clock& clock)
      : output_(output), jit_(jit), ids_(ids), chains_(chains), clock_(clock), direct_(output) {}
  void write(std::span<const std::byte> record) override {
    ids_.note(record);
    if (jit_.switches_pending())
      if (std::optional<std::uint64_t> time = clock_.time_of(record))
        jit_.switch_generations(*time, direct_);
    output_.append(jit_.rewrite(chains_ ? chains_->rewrite(record) : record));
  }

 private:
  // The JIT generations' mappings, written as they are made.
  struct direct_sink final : io::record_sink {
    explicit direct_sink(convert_output& to) : output(to) {}
    void write(std::span<const std::byte> record) override { output.append(record); }
    convert_output& output;
  };

  convert_output& output_;
  jit_mappings& jit_;
  mmap_build_ids& ids_;
  completed_chains* chains_;
  const record_clock& clock_;
  direct_sink direct_;
};

// The perf maps and jitdumps the recording captured; a damaged feature costs only the JIT
// names, said so.
template <typename Parse>
auto captured(const convert_input& input, perf_data::feature bit, Parse parse, const char* what,
              convert_report& report) {
  std::string problem;
  auto parsed = perf_data::parsed_optional_feature(input.features, bit, parse,
                                                   input.path + ", " + what, &problem);
  if (!problem.empty()) report.warnings.push_back(problem + ": JIT frames stay unnamed");
  return parsed;
}

jit_mappings captured_jit_code(const convert_input& input, const convert_settings& settings,
                               convert_report& report) {
  jit_mappings jit(captured(input, perf_data::feature_arec_perf_maps,
                            perf_data::parse_perf_maps_payload, "perf-map feature", report),
                   settings.build_id_dir.empty() ? symbols::default_build_id_dir()
                                                 : settings.build_id_dir);
  jit.add_jitdumps(captured(input, perf_data::feature_arec_jitdumps,
                            perf_data::parse_jitdumps_payload, "jitdump feature", report),
                   record_clock(input.events));
  return jit;
}

// Where a stream read from standard input or a FIFO is kept while converting: beside the
// output, which needs as much room.
std::string spool_directory(const std::string& output) {
  std::string::size_type slash = output.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : output.substr(0, slash);
}

// The output's zstd level: asked for explicitly, else the recording's with --keep-compressed.
int output_level(const convert_options& options, const convert_input& input) {
  if (options.compression_level > 0) return options.compression_level;
  if (!options.keep_compressed) return 0;
  const std::vector<std::byte>* feature = input.features.find(perf_data::feature_compressed);
  if (!feature || feature->size() < 3 * sizeof(std::uint32_t)) return 0;  // input not compressed
  std::uint32_t level = 0;
  std::memcpy(&level, feature->data() + 2 * sizeof(std::uint32_t), sizeof level);
  return static_cast<int>(std::clamp<std::uint32_t>(level, 1, 22));
}

}  // namespace

convert_report convert(const convert_options& options, const convert_settings& settings) {
  if (options.output.empty()) throw base::usage_error("the output file name is empty");
  convert_input input =
      open_convert_input(options.input, options.salvage, spool_directory(options.output));
  if (options.output == options.input || io::same_file(options.output, input.header_path) ||
      io::same_file(options.output, options.input))
    throw base::usage_error("-o " + options.output + ": the output would overwrite the input");

  convert_report report;
  report.files = input.ranges.size();
  report.input_bytes = input.total_bytes();
  report.notes = input.salvage_notes;
  report.compression_level = output_level(options, input);

  std::optional<off_cpu_switches> switches;
  std::optional<deferred_callchains> deferred;
  std::vector<perf_data::event_entry> events = input.events;
  try {
    if (options.off_cpu_switches) switches = off_cpu_switches::read(input, options.salvage);
    deferred = deferred_callchains::read(input, options.salvage);
  } catch (const perf_data::format_error& error) {
    input.rethrow_as_given(error);
  }
  if (switches) {
    events.push_back(switches->event());
    report.off_cpu_blocks = switches->blocks();
  }
  convert_output output(options.output, events, report.compression_level);
  jit_mappings jit = captured_jit_code(input, settings, report);
  mmap_build_ids mmap_ids;
  std::optional<completed_chains> chains = completed_chains::for_events(input.events);
  record_clock clock(input.events);
  output_sink sink(output, jit, mmap_ids, chains ? &*chains : nullptr, clock);
  merger merge(input, options.salvage, sink, settings, report, switches ? &*switches : nullptr,
               deferred ? &*deferred : nullptr);
  try {
    merge.run();
  } catch (const perf_data::format_error& error) {
    input.rethrow_as_given(error);
  }
  for (std::string& note : report.notes) note = input.as_given(note);
  for (rejected_records& rejected : report.rejected)
    rejected.first = input.as_given(rejected.first);

  perf_data::feature_set features;
  feature_context context = feature_context_of(input.features, input.events.size());
  for (const auto& [bit, payload] : input.features) {
    // A single file, not a directory; COMPRESSED is re-set by the output when it compresses;
    // SAMPLE_TIME is recomputed below.
    if (bit == perf_data::feature_dir_format || bit == perf_data::feature_compressed ||
        bit == perf_data::feature_sample_time)
      continue;
    // perf 6.1 skips the features it does not know (arec's own, far above, it skips quietly);
    // other readers may not: the converted file is one perf 6.1 reads as written.
    if (bit >= perf_data::feature_last_known && bit < perf_data::feature_arec_jitdumps) {
      report.dropped_features.push_back(feature_name(bit) + ", newer than perf 6.1");
      continue;
    }
    if (std::string problem = feature_problem(bit, payload, context); !problem.empty()) {
      report.dropped_features.push_back(std::move(problem));
      continue;
    }
    features.set(bit, payload);
  }
  // EVENT_DESC names attrs by index: without the recording's own, only the leading attrs
  // salvage could name are described, and perf names the others itself.
  bool all_named = input.features.has(perf_data::feature_event_desc) ||
                   input.salvaged_names == input.events.size();
  std::size_t described = all_named ? events.size() : input.salvaged_names;
  if ((switches || input.salvaged_names > 0) && described > 0)
    features.set(perf_data::feature_event_desc,
                 perf_data::event_desc_payload(std::span{events}.first(described)));
  report.jit_mappings = jit.rewritten();
  report.jit_remapped = jit.remapped();
  report.warnings.insert(report.warnings.end(), jit.warnings().begin(), jit.warnings().end());
  const std::vector<std::byte>* own = features.find(perf_data::feature_build_id);
  std::span<const std::byte> own_entries =
      own ? std::span<const std::byte>{*own} : std::span<const std::byte>{};
  std::vector<perf_data::build_id_entry> entries = mmap_ids.missing_from(own_entries);
  report.mmap_build_ids = entries.size();
  std::vector<perf_data::build_id_entry> jit_entries = jit.build_ids();
  entries.insert(entries.end(), jit_entries.begin(), jit_entries.end());
  if (!entries.empty())
    features.set(perf_data::feature_build_id, with_build_ids(own_entries, entries));
  if (auto times = merge.sample_times())
    features.set(perf_data::feature_sample_time,
                 perf_data::sample_time_payload(times->first, times->second));
  report.record_bytes = output.record_bytes();
  output.commit(std::move(features));
  report.output_bytes = output.data_bytes();
  report.peak_window_bytes = merge.peak_window_bytes();
  if (chains) {
    report.chains_completed = chains->completed();
    report.chains_not_completed = chains->not_completed();
    report.chains_unverified = chains->unverified();
    if (chains->libdw_missing())
      report.warnings.push_back(
          "frame-pointer stacks kept as recorded: completing them needs libdw (Debian: libdw1)");
  }
  if (deferred) {
    report.deferred_stitched = deferred->stitched();
    report.deferred_unmatched = deferred->unmatched();
  }
  return report;
}

std::string describe_unknown_records(const std::map<std::uint32_t, std::uint64_t>& counts) {
  std::string text;
  for (const auto& [type, count] : counts) {
    if (!text.empty()) text += ", ";
    text += std::to_string(type);
    if (const char* name = newer_record_name(type)) text += std::string(" ") + name;
    text += " (" + std::to_string(count) + ")";
  }
  return text;
}

convert_report merge_in_time_order(const convert_input& input, bool salvage, io::record_sink& sink,
                                   const convert_settings& settings) {
  convert_report report;
  report.files = input.ranges.size();
  report.input_bytes = input.total_bytes();
  report.notes = input.salvage_notes;
  std::optional<deferred_callchains> deferred = deferred_callchains::read(input, salvage);
  merger merge(input, salvage, sink, settings, report, nullptr, deferred ? &*deferred : nullptr);
  merge.run();
  if (deferred) {
    report.deferred_stitched = deferred->stitched();
    report.deferred_unmatched = deferred->unmatched();
  }
  report.peak_window_bytes = merge.peak_window_bytes();
  return report;
}

}  // namespace arec::convert
