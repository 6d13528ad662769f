#include "export/profile_builder.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/usage_error.hpp"
#include "export/jit_flag_hint.hpp"
#include "export/profile_subset.hpp"
#include "export/recording_info.hpp"
#include "host/container_id.hpp"
#include "host/jitdump.hpp"
#include "model/side_band.hpp"
#include "perf_data/per_process.hpp"
#include "perf_data/perf_abi.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::exporting {
namespace {

// Call chain entries at or above this are PERF_CONTEXT_* markers, not addresses.
constexpr std::uint64_t context_max = static_cast<std::uint64_t>(-4095);

bool is_time_based(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_CPU_CLOCK || attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

// The side-band carrier perf and arec add to every recording ("dummy:u"): it never samples.
bool is_dummy(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_DUMMY;
}

bool kernel_mode(std::uint16_t misc) {
  std::uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
  return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
}

std::string event_name(const perf_data::event_entry& event, std::size_t index) {
  return event.name.empty() ? "event" + std::to_string(index) : event.name;
}

}  // namespace

builder_settings settings_from(const perf_data::feature_set& features) {
  builder_settings settings;
  settings.recorded_build_ids = recorded_build_ids(features);
  recorded_jit jit = recorded_jit_names(features);
  settings.recorded_perf_maps = std::move(jit.perf_maps);
  settings.recorded_jit_code = std::move(jit.by_time);
  settings.recorded_containers = recorded_containers(features);
  settings.symbols.build_id_dir = symbols::default_build_id_dir();
  auto kernel = settings.recorded_build_ids.find("[kernel.kallsyms]");
  if (kernel != settings.recorded_build_ids.end())
    settings.symbols.kernel_build_id = kernel->second;
  return settings;
}

profile_builder::profile_builder(std::span<const perf_data::event_entry> events,
                                 builder_settings settings)
    : settings_(std::move(settings)),
      decoder_(events),
      symbols_(settings_.symbols),
      jit_symbols_(settings_.perf_map_dir),
      unwinder_([this](const model::map& where) {
        return where.object ? symbols_.elf_path(where, recorded_id(*where.object)) : std::string{};
      }),
      cfi_objects_([this](const model::map& where) {
        return where.object ? symbols_.elf_path(where, recorded_id(*where.object)) : std::string{};
      }) {
  unwinder_.locate_jit_code([this](pid_t pid, const model::map& where, std::uint64_t time) {
    return jit_unwinding_.module_for(pid, where, time);
  });
  describe_events(events);
  label_pid_ = intern("pid");
  label_tid_ = intern("tid");
  label_comm_ = intern("comm");
  label_cpu_ = intern("cpu");
  if (settings_.time_bucket_ns != 0) label_time_bucket_ = intern("time_bucket");
  label_cgroup_ = intern("cgroup");
  label_container_ = intern("container_id");
  add_recorded_perf_maps(std::exchange(settings_.recorded_perf_maps, {}));
  add_recorded_jit_code(std::exchange(settings_.recorded_jit_code, {}));
  add_recorded_containers(std::exchange(settings_.recorded_containers, {}));
}

// Two sample types per event: its sample count, and its summed period, which is what perf
// report weighs by (nanoseconds for cpu-clock, task-clock and offcpu-time, event counts
// otherwise).
void profile_builder::describe_events(std::span<const perf_data::event_entry> events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    std::string name = event_name(events[i], i);
    event_names_.push_back(name);
    event_columns columns;
    if (is_dummy(events[i].attr)) {
      columns_.push_back(columns);  // no columns: its samples, if any, are not counted
      continue;
    }
    columns.present = true;
    // perf's offcpu-time (and arec --off-cpu's) samples carry blocked nanoseconds as period.
    bool time = is_time_based(events[i].attr) || name == "offcpu-time";
    columns.count = sample_types_.size();
    sample_types_.push_back({intern(name + "_samples"), intern("count")});
    columns.weight = sample_types_.size();
    sample_types_.push_back({intern(name), intern(time ? "nanoseconds" : "count")});
    columns_.push_back(columns);
  }
  auto first_counted = std::find_if(columns_.begin(), columns_.end(),
                                    [](const event_columns& c) { return c.present; });
  if (first_counted == columns_.end()) return;
  const perf_event_attr& first =
      events[static_cast<std::size_t>(first_counted - columns_.begin())].attr;
  period_type_ = sample_types_[first_counted->weight];
  default_type_ = period_type_.type;
  if (!first.freq)
    period_ = static_cast<std::int64_t>(first.sample_period);
  else if (is_time_based(first) && first.sample_freq > 0)
    period_ = static_cast<std::int64_t>(1'000'000'000 / first.sample_freq);
}

void profile_builder::use_events(std::span<const perf_data::event_entry> events) {
  machine_.forget_exited_threads();  // the previous file's exits: kept for its own samples
  bool same = events.size() == event_names_.size();
  for (std::size_t i = 0; same && i < events.size(); ++i)
    same = event_name(events[i], i) == event_names_[i];
  if (!same)
    throw base::usage_error("the recordings do not record the same events: export them one by one");
  decoder_ = sample_decoder(events);
}

std::int64_t profile_builder::intern(std::string_view text) {
  auto found = string_ids_.find(text);
  if (found != string_ids_.end()) return found->second;
  auto id = static_cast<std::int64_t>(strings_.size());
  strings_.emplace_back(text);
  string_ids_.emplace(strings_.back(), id);
  return id;
}

void profile_builder::add(std::span<const std::byte> record) {
  if (record.size() < sizeof(perf_data::record_header)) return;
  std::uint32_t type = 0;
  std::memcpy(&type, record.data(), sizeof type);
  if (type == PERF_RECORD_SAMPLE)
    add_sample(record);
  else if (type == PERF_RECORD_CGROUP)
    add_cgroup(record);
  else
    model::apply_side_band(machine_, record);
}

// CGROUP: u64 id, then the path NUL-terminated (and the sample_id trailer).
void profile_builder::add_cgroup(std::span<const std::byte> record) {
  constexpr std::size_t path_offset = sizeof(perf_data::record_header) + 8;
  if (record.size() <= path_offset) return;
  std::uint64_t id = 0;
  std::memcpy(&id, record.data() + sizeof(perf_data::record_header), sizeof id);
  const char* path = reinterpret_cast<const char*>(record.data() + path_offset);
  std::string_view named{path, ::strnlen(path, record.size() - path_offset)};
  cgroup_paths_[id] = intern(named);
  std::string_view container = host::container_id_in(named);
  container_ids_[id] = container.empty() ? 0 : intern(container);
}

void profile_builder::add_sample(std::span<const std::byte> record) {
  std::optional<decoded_sample> sample = decoder_.decode(record);
  if (!sample) {
    ++bad_samples_;
    return;
  }
  if (!columns_[sample->event].present) return;
  ++samples_;
  if (sample->time != 0) {
    if (first_time_ == 0 || sample->time < first_time_) first_time_ = sample->time;
    if (sample->time > last_time_) last_time_ = sample->time;
  }
  std::shared_ptr<model::thread> task = machine_.tasks().find(sample->tid);
  if (!task && sample->pid >= 0) task = machine_.find_or_add_thread(sample->pid, sample->tid);

  stack_.clear();
  bool user_frames = false;  // whether the chain has a user part (frame pointers)
  bool kernel = kernel_mode(sample->misc);
  bool first_of_context = true;  // the first address after a marker is exact, not a return
  for (std::uint64_t entry : completed_chain(*sample, task.get())) {
    if (entry >= context_max) {
      kernel = entry == PERF_CONTEXT_KERNEL || entry == PERF_CONTEXT_GUEST_KERNEL;
      first_of_context = true;
      continue;
    }
    stack_.push_back(location_of(task.get(), kernel, entry, !first_of_context, sample->time));
    user_frames = user_frames || !kernel;
    first_of_context = false;
  }
  // --call-graph dwarf: the kernel's chain holds no user frames (exclude_callchain_user);
  // they come from unwinding the user stack copy, after the kernel's, as perf shows them.
  // A sample whose stack the kernel could not copy still has its user registers: its IP.
  if (!user_frames && sample->has_stack_user) add_unwound_frames(*sample, task.get());
  if (stack_.empty())
    stack_.push_back(
        location_of(task.get(), kernel_mode(sample->misc), sample->ip, false, sample->time));

  std::string comm = task ? task->comm() : std::string{};  // at most 15 bytes: no allocation
  std::int64_t comm_id =
      comm.empty() ? intern(sample->tid == 0 ? "swapper" : ":" + std::to_string(sample->tid))
                   : intern(comm);
  key_.assign({sample->event, static_cast<std::uint64_t>(sample->pid),
               static_cast<std::uint64_t>(sample->tid), static_cast<std::uint64_t>(comm_id),
               sample->has_cpu ? sample->cpu : ~0ull, sample->has_cgroup ? sample->cgroup : ~0ull});
  // Records come in time order: the first sample's time is the first bucket's start.
  std::int64_t bucket = -1;  // none: not bucketed, or a sample without a time
  if (settings_.time_bucket_ns != 0) {
    if (sample->time != 0 && sample->time >= first_time_)
      bucket = static_cast<std::int64_t>((sample->time - first_time_) / settings_.time_bucket_ns);
    key_.push_back(static_cast<std::uint64_t>(bucket));  // always there: keys keep one shape
  }
  key_.insert(key_.end(), stack_.begin(), stack_.end());
  std::string_view key{reinterpret_cast<const char*>(key_.data()), key_.size() * 8};
  auto found = window_ids_.find(key);
  std::size_t index = 0;
  if (found != window_ids_.end()) {
    index = found->second;
  } else {
    index = window_.size();
    profile_sample entry;
    entry.location_ids = stack_;
    entry.values.assign(sample_types_.size(), 0);
    entry.labels.push_back({label_pid_, 0, sample->pid});
    entry.labels.push_back({label_tid_, 0, sample->tid});
    entry.labels.push_back({label_comm_, comm_id, 0});
    if (sample->has_cpu) entry.labels.push_back({label_cpu_, 0, sample->cpu});
    if (sample->has_cgroup) {
      // The path as perf report shows it when a CGROUP record named the id, else the id.
      auto path = cgroup_paths_.find(sample->cgroup);
      if (path != cgroup_paths_.end())
        entry.labels.push_back({label_cgroup_, path->second, 0});
      else
        entry.labels.push_back({label_cgroup_, 0, static_cast<std::int64_t>(sample->cgroup)});
    }
    // No label for a host process, as the agents do.
    if (std::int64_t container = container_of(*sample); container != 0)
      entry.labels.push_back({label_container_, container, 0});
    if (bucket >= 0) entry.labels.push_back({label_time_bucket_, 0, bucket});
    window_.push_back(std::move(entry));
    window_ids_.emplace(std::string(key), index);
  }
  const event_columns& columns = columns_[sample->event];
  window_[index].values[columns.count] += 1;
  window_[index].values[columns.weight] += static_cast<std::int64_t>(sample->period);
}

std::span<const std::uint64_t> profile_builder::completed_chain(const decoded_sample& sample,
                                                                const model::thread* task) {
  if (!sample.fp_snapshot || !task || completion_off_) return sample.callchain;
  std::optional<symbols::completion> outcome;
  try {
    symbols::process_rules rules(cfi_objects_, *task->address_space());
    outcome = symbols::complete_callchain(sample.callchain, sample.stack_user, rules, user_chain_,
                                          chain_);
  } catch (const std::runtime_error& error) {  // libdw missing: said once, chains kept
    completion_off_ = true;
    completion_warning_ = error.what();
    outcome = symbols::completion::no_cfi;
  }
  if (!outcome) return sample.callchain;
  if (symbols::not_completed(*outcome)) ++chains_not_completed_;
  if (*outcome == symbols::completion::bp_unverified) ++chains_unverified_;
  return symbols::not_completed(*outcome) || *outcome == symbols::completion::unchanged
             ? sample.callchain
             : std::span<const std::uint64_t>(chain_);
}

std::vector<std::string> profile_builder::take_perf_map_warnings() {
  std::vector<std::string> warnings = jit_symbols_.take_warnings();
  for (std::string& warning : std::exchange(jit_code_warnings_, {}))
    warnings.push_back(std::move(warning));
  for (std::string& warning : symbols_.take_warnings()) warnings.push_back(std::move(warning));
  if (std::size_t left_out = jit_unwinding_.not_unwound(); left_out > not_unwound_said_)
    warnings.push_back("the unwinding information of " +
                       std::to_string(left_out - std::exchange(not_unwound_said_, left_out)) +
                       " JIT functions is not what a runtime writes for them (docs/symbols.md) and "
                       "was left out: their frames are stepped over by frame pointer");
  if (std::string problem = jit_unwinding_.take_problem(); !problem.empty())
    warnings.push_back(std::move(problem));
  if (!completion_warning_.empty())
    warnings.push_back("frame-pointer stacks are not completed: " +
                       std::exchange(completion_warning_, {}));
  return warnings;
}

std::vector<std::string> profile_builder::missing_jit_flags(std::vector<jit_runtime>& said) const {
  std::vector<std::string> lines;
  std::unordered_set<pid_t> seen;
  for (const unnamed_jit_location& jit : unnamed_jit_) {
    // A map that misses some code is not a missing flag.
    if (!seen.insert(jit.pid).second || jit_symbols_.has_functions(jit.pid)) continue;
    std::shared_ptr<model::thread> task = machine_.tasks().find(jit.pid);
    if (!task) continue;
    std::optional<jit_runtime> runtime;
    bool dumped = false;
    for (const model::map& entry : task->address_space()->entries()) {
      if (!entry.object) continue;
      dumped = dumped || host::is_jitdump(entry.object->name());
      if (!runtime) runtime = jit_runtime_of_object(entry.object->name());
    }
    if (!runtime || dumped || std::find(said.begin(), said.end(), *runtime) != said.end())
      continue;
    said.push_back(*runtime);
    lines.push_back(missing_jit_flag(*runtime, task->comm() + " (pid " +
                                                   std::to_string(jit.pid) + ")"));
  }
  return lines;
}

void profile_builder::add_unwound_frames(const decoded_sample& sample, const model::thread* task) {
  if (!task) return;
  unwinder_.unwind(sample.pid, sample.tid, sample.time, task->address_space(), sample.regs_user,
                   sample.stack_user, unwound_);
  for (const unwound_frame& frame : unwound_)
    stack_.push_back(location_of(task, false, frame.pc, frame.caller, sample.time));
}

std::uint64_t profile_builder::location_of(const model::thread* task, bool kernel,
                                           std::uint64_t address, bool caller,
                                           std::uint64_t time) {
  if (caller && address > 0) --address;
  std::optional<model::map> where;
  if (kernel)
    where = machine_.kernel_maps().find(address);
  else if (task)
    where = task->address_space()->find(address);
  pid_t jit_pid = where && !where->object && task ? task->pid() : 0;
  std::uint64_t mapping_id = where ? mapping_of(*where, jit_pid) : 0;
  std::string_view timed = jit_pid != 0 ? jit_code_at(jit_pid, address, time) : std::string_view{};
  std::int64_t timed_id = timed.empty() ? 0 : intern(timed);
  auto [found, added] = location_ids_.try_emplace({mapping_id, address, timed_id}, 0);
  if (!added) {
    if (jit_pid != 0 && timed_id == 0) note_unnamed_jit_time(found->second, time);
    return found->second;
  }

  profile_location location;
  location.id = locations_.size() + 1;
  location.mapping_id = mapping_id;
  location.address = address;
  std::int64_t filename = where && where->object ? intern(where->object->name()) : 0;
  if (kernel) {
    // Named with the window's other new kernel locations, in one pass over kallsyms.
    unnamed_kernel_.push_back({address, location.id, filename});
  } else if (where && where->object) {
    perf_data::build_id id = recorded_id(*where->object);
    std::string_view name = symbols_.function_at(*where, address, id);
    if (!name.empty()) location.function_id = function_of(name, filename);
    if (!name.empty() && settings_.inline_frames)
      for (const std::string& inlined : symbols_.inlined_at(*where, address, id))
        location.inlined_ids.push_back(function_of(inlined, filename));
  } else if (timed_id != 0) {
    name_jit_code(location, timed, jit_code_.at(jit_pid), time, filename);
  } else if (jit_pid != 0) {
    // No jitdump code there then: the perf map's name, which has no time (a dump whose times
    // cannot be placed is part of it).
    std::string_view name = jit_symbols_.function_at(jit_pid, address);
    if (!name.empty())
      location.function_id = function_of(name, filename);
    else {
      unnamed_jit_.push_back({jit_pid, {address, location.id, filename}});
      unnamed_jit_times_[location.id] = {time, time};
    }
  }
  locations_.push_back(location);
  found->second = location.id;
  return location.id;
}

std::int64_t profile_builder::container_of(const decoded_sample& sample) const {
  if (sample.has_cgroup)
    if (auto found = container_ids_.find(sample.cgroup); found != container_ids_.end())
      return found->second;
  auto noted = process_containers_.find(static_cast<pid_t>(sample.pid));
  return noted != process_containers_.end() ? noted->second : 0;
}

std::uint64_t profile_builder::mapping_of(const model::map& where, pid_t pid) {
  auto key = std::tuple{where.object.get(), where.start, where.end, where.pgoff, pid};
  auto [found, added] = mapping_ids_.try_emplace(key, 0);
  if (!added) return found->second;
  profile_mapping mapping;
  mapping.id = mappings_.size() + 1;
  mapping.memory_start = where.start;
  mapping.memory_limit = where.end;
  mapping.file_offset = where.pgoff;
  if (where.object) {
    const model::dso& object = *where.object;
    mapping.kernel = object.kind() != model::dso_kind::user;
    mapping.filename = intern(object.name());
    perf_data::build_id id = recorded_id(object);
    if (id.empty() && object.kind() == model::dso_kind::user) id = symbols_.file_build_id(where);
    // An unread file's marker is no build-id a backend could look up.
    if (!id.empty() && !id.is_of_unread_file()) mapping.build_id = intern(id.hex());
    mapping.has_functions = symbols_.has_symbols(where, id);
  }
  mappings_.push_back(mapping);
  found->second = mapping.id;
  return mapping.id;
}

std::uint64_t profile_builder::function_of(std::string_view name, std::int64_t filename) {
  std::int64_t name_id = intern(name);
  auto [found, added] = function_ids_.try_emplace(
      {static_cast<std::uint64_t>(name_id), static_cast<std::uint64_t>(filename)}, 0);
  if (!added) return found->second;
  functions_.push_back({functions_.size() + 1, name_id, filename});
  found->second = functions_.back().id;
  return found->second;
}

// A pid named twice in one file gets neither entry (perf_data/per_process). A later file's
// entry for a pid replaces the earlier one: it is the same process, its map grown since.

void profile_builder::add_recorded_perf_maps(
    const std::vector<perf_data::captured_perf_map>& maps) {
  for (const auto& [pid, map] : perf_data::unambiguous_by_pid(maps))
    jit_symbols_.use_captured(pid, map ? std::string_view{map->text} : std::string_view{});
  std::erase_if(unnamed_jit_, [this](const unnamed_jit_location& jit) {
    std::string_view name = jit_symbols_.function_at(jit.pid, jit.where.address);
    if (name.empty()) return false;
    locations_[jit.where.location_id - 1].function_id = function_of(name, jit.where.filename);
    unnamed_jit_times_.erase(jit.where.location_id);
    return true;
  });
}

void profile_builder::add_recorded_jit_code(jit_code_by_time code) {
  jit_unwinding_.use(std::move(code.dumps));
  auto by_pid = perf_data::unambiguous_by_pid(code.processes);
  for (process_jit_code& process : code.processes) {
    const process_jit_code* one = by_pid.at(process.pid);
    if (one == &process)
      jit_code_[process.pid] = std::move(process.code);
    else if (!one)
      jit_code_.erase(process.pid);
  }
  std::erase_if(unnamed_jit_,
                [this](const unnamed_jit_location& jit) { return name_by_time(jit); });
  // Each file lists all its dumps: a count grown since is new dumps to tell of.
  if (code.untimed_dumps > said_untimed_jitdumps_) {
    said_untimed_jitdumps_ = code.untimed_dumps;
    jit_code_warnings_.push_back(
        std::to_string(code.untimed_dumps) +
        " captured jitdump(s) cannot be placed on the samples' clock (their times are the CPU's "
        "counter, or the recording read no clock pair): where their runtime reused an address, "
        "the function loaded last names all its samples");
  }
}

void profile_builder::note_unnamed_jit_time(std::uint64_t location_id, std::uint64_t time) {
  auto found = unnamed_jit_times_.find(location_id);
  if (found == unnamed_jit_times_.end()) return;  // named: by a perf map
  found->second.first = std::min(found->second.first, time);
  found->second.second = std::max(found->second.second, time);
}

bool profile_builder::name_by_time(const unnamed_jit_location& jit) {
  auto times = unnamed_jit_times_.find(jit.where.location_id);
  auto code = jit_code_.find(jit.pid);
  if (times == unnamed_jit_times_.end() || code == jit_code_.end()) return false;
  // One piece at the first and at the last sample's time: valid all through, for every sample
  // the location holds.
  const symbols::jit_code_timeline& timeline = code->second;
  const void* piece = timeline.piece_at(jit.where.address, times->second.first);
  if (!piece || piece != timeline.piece_at(jit.where.address, times->second.second)) return false;
  std::string_view name = timeline.name_at(jit.where.address, times->second.first);
  profile_location& location = locations_[jit.where.location_id - 1];
  name_jit_code(location, name, timeline, times->second.first, jit.where.filename);
  // Its samples from now on come under the name's key; one with no code there then makes a new
  // unnamed location.
  location_ids_.erase({location.mapping_id, location.address, 0});
  location_ids_.try_emplace({location.mapping_id, location.address, intern(name)}, location.id);
  unnamed_jit_times_.erase(times);
  return true;
}

std::string_view profile_builder::jit_code_at(pid_t pid, std::uint64_t address,
                                              std::uint64_t time) const {
  auto found = jit_code_.find(pid);
  return found == jit_code_.end() ? std::string_view{} : found->second.name_at(address, time);
}

void profile_builder::name_jit_code(profile_location& location, std::string_view name,
                                    const symbols::jit_code_timeline& timeline,
                                    std::uint64_t time, std::int64_t filename) {
  std::optional<symbols::jit_source_line> line = timeline.line_at(location.address, time);
  if (line) location.line = line->line;
  location.function_id = function_of(name, line ? intern(line->file) : filename);
}

void profile_builder::forget_perf_maps_but(std::span<const pid_t> listed) {
  jit_symbols_.forget_all_but(listed);
  std::erase_if(jit_code_, [&](const auto& entry) {
    return std::find(listed.begin(), listed.end(), entry.first) == listed.end();
  });
  std::erase_if(unnamed_jit_, [&](const unnamed_jit_location& jit) {
    if (std::find(listed.begin(), listed.end(), jit.pid) != listed.end()) return false;
    unnamed_jit_times_.erase(jit.where.location_id);
    return true;
  });
}

void profile_builder::add_recorded_containers(
    const std::vector<perf_data::process_container>& processes) {
  for (const auto& [pid, process] : perf_data::unambiguous_by_pid(processes))
    process_containers_[pid] = process ? intern(process->id) : 0;
}

void profile_builder::add_recorded_build_ids(
    const std::unordered_map<std::string, perf_data::build_id>& ids) {
  settings_.recorded_build_ids.insert(ids.begin(), ids.end());
}

perf_data::build_id profile_builder::recorded_id(const model::dso& object) const {
  if (perf_data::build_id id = object.build_id(); !id.empty()) return id;
  auto found = settings_.recorded_build_ids.find(object.name());
  return found != settings_.recorded_build_ids.end() ? found->second : perf_data::build_id{};
}

void profile_builder::name_kernel_locations() {
  if (unnamed_kernel_.empty()) return;
  std::sort(
      unnamed_kernel_.begin(), unnamed_kernel_.end(),
      [](const unnamed_location& a, const unnamed_location& b) { return a.address < b.address; });
  std::vector<std::uint64_t> addresses;
  addresses.reserve(unnamed_kernel_.size());
  for (const unnamed_location& pending : unnamed_kernel_) addresses.push_back(pending.address);
  std::vector<std::string> names = symbols_.kernel_functions(addresses);
  for (std::size_t i = 0; i < unnamed_kernel_.size(); ++i) {
    if (names[i].empty()) continue;
    const unnamed_location& pending = unnamed_kernel_[i];
    locations_[pending.location_id - 1].function_id = function_of(names[i], pending.filename);
  }
  unnamed_kernel_.clear();
}

profile profile_builder::finish(std::int64_t start_ns, std::int64_t end_ns) {
  name_kernel_locations();
  profile out;
  out.sample_types = sample_types_;
  out.samples = std::move(window_);
  out.mappings = mappings_;
  // pprof tools take the first mapping for the main binary: user space first, by address (an
  // executable below its libraries), the kernel last.
  std::stable_sort(
      out.mappings.begin(), out.mappings.end(),
      [](const profile_mapping& a, const profile_mapping& b) {
        return std::pair{a.kernel, a.memory_start} < std::pair{b.kernel, b.memory_start};
      });
  out.locations = locations_;
  out.functions = functions_;
  out.strings = strings_;
  out.time_nanos = start_ns;
  out.duration_nanos = end_ns > start_ns ? end_ns - start_ns : 0;
  out.period_type = period_type_;
  out.period = period_;
  out.default_sample_type = default_type_;
  window_.clear();
  window_ids_.clear();
  samples_ = 0;
  chains_not_completed_ = 0;
  chains_unverified_ = 0;
  first_time_ = last_time_ = 0;
  keep_only_referenced(out);
  return out;
}

}  // namespace arec::exporting
