// known_tasks: the tasks and file mappings the model holds, as COMM and MMAP2 records. At an
// output switch the new file needs them for samples of tasks that may be gone from /proc by
// the time it is synthesized (a workload that exits right after the switch): the model, taken
// at the cut, knows every task the records drained so far made.
#pragma once

#include <cstddef>
#include <vector>

#include "model/machine.hpp"

namespace arec::record {

// Each known thread's COMM, and one MMAP2 per mapping of each address space, anonymous memory
// named "//anon" (the kernel's maps left out: synthesized again from /proc).
std::vector<std::byte> encode_known_tasks(const model::machine& machine,
                                          std::size_t sample_id_size);

}  // namespace arec::record
