// perf_map: the JIT symbols of each process (symbols/perf_map_symbols), as export looks them up:
// the map the recording captured, else /tmp/perf-PID.map (read as perf report reads it, by
// host::read_perf_map_file's rule). perf report reads those maps for anonymous executable
// mappings; export does the same, so JIT frames are named in pprof and folded stacks. Bounded:
// at most max_symbols functions of all processes together (and perf_map_table::max_symbols of
// one), and a live recording's exporter forgets the maps of its past windows
// (forget_all_but); what was left out or refused is counted and told (take_warnings).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbols/perf_map_symbols.hpp"

namespace arec::exporting {

class perf_maps {
 public:
  // All processes' functions together: 96 MiB of tables at 24 bytes each, plus their names.
  static constexpr std::size_t max_symbols = std::size_t{4} << 20;

  // Maps are read from `dir` ("/tmp"); an empty dir reads none.
  explicit perf_maps(std::string dir, std::size_t max_symbols = perf_maps::max_symbols)
      : dir_(std::move(dir)), max_symbols_(max_symbols) {}

  // The function of process `pid` at `address`, "" when its map has none (or it has no map).
  // A process's map is the one captured for it (use_captured), else the one in `dir` read once,
  // at its first question (until forget_all_but).
  std::string_view function_at(pid_t pid, std::uint64_t address);
  // `text` is process `pid`'s map, as the recording captured it (it replaces what was known).
  // An empty text names nothing, and `dir` is then not read for that process (the recorder
  // refused its map).
  void use_captured(pid_t pid, std::string_view text);
  // The next window of a live recording: the maps read from `dir` are forgotten (read again,
  // grown, when a new frame asks), and so are the captured maps of processes not in `captured`.
  void forget_all_but(std::span<const pid_t> captured);

  // True when process `pid`'s map (captured, or read from `dir`) names at least one function.
  bool has_functions(pid_t pid) const;
  // Lines of the maps held now that the bounds left out.
  std::uint64_t left_out() const noexcept { return left_out_; }
  // What was refused or left out since the last call, one line each (bounded: four refusals
  // named, then one line for the rest; the bounds said once).
  std::vector<std::string> take_warnings() { return std::exchange(warnings_, {}); }

 private:
  struct process_map {
    symbols::perf_map_table table;
    bool captured = false;
  };
  process_map& add(pid_t pid, std::string_view text, bool captured);
  std::string read_from_dir(pid_t pid);

  const std::string dir_;
  const std::size_t max_symbols_;
  std::size_t symbols_ = 0;  // held by by_pid_ now
  std::unordered_map<pid_t, process_map> by_pid_;
  std::uint64_t left_out_ = 0;  // of the maps in by_pid_
  bool said_left_out_ = false;  // the bounds are said once
  std::size_t refused_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace arec::exporting
