// profile_builder: aggregates perf records, one at a time and from any source (a recording read
// back, or a live window), into a profile: side-band records keep the machine model current,
// samples are resolved to mappings and symbolized locations and summed per distinct stack and
// labels. finish() cuts the samples added so far into one profile and starts the next window;
// the model, symbol caches and the location, function, mapping and string tables carry on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "export/dwarf_unwinder.hpp"
#include "export/jit_unwind_modules.hpp"
#include "export/jit_flag_hint.hpp"
#include "export/perf_map.hpp"
#include "export/profile.hpp"
#include "export/recording_info.hpp"
#include "export/sample_decoder.hpp"
#include "export/symbolizer.hpp"
#include "io/record_sink.hpp"
#include "model/machine.hpp"
#include "perf_data/build_id.hpp"
#include "perf_data/container_ids_feature.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "symbols/process_cfi.hpp"

namespace arec::exporting {

struct builder_settings {
  symbolizer_settings symbols;
  // Build-ids the recording gives per file name (its BUILD_ID feature); MMAP2 build-ids and,
  // last, the file on disk are used for files it does not name.
  std::unordered_map<std::string, perf_data::build_id> recorded_build_ids;
  // Where JIT runtimes' perf maps are (perf-PID.map, export/perf_map); "" reads none.
  std::string perf_map_dir = "/tmp";
  // The maps the recording captured (its perf-map feature): they name the JIT code of their
  // processes, before and instead of perf_map_dir's.
  std::vector<perf_data::captured_perf_map> recorded_perf_maps;
  // The code of its jitdumps by time (its jitdump feature): it names a JIT frame by the code
  // there at the sample's time, before the perf maps.
  jit_code_by_time recorded_jit_code;
  // The containers of sampled processes the recording noted (its container-id feature): a
  // container_id label without PERF_SAMPLE_CGROUP (--all-cgroups).
  std::vector<perf_data::process_container> recorded_containers;
  // Non-zero: samples are also told apart by their time, in buckets of this many ns from the
  // first sample, each with a numeric "time_bucket" label (arec report's timelines). 0 for a
  // profile as pprof readers expect it.
  std::uint64_t time_bucket_ns = 0;
  // Functions inlined at a location, from DWARF where a debug file is at hand (--no-inline: off).
  bool inline_frames = true;
};

// The settings a recording's header features give: the build-ids it names (the kernel's
// among them) and the build-id cache to look in.
builder_settings settings_from(const perf_data::feature_set& features);

class profile_builder {
 public:
  // `events`: the recording's attrs in file order, with names and ids.
  profile_builder(std::span<const perf_data::event_entry> events, builder_settings settings);
  // The unwinder finds files through this builder's symbolizer.
  profile_builder(const profile_builder&) = delete;
  profile_builder& operator=(const profile_builder&) = delete;

  // Takes one whole record (header included). COMM/FORK/EXIT/MMAP/MMAP2 update the model,
  // CGROUP names cgroup ids, SAMPLEs are aggregated, everything else is ignored. Once the tables
  // hold a sample's thread, locations and stack, adding it allocates nothing.
  void add(std::span<const std::byte> record);

  // The profile of the samples added since the last finish(), with only the locations,
  // functions, mappings and strings they refer to: the window [start_ns, end_ns)
  // on the wall clock (ns since the epoch).
  profile finish(std::int64_t start_ns, std::int64_t end_ns);

  // Reads the samples that follow with `events` (the next file of the same recording: the
  // same events in the same order, other ids). Throws base::usage_error when the events differ.
  void use_events(std::span<const perf_data::event_entry> events);
  // Build-ids a later file of the recording names (each window of a live recording has its
  // own BUILD_ID feature); the ones known already stay.
  void add_recorded_build_ids(const std::unordered_map<std::string, perf_data::build_id>& ids);
  // The perf maps a later file of the recording captured: each replaces its process's earlier
  // state (the maps only grow while their runtimes run).
  void add_recorded_perf_maps(const std::vector<perf_data::captured_perf_map>& maps);
  // The jitdumps' code by time a later file of the recording captured: each replaces its
  // process's earlier code (the dumps only grow while their runtimes run).
  void add_recorded_jit_code(jit_code_by_time code);
  // A live recording's next window, whose perf maps are those of `listed`: the maps of
  // processes it no longer lists are forgotten (they are gone), and so are those read from
  // perf_map_dir (read again when a new frame asks), so a recording that runs for weeks holds
  // only its live processes' maps. JIT locations of the forgotten processes stay unnamed.
  void forget_perf_maps_but(std::span<const pid_t> listed);
  // What the perf maps' bounds and rules left out or refused since the last call (export/perf_map).
  std::vector<std::string> take_perf_map_warnings();
  // One line per JIT runtime (node, java, python, dotnet) whose JIT frames stayed unnamed for
  // want of a perf map or jitdump, naming the flag that would have named them
  // (export/jit_flag_hint), but for the runtimes in `said`, to which it adds those it names (a
  // live recording says each once, not in every window). Call it before finish().
  std::vector<std::string> missing_jit_flags(std::vector<jit_runtime>& said) const;
  // Lines of perf maps not read so far (the bounds of export/perf_map).
  std::uint64_t perf_map_lines_left_out() const noexcept { return jit_symbols_.left_out(); }
  // The containers a later file of the recording noted.
  void add_recorded_containers(const std::vector<perf_data::process_container>& processes);

