// machine: the recorded machine as the side-band records describe it: its tasks with their
// address spaces, the kernel's address space, and every dso mapped anywhere. Safe to update
// from several threads at once (synthesis workers, streaming threads).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "host/mapped_file.hpp"
#include "model/dsos.hpp"
#include "model/maps.hpp"
#include "model/threads.hpp"

namespace arec::model {

// A new mapping as an MMAP or MMAP2 record states it.
struct mapping_event {
  pid_t pid = 0;  // -1: the kernel's address space
  pid_t tid = 0;
  std::uint64_t start = 0;
  std::uint64_t len = 0;
  std::uint64_t pgoff = 0;
  std::uint32_t prot = 0;
  std::uint32_t flags = 0;
  dso_id id;              // identity of the file (inode or build-id), zero if unknown
  std::string_view name;  // file name or pseudo name ("//anon", "[vdso]", "[kernel.kallsyms]_text")
};

class machine {
 public:
  // Name of the kernel's dso, as perf calls it.
  static constexpr std::string_view kernel_name = "[kernel.kallsyms]";

  // What EXIT does: the recorder's model forgets the thread (a file after a switch describes
  // only live ones); a reader's keeps it until its tid is reused, as perf's does, so that a
  // sample written after its thread's EXIT (an off-CPU sum at the end) still finds its maps.
  enum class exited_threads : std::uint8_t { forgotten, kept };
  explicit machine(exited_threads on_exit = exited_threads::forgotten) : on_exit_(on_exit) {}

  threads& tasks() noexcept { return threads_; }
  const threads& tasks() const noexcept { return threads_; }
  dsos& objects() noexcept { return dsos_; }
  const dsos& objects() const noexcept { return dsos_; }
  maps& kernel_maps() noexcept { return kernel_maps_; }

  // The thread `tid` of `pid`, created if unknown: a leader with a fresh address space, any
  // other thread with its leader's (the leader is created too when unknown).
  std::shared_ptr<thread> find_or_add_thread(pid_t pid, pid_t tid);

  // COMM: names `tid`.
  void on_comm(pid_t pid, pid_t tid, std::string_view comm);
  // FORK: `tid` of `pid` was created by `ptid` of `ppid`. A new thread of the same process
  // shares the parent's address space; a new process starts with a copy of it when
  // `copy_maps` (a real fork), with an empty one otherwise (a synthesized FORK, whose own
  // MMAPs follow).
  void on_fork(pid_t pid, pid_t ppid, pid_t tid, pid_t ptid, bool copy_maps = true);
  // EXIT: `tid` is gone and leaves the table (its maps live on while other threads use them),
  // unless exited threads are kept.
  void on_exit(pid_t pid, pid_t tid);
  // Where exited threads are kept: those that exited since the last call leave the table now
  // (unless their tid was taken again). A reader calls it as a file ends, so a series of files
  // (a weeks-long --push) keeps only the exits of the current one.
  void forget_exited_threads();
  // MMAP/MMAP2: adds the mapping to its process's (or the kernel's) address space, finding or
  // creating its dso. Anonymous memory ("//anon", empty name) gets no dso.
  void on_mmap(const mapping_event& event);
  // The dso of a file a process maps, found or created, with the mapping as its place; nothing
  // for the kernel's maps and anonymous memory. Order-independent (a dso is its name and
  // identity), so a reader may call it as soon as it sees the record: on_mmap does too.
  std::shared_ptr<dso> on_mapped_file(const mapping_event& event);
  // SAMPLE: marks the dso that `address` falls in, in the address space of `tid` (or the
  // kernel's when `kernel`), as sampled (dsos::on_sampled hears of the first sample). Returns
  // the map it fell in, so that a caller can skip later samples in the same range; nullopt
  // when the thread or the map is unknown.
  std::optional<map> on_sample(pid_t tid, std::uint64_t address, bool kernel);
  // Called on the sampling thread, once per address space, with the pid of the process whose
  // sample first fell in anonymous executable memory (JIT code: its perf map names it). Set it
  // before the machine is shared between threads.
  void on_jit_sampled(std::function<void(pid_t)> notify) { on_jit_sampled_ = std::move(notify); }
  // Likewise with the pid of each process whose JIT code got samples, at its leader's EXIT: a
  // runtime may write its perf map as it exits (a JVM's -XX:+DumpPerfMapAtExit). Needs
  // on_jit_sampled, which marks those processes.
  void on_jit_process_exit(std::function<void(pid_t)> notify) {
    on_jit_process_exit_ = std::move(notify);
  }
  // Called on the thread that sees it with each mapping of a jitdump's marker (a file named
  // jit-<digits>.dump: host::is_jitdump) by a process, and the name it maps it as.
  using jitdump_notice = std::function<void(const host::mapping_place&, std::string_view)>;
  void on_jitdump_mapped(jitdump_notice notify) { on_jitdump_mapped_ = std::move(notify); }
  // Likewise with the pid of each process at its first user-space sample.
  void on_process_sampled(std::function<void(pid_t)> notify) {
    on_process_sampled_ = std::move(notify);
  }

 private:
  const exited_threads on_exit_;
  base::mutex exited_mutex_;
  std::vector<std::shared_ptr<thread>> exited_ AREC_GUARDED_BY(exited_mutex_);
  threads threads_;
  dsos dsos_;
  maps kernel_maps_;
  std::function<void(pid_t)> on_jit_sampled_;       // set before any concurrent use, constant after
  std::function<void(pid_t)> on_process_sampled_;   // likewise
  std::function<void(pid_t)> on_jit_process_exit_;  // likewise
  jitdump_notice on_jitdump_mapped_;                // likewise
};

}  // namespace arec::model
