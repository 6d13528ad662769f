#include "record/session/initial_state.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "host/cgroup_fs.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/record_encoders.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/events/event_attrs.hpp"
#include "record/session/messages.hpp"
#include "record/streaming/model_feed.hpp"
#include "record/synthesis/cgroups.hpp"
#include "record/synthesis/synthesizer.hpp"
#include "record/synthesis/target_tasks.hpp"

namespace arec::record {

namespace {

// Default --num-thread-synthesize: the online cpus, but /proc scanning stops scaling early.
constexpr std::size_t max_synthesis_threads = 8;

// The workload is known by its command name until its exec brings the real COMM record.
void synthesize_workload_comm(io::record_sink& sink, pid_t pid, const std::string& command,
                              std::size_t trailer_size) {
  perf_data::record_buffer buffer;
  std::string_view name = command;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  auto pid_u32 = static_cast<std::uint32_t>(pid);
  sink.write(perf_data::encode_comm(buffer, pid_u32, pid_u32, name.substr(0, 15), trailer_size));
}

// Marks the end of the synthesized initial state, as perf does.
void write_finished_init(io::record_sink& sink) {
  constexpr perf_data::record_header finished_init{perf_data::record_finished_init, 0, 8};
  sink.write(std::as_bytes(std::span{&finished_init, 1}));
}

// --all-cgroups: the cgroups that exist, named before any sample refers to them. As in perf, a
// failure only costs the names (samples keep their ids), with perf's warning.
void synthesize_existing_cgroups(const record_options& options, io::record_sink& sink) {
  if (!options.attrs.all_cgroups || !options.synth.cgroups) return;
  std::string problem;
  try {
    std::optional<std::string> mount = host::perf_event_cgroup_mount();
    if (mount)
      synthesize_cgroups(sink, *mount,
                         perf_data::sample_id_trailer_size(shared_sample_type(options.attrs)));
    else
      problem = "no cgroup file system is mounted";
  } catch (const std::system_error& error) {
    problem = error.what();
  }
  if (!problem.empty())
    say(options, "arec: warning: Couldn't synthesize cgroup events (" + problem + ")");
}

}  // namespace

bool records_dwarf(const record_options& options) {
  return options.call_graph == call_graph_mode::dwarf ||
         std::any_of(options.events.begin(), options.events.end(), [](const event_spec& spec) {
           return spec.terms.call_graph == call_graph_mode::dwarf;
         });
}

void synthesize_initial_state(const record_options& options, const std::vector<pid_t>& processes,
                              const std::optional<workload>& child, bool per_task,
                              io::record_sink& sink, model::machine& machine,
                              std::size_t online_cpus, const kernel_sources& kernel,
                              bool switched) {
  synthesis_config synthesis;
  synthesis.sample_id_size = perf_data::sample_id_trailer_size(shared_sample_type(options.attrs));
  // As the tracking event records them (perf synthesizes them for -d only; arec's reason for
  // dwarf is in event_attrs.cpp).
  synthesis.data_mmaps =
      records_dwarf(options) || (options.attrs.sample_fields & PERF_SAMPLE_ADDR) != 0;
  synthesis.task_mmaps = options.synth.mmaps;
  synthesis.model = &machine;
  synthesis.threads = options.synthesize_threads.value_or(
      static_cast<unsigned>(std::clamp<std::size_t>(online_cpus, 1, max_synthesis_threads)));
  model_feed_sink kernel_sink{machine, sink};
  synthesize_kernel_maps(kernel_sink, synthesis, kernel);
  synthesize_existing_cgroups(options, sink);
  if (switched) {
    write_finished_init(sink);
    return;
  }
  // Without --synth's task bit, what runs is known only from the records that come; the
  // workload is named all the same, as perf does (its exec's COMM comes later than its start).
  if (!processes.empty()) {
    if (options.synth.tasks) synthesize_processes(sink, processes, synthesis);
  } else if (options.synth.tasks && !per_task) {
    synthesize_all_tasks(sink, synthesis);
  } else if (child) {
    synthesize_workload_comm(sink, child->pid(), options.workload.front(),
                             synthesis.sample_id_size);
  }
  write_finished_init(sink);
}

}  // namespace arec::record
