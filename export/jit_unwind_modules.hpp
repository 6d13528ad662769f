// jit_unwind_modules: for a --call-graph dwarf sample whose unwinding reaches JIT code, the ELF of
// that mapping with its functions' call frame information from the process's captured jitdump
// (symbols/jit_elf, as arec convert writes it), handed to libdwfl as a memfd
// (export/dwarf_unwinder). Made when a sample first needs it, once per mapping and code
// generation (symbols/jit_generations): where the runtime reused memory, a sample's unwinding
// takes the information of the code there at its time.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <unordered_map>

#include "export/dwarf_unwinder.hpp"
#include "io/unique_fd.hpp"
#include "model/map.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "symbols/jit_generations.hpp"

namespace arec::exporting {

class jit_unwind_modules {
 public:
  // Takes the recording's dumps, replacing what an earlier file of the recording gave for
  // their processes (a later file's dump is the same one, grown). A pid with two dumps gets
  // none (perf_data/per_process).
  void use(perf_data::captured_jitdumps dumps);

  // The module of process `pid`'s anonymous mapping `where` at `time`, or nullptr when its dump
  // gives no function there call frame information. Lives as long as this object.
  const made_module* module_for(pid_t pid, const model::map& where, std::uint64_t time);

  // Functions whose unwinding information was left out (symbols/jit_eh_frame), over the modules
  // made so far.
  std::size_t not_unwound() const noexcept { return not_unwound_; }
  // Why a module could not be made (the memfd refused), once; "" when none was.
  std::string take_problem() { return std::exchange(problem_, {}); }

 private:
  struct process_dump {
    std::shared_ptr<const std::string> bytes;  // the generations point into it
    std::optional<symbols::jit_generations> generations;
    std::size_t version = 0;  // which use() gave it: a module's name changes with it
  };
  struct made {
    io::unique_fd fd;
    std::optional<made_module> module;
  };
  using key = std::tuple<pid_t, std::size_t, std::uint64_t, std::uint64_t, std::size_t>;

  std::unordered_map<pid_t, process_dump> dumps_;
  std::map<key, made> made_;
  std::size_t uses_ = 0;
  std::size_t not_unwound_ = 0;
  std::string problem_;         // until taken
  bool problem_said_ = false;   // a problem is told once
};

}  // namespace arec::exporting
