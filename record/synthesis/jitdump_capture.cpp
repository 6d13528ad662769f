#include "record/synthesis/jitdump_capture.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "host/process_identity.hpp"

namespace arec::record {

void jitdump_capture::open(const host::mapping_place& place, const std::string& path) {
  {
    base::exclusive_lock lock{mutex_};
    for (const kept_dump& dump : dumps_)
      if (dump.pid == place.pid) return;  // one dump per process: a runtime writes one
    if (dumps_.size() >= max_dumps) {
      if (dumps_left_out_++ == 0)
        say("the jitdumps of processes beyond " + std::to_string(max_dumps) + " are not kept");
      return;
    }
  }
  std::optional<std::uint64_t> started = host::process_start_time(place.pid, proc_);
  if (!started) return;  // gone already: its mapping too
  kept_dump dump;
  dump.pid = place.pid;
  dump.started = *started;
  dump.name = "pid " + std::to_string(place.pid) + "'s " + path;
  host::process_jitdump opened;
  try {
    opened = host::open_process_jitdump(place, proc_);
  } catch (const std::system_error& error) {
    opened.problem = error.what();
  }
  if (!opened.problem.empty())
    say(dump.name + " " + opened.problem + ": its JIT frames stay unnamed");
  if (!opened.fd) return;
  dump.fd = std::move(opened.fd);
  base::exclusive_lock lock{mutex_};
  if (std::any_of(dumps_.begin(), dumps_.end(),
                  [&](const kept_dump& kept) { return kept.pid == place.pid; }))
    return;  // opened by another thread meanwhile
  read_more(dump);
  dumps_.push_back(std::move(dump));
}

void jitdump_capture::read_new(pid_t pid) {
  base::exclusive_lock lock{mutex_};
  for (kept_dump& dump : dumps_)
    if (dump.pid == pid) read_more(dump);
}

void jitdump_capture::read_more(kept_dump& dump) {
  if (!dump.cursor.problem.empty()) return;
  std::uint64_t own_room =
      limits_.per_process - std::min<std::uint64_t>(dump.bytes.size(), limits_.per_process);
  std::uint64_t room = std::min(own_room, limits_.total - std::min(total_bytes_, limits_.total));
  host::jitdump_span span;
  try {
    span = host::read_jitdump_records(dump.fd.get(), dump.cursor, dump.bytes,
                                      static_cast<std::size_t>(room), dump.name);
  } catch (const std::system_error& error) {
    dump.cursor.problem = std::string("cannot be read: ") + error.what();
  }
  total_bytes_ += span.kept;
  if (span.whole > 0) dump.stored_current = false;
  std::uint64_t left_out = 0;
  struct stat now {};
  if (span.cut && ::fstat(dump.fd.get(), &now) == 0 &&
      static_cast<std::uint64_t>(now.st_size) > dump.cursor.offset)
    left_out = static_cast<std::uint64_t>(now.st_size) - dump.cursor.offset;
  if (left_out != dump.left_out) dump.stored_current = false;
  dump.left_out = left_out;
  if (!dump.cursor.problem.empty() && !dump.problem_said) {
    dump.problem_said = true;
    say(dump.name + " " + dump.cursor.problem + ": it is kept up to there");
  }
}

std::vector<perf_data::stored_jitdump> jitdump_capture::dumps() {
  std::vector<perf_data::stored_jitdump> out;
  base::exclusive_lock lock{mutex_};
  for (kept_dump& dump : dumps_) {
    read_more(dump);
    if (dump.bytes.empty()) continue;  // not even its header yet
    if (!dump.stored_current) {
      dump.stored = {perf_data::store_perf_map(dump.pid, dump.bytes), dump.left_out};
      dump.stored_current = true;
      if (dump.left_out > 0)
        say(dump.name + ": " + std::to_string(dump.left_out) +
            " bytes of its records are left out (at most " + std::to_string(limits_.per_process) +
            " bytes of a dump and " + std::to_string(limits_.total) + " of all dumps are kept)");
    }
    out.push_back(dump.stored);
  }
  return out;
}

void jitdump_capture::forget_gone_processes() {
  base::exclusive_lock lock{mutex_};
  // Partitioned, then counted here: the analysis cannot see the lock inside a lambda.
  auto gone = std::stable_partition(dumps_.begin(), dumps_.end(), [&](const kept_dump& dump) {
    return host::process_start_time(dump.pid, proc_) == dump.started;
  });
  for (auto dump = gone; dump != dumps_.end(); ++dump) total_bytes_ -= dump->bytes.size();
  dumps_.erase(gone, dumps_.end());
}

}  // namespace arec::record
