// side_band: the records that describe the recorded machine (COMM, FORK, EXIT, MMAP, MMAP2)
// applied to the model, for every reader of records: the recorder's streams and arec export.
#pragma once

#include <cstddef>
#include <span>

#include "model/machine.hpp"

namespace arec::model {

// Applies one complete record to `target`; other record types and malformed records are
// ignored. Allocates nothing when the record names a known thread and dso.
void apply_side_band(machine& target, std::span<const std::byte> record);

// For an MMAP or MMAP2 record: makes the dso of the mapped file known now, with where it is
// mapped (machine::on_mapped_file), ahead of the record's place in time order, so that its
// file is read while the mapping still exists. Other records are ignored.
void note_mapped_file(machine& target, std::span<const std::byte> record);

}  // namespace arec::model
