// initial_state: the records that describe what runs when a recording (or a file after an
// output switch) starts: the kernel's maps, cgroups, the tasks and their mappings.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "io/record_sink.hpp"
#include "model/machine.hpp"
#include "record/record_options.hpp"
#include "record/session/workload.hpp"
#include "record/synthesis/kernel_map.hpp"

namespace arec::record {

// Whether any event records DWARF call graphs: -g dwarf, or its own call-graph=dwarf term.
bool records_dwarf(const record_options& options);

// What runs already. Its records have time 0: perf applies them as it reads them, so they only
// have to come before the first FINISHED_ROUND after the samples that need them.
// `switched`: for a file after an output switch, whose tasks came from the model at the cut
// (encode_known_tasks): /proc would only repeat them, or worse, describe a task that is exiting
// by its parent's maps (a FORK) after the model described it right.
void synthesize_initial_state(const record_options& options, const std::vector<pid_t>& processes,
                              const std::optional<workload>& child, bool per_task,
                              io::record_sink& sink, model::machine& machine,
                              std::size_t online_cpus, const kernel_sources& kernel,
                              bool switched = false);

}  // namespace arec::record
