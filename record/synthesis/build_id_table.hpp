// build_id_table: the BUILD_ID feature's entries, made from the model at stop: the kernel first
// (from /sys/kernel/notes), then every module and user dso mapped during the recording, each
// with the build-id the kernel reported in MMAP2 or, failing that, read once from its file.
#pragma once

#include <vector>

#include "io/unique_fd.hpp"
#include "model/machine.hpp"
#include "perf_data/build_id_feature.hpp"

namespace arec::record {

// Where kernel build-ids are read; tests point these elsewhere.
struct build_id_sources {
  const char* kernel_notes = "/sys/kernel/notes";
  const char* modules_root = "/sys/module";  // <root>/<name>/notes/.note.gnu.build-id
};

// Reads the build-id of `object` from its file (or sysfs for the kernel and modules) unless it
// is known already or another caller claimed the read: each file is opened at most once. The
// file is opened through its mapping (host::open_mapped_file). When its path on the host does not
// lead to that same file (a container's file, one replaced or deleted since it was mapped), the
// open file is returned, for the caller to keep while the file may still be cached; else none.
io::unique_fd read_build_id_once(model::dso& object, const build_id_sources& sources = {});

// One entry per (file name, build-id): dsos without a build-id (anonymous or pseudo mappings,
// files that are not ELF) are left out, and a file whose process was gone before it was read
// gets perf_data::build_id::of_unread_file() unless its path has a build-id of its own;
// "[kernel.kallsyms]" comes first whenever its build-id can be read, whether or not a kernel map
// was seen.
std::vector<perf_data::build_id_entry> collect_build_ids(model::machine& machine,
                                                         const build_id_sources& sources = {});

// A path some of whose files got samples but were gone before they could be read.
struct unread_file {
  std::string name;
  std::size_t unread = 0;  // its files unread (and sampled)
  std::size_t files = 0;   // the distinct files (device, inode, generation) mapped at the path
  friend bool operator==(const unread_file&, const unread_file&) = default;
};
// Those paths, sorted by name.
std::vector<unread_file> unread_sampled_files(model::machine& machine);

}  // namespace arec::record