  // Sample times (the recording's clock) seen since the last finish(); 0 when none.
  std::uint64_t first_time() const noexcept { return first_time_; }
  std::uint64_t last_time() const noexcept { return last_time_; }
  // Samples added since the last finish(), and those that could not be decoded.
  std::uint64_t samples() const noexcept { return samples_; }
  std::uint64_t bad_samples() const noexcept { return bad_samples_; }
  // Samples since the last finish() whose frame-pointer chain could not be completed (no CFI,
  // stack copy too short, JIT code: symbols/chain_completion), and those completed over a
  // frameless frame that saved rbp (the kernel's chain after it is as it gave it).
  std::uint64_t chains_not_completed() const noexcept { return chains_not_completed_; }
  std::uint64_t chains_unverified() const noexcept { return chains_unverified_; }

 private:
  struct event_columns {
    bool present = false;    // false for the dummy event: no sample types
    std::size_t count = 0;   // sample type index of the sample count
    std::size_t weight = 0;  // of the summed period (ns for time-based events)
  };
  struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  using string_index = std::unordered_map<std::string, std::int64_t, string_hash, std::equal_to<>>;
  struct location_key_hash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& key) const noexcept {
      return std::hash<std::uint64_t>{}(key.first * 0x9e3779b97f4a7c15ull ^ key.second);
    }
    std::size_t operator()(
        const std::tuple<std::uint64_t, std::uint64_t, std::int64_t>& key) const noexcept {
      auto [mapping, address, name] = key;
      return (*this)({mapping * 0x9e3779b97f4a7c15ull ^ address, static_cast<std::uint64_t>(name)});
    }
  };

  void add_sample(std::span<const std::byte> record);
  void add_cgroup(std::span<const std::byte> record);
  // Appends the user frames libdwfl unwinds from the sample's registers and stack copy
  // (--call-graph dwarf), none when they cannot start an unwind.
  void add_unwound_frames(const decoded_sample& sample, const model::thread* task);
  // The sample's chain with its user part completed from the stack copy (arec -g), or the
  // chain as recorded.
  std::span<const std::uint64_t> completed_chain(const decoded_sample& sample,
                                                 const model::thread* task);
  // The location id of one frame; `caller` frames hold return addresses (pprof wants an
  // address inside the call instruction: return address - 1). `time` (the sample's) chooses
  // among the functions a jitdump loaded at one JIT address over time.
  std::uint64_t location_of(const model::thread* task, bool kernel, std::uint64_t address,
                            bool caller, std::uint64_t time);
  // The name process `pid`'s jitdump gives the code at `address` at `time`; "" for none.
  std::string_view jit_code_at(pid_t pid, std::uint64_t address, std::uint64_t time) const;
  // Names JIT `location` `name`, with the source file and line `timeline` gives its address at
  // `time` where the dump gives them; `filename` (the mapping's) otherwise.
  void name_jit_code(profile_location& location, std::string_view name,
                     const symbols::jit_code_timeline& timeline, std::uint64_t time,
                     std::int64_t filename);
  // `pid`: the process of an anonymous mapping (JIT code), whose addresses mean something only
  // in that process; 0 for a file's.
  std::uint64_t mapping_of(const model::map& where, pid_t pid);
  // The interned container id of the sample's process: its cgroup's (--all-cgroups), else the
  // one the recording noted for its pid; 0 for none.
  std::int64_t container_of(const decoded_sample& sample) const;
  // Gives the kernel locations added since the last call their functions (finish() does).
  void name_kernel_locations();
  std::uint64_t function_of(std::string_view name, std::int64_t filename);
  std::int64_t intern(std::string_view text);
  perf_data::build_id recorded_id(const model::dso& object) const;
  void describe_events(std::span<const perf_data::event_entry> events);

  builder_settings settings_;
  model::machine machine_{model::machine::exited_threads::kept};
  sample_decoder decoder_;
  symbolizer symbols_;
  perf_maps jit_symbols_;
  std::unordered_map<pid_t, symbols::jit_code_timeline> jit_code_;  // the jitdumps' by time
  std::uint64_t said_untimed_jitdumps_ = 0;  // dumps named as perf maps, as last said
  std::vector<std::string> jit_code_warnings_;
  jit_unwind_modules jit_unwinding_;  // before unwinder_, whose Dwfls read its files
  std::size_t not_unwound_said_ = 0;  // jit_unwinding_.not_unwound() when last warned of
  dwarf_unwinder unwinder_;
  std::vector<unwound_frame> unwound_;  // reused per sample
  symbols::cfi_objects cfi_objects_;
  std::vector<std::uint64_t> user_chain_, chain_;  // reused per sample
  std::uint64_t chains_not_completed_ = 0, chains_unverified_ = 0;
  bool completion_off_ = false;     // libdw cannot be loaded: chains stay as recorded
  std::string completion_warning_;  // why, until said once
  std::vector<event_columns> columns_;  // per event

  std::vector<std::string> strings_{""};
  string_index string_ids_{{"", 0}};
  std::vector<value_type> sample_types_;
  value_type period_type_;
  std::int64_t period_ = 0;
  std::int64_t default_type_ = 0;
  std::int64_t label_pid_ = 0, label_tid_ = 0, label_comm_ = 0, label_cpu_ = 0, label_cgroup_ = 0,
               label_container_ = 0, label_time_bucket_ = 0;

  std::unordered_map<std::uint64_t, std::int64_t> cgroup_paths_;   // cgroup id -> path string
  std::unordered_map<std::uint64_t, std::int64_t> container_ids_;  // cgroup id -> id string, 0
  std::unordered_map<pid_t, std::int64_t> process_containers_;     // pid -> id string

  std::vector<profile_mapping> mappings_;
  std::map<std::tuple<const model::dso*, std::uint64_t, std::uint64_t, std::uint64_t, pid_t>,
           std::uint64_t>
      mapping_ids_;
  std::vector<profile_location> locations_;
  struct unnamed_location {
    std::uint64_t address;
    std::uint64_t location_id;
    std::int64_t filename;  // string index
  };
  std::vector<unnamed_location> unnamed_kernel_;  // kernel locations not named yet
  // JIT locations their process's map did not name (yet): a runtime may write an entry after
  // its code first ran (its perf map is buffered), so a later window's map names them.
  struct unnamed_jit_location {
    pid_t pid;
    unnamed_location where;
  };
  std::vector<unnamed_jit_location> unnamed_jit_;
  // The first and last sample time of each of them, by location id: a jitdump a later file
  // brings names one only if one function was there all through.
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> unnamed_jit_times_;
  void note_unnamed_jit_time(std::uint64_t location_id, std::uint64_t time);
  // Names an unnamed JIT location by a jitdump's code there all through its samples' times;
  // false when none was.
  bool name_by_time(const unnamed_jit_location& jit);
  // (mapping id, address, the name string a jitdump gave it at the sample's time or 0): one JIT
  // address holds different functions over time, each its own location.
  std::unordered_map<std::tuple<std::uint64_t, std::uint64_t, std::int64_t>, std::uint64_t,
                     location_key_hash>
      location_ids_;
  std::vector<profile_function> functions_;
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t, location_key_hash>
      function_ids_;  // (name string, file name string)

  // The window's samples, summed per key (event, labels, location ids as bytes).
  std::vector<profile_sample> window_;
  std::unordered_map<std::string, std::size_t, string_hash, std::equal_to<>> window_ids_;
  std::vector<std::uint64_t> key_;    // reused per sample
  std::vector<std::uint64_t> stack_;  // reused per sample
  std::uint64_t samples_ = 0;
  std::uint64_t first_time_ = 0, last_time_ = 0;
  std::vector<std::string> event_names_;
  std::uint64_t bad_samples_ = 0;
};

// Feeds a builder from whatever writes records (convert's merge in time order).
class builder_sink final : public io::record_sink {
 public:
  explicit builder_sink(profile_builder& builder) : builder_(builder) {}
  void write(std::span<const std::byte> record) override { builder_.add(record); }

 private:
  profile_builder& builder_;
};

}  // namespace arec::exporting
