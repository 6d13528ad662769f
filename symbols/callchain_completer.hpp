// callchain_completer: completes the frame-pointer chains of a stream of records in time order
// (arec convert), keeping its own model of the recorded tasks and maps from the side band.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "model/machine.hpp"
#include "symbols/process_cfi.hpp"

namespace arec::symbols {

class callchain_completer {
 public:
  // Objects are read at the path their mappings name (this machine's files).
  callchain_completer();

  // COMM, FORK, EXIT, MMAP, MMAP2: the model follows; other records are ignored.
  void side_band(std::span<const std::byte> record);
  // `chain` (a SAMPLE's CALLCHAIN) of task `tid` with its user part completed from `stack`, or
  // `chain` itself; the result is valid until the next call. Without libdw every chain stays
  // as recorded (counted as not completed; libdw_missing() says why).
  std::span<const std::uint64_t> complete(pid_t pid, pid_t tid, std::span<const std::uint64_t> chain,
                                          std::span<const std::byte> stack);

  std::uint64_t completed() const noexcept { return completed_; }
  std::uint64_t not_completed() const noexcept { return not_completed_; }
  std::uint64_t unverified() const noexcept { return unverified_; }
  bool libdw_missing() const noexcept { return libdw_missing_; }

 private:
  model::machine machine_{model::machine::exited_threads::kept};
  cfi_objects objects_;
  std::vector<std::uint64_t> user_, out_;
  std::uint64_t completed_ = 0, not_completed_ = 0, unverified_ = 0;
  bool libdw_missing_ = false;
};

}  // namespace arec::symbols
