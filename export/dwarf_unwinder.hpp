// dwarf_unwinder: the user call stack of a `--call-graph dwarf` sample, unwound after the fact
// from the sampled user registers and the copy of the user stack, with elfutils' libdwfl (the
// unwinder perf itself uses when built without libunwind: tools/perf/util/unwind-libdw.c).
// Stack memory is read from the copy, other memory from the mapped ELF files; the call frame
// information comes from each file's .eh_frame or .debug_frame (or its separate debug file).
// libdw is loaded at the first sample that needs it (dwarf_unwinder_library), not at start.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/sample_decoder.hpp"
#include "model/maps.hpp"

namespace arec::exporting {

struct unwound_frame {
  std::uint64_t pc = 0;
  bool caller = false;  // pc is a return address (not the exact instruction of the frame)
};

// A module read from a file arec made: a JIT mapping's ELF (export/jit_unwind_modules).
struct made_module {
  std::string name;  // what libdwfl calls it: another name is another file
  std::string path;  // the file to read
};

struct unwound_process;  // one process's Dwfl (dwarf_unwinder.cpp)

// perf's default for kernel.perf_event_max_stack and its unwinding cap.
inline constexpr std::size_t default_max_unwound_frames = 127;

class dwarf_unwinder {
 public:
  // The ELF file to read for a mapping (the file on disk or its build-id cache copy), or ""
  // when there is none.
  using file_locator = std::function<std::string(const model::map&)>;

  // The module of process `pid`'s anonymous mapping at a sample's time (its JIT code), or nullptr.
  using jit_locator =
      std::function<const made_module*(pid_t pid, const model::map&, std::uint64_t time)>;

  explicit dwarf_unwinder(file_locator locate, std::size_t max_frames = default_max_unwound_frames);
  ~dwarf_unwinder();
  dwarf_unwinder(const dwarf_unwinder&) = delete;
  dwarf_unwinder& operator=(const dwarf_unwinder&) = delete;

  // Unwinding through anonymous memory asks `locate` for its module; without, libdw steps over
  // it by frame pointer alone.
  void locate_jit_code(jit_locator locate) { locate_jit_ = std::move(locate); }

  // Replaces `frames` with the user stack of one sample, taken at `time`, of thread `tid` of the process whose
  // address space is `space`, leaf first. Empty when the registers cannot start an unwind
  // (none recorded, a 32-bit process, another architecture); otherwise it holds at least the
  // sampled IP and as many callers as libdwfl found, at most max_frames. Never throws for
  // what the recording holds; throws std::runtime_error when libdw cannot be loaded.
  void unwind(pid_t pid, pid_t tid, std::uint64_t time, const std::shared_ptr<model::maps>& space,
              const user_registers& regs, std::span<const std::byte> stack,
              std::vector<unwound_frame>& frames);

  // Processes with a cached Dwfl (tests).
  std::size_t cached_processes() const noexcept { return processes_.size(); }

 private:
  unwound_process& process_of(pid_t pid, const std::shared_ptr<model::maps>& space);
  void forget_exited();

  file_locator locate_;
  jit_locator locate_jit_;
  std::size_t max_frames_;
  // One Dwfl per process: reporting a process's modules reads their ELF files, which must not
  // happen per sample.
  std::unordered_map<pid_t, std::unique_ptr<unwound_process>> processes_;
  std::size_t sweep_at_ = 64;
};

}  // namespace arec::exporting
