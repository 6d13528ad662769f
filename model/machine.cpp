#include "model/machine.hpp"

#include <sys/mman.h>

#include <utility>

#include "host/jitdump.hpp"

namespace arec::model {
namespace {

constexpr std::string_view kernel_map_prefix = "[kernel.kallsyms]";

bool anonymous(std::string_view name) {
  return name.empty() || name == "//anon" || name.starts_with("/anon_hugepage") ||
         name.starts_with("/dev/zero") || name.starts_with("/SYSV");
}

}  // namespace

std::shared_ptr<thread> machine::find_or_add_thread(pid_t pid, pid_t tid) {
  return threads_.find_or_add(tid, [&] {
    // A thread shares its leader's address space; an unknown leader is created too, as perf
    // does, so that the process's mmaps (made under its pid) reach this thread.
    std::shared_ptr<maps> space = pid > 0 && pid != tid
                                      ? find_or_add_thread(pid, pid)->address_space()
                                      : std::make_shared<maps>();
    return std::make_shared<thread>(pid, tid, std::move(space));
  });
}

void machine::on_comm(pid_t pid, pid_t tid, std::string_view comm) {
  find_or_add_thread(pid, tid)->set_comm(comm);
}

void machine::on_fork(pid_t pid, pid_t ppid, pid_t tid, pid_t ptid, bool copy_maps) {
  // /proc lists a process's threads in any order: a synthesized leader may come after threads
  // that already created it, with the address space they share.
  if (!copy_maps)
    if (auto known = threads_.find(tid); known && known->pid() == pid) return;
  // As perf does, an unknown parent is created: the child must see the same address space
  // whichever of the two we hear of first.
  std::shared_ptr<thread> parent = find_or_add_thread(ppid, ptid);
  std::shared_ptr<maps> space;
  if (parent->pid() == pid)
    space = parent->address_space();
  else if (copy_maps)
    space = std::make_shared<maps>(*parent->address_space());
  else
    space = std::make_shared<maps>();
  auto child = std::make_shared<thread>(pid, tid, std::move(space));
  child->set_comm(parent->comm());
  threads_.insert(std::move(child));
}

void machine::on_exit(pid_t pid, pid_t tid) {
  if (pid == tid && on_jit_process_exit_)
    if (std::shared_ptr<thread> leader = threads_.find(tid);
        leader && leader->address_space()->jit_sampled())
      on_jit_process_exit_(pid);
  if (on_exit_ == exited_threads::forgotten) {
    threads_.remove(tid);
    return;
  }
  if (std::shared_ptr<thread> gone = threads_.find(tid)) {
    base::exclusive_lock lock{exited_mutex_};
    exited_.push_back(std::move(gone));
  }
}

void machine::forget_exited_threads() {
  std::vector<std::shared_ptr<thread>> gone;
  {
    base::exclusive_lock lock{exited_mutex_};
    gone.swap(exited_);
  }
  for (const std::shared_ptr<thread>& task : gone)
    if (threads_.find(task->tid()) == task) threads_.remove(task->tid());
}

void machine::on_mmap(const mapping_event& event) {
  map entry;
  entry.start = event.start;
  entry.end = event.start + event.len;
  entry.pgoff = event.pgoff;
  entry.prot = event.prot;
  entry.flags = event.flags;
  if (event.pid == -1) {
    // perf names the kernel map "[kernel.kallsyms]_text" (after its reference symbol); the
    // dso is "[kernel.kallsyms]". Everything else under pid -1 is a module.
    bool kernel = event.name.starts_with(kernel_map_prefix);
    entry.object = dsos_.find_or_add(kernel ? kernel_name : event.name, event.id,
                                     kernel ? dso_kind::kernel : dso_kind::kernel_module);
    kernel_maps_.insert(entry);
    return;
  }
  entry.object = on_mapped_file(event);
  find_or_add_thread(event.pid, event.pid)->address_space()->insert(entry);
  if (on_jitdump_mapped_ && host::is_jitdump(event.name))
    on_jitdump_mapped_({event.pid, entry.start, entry.end}, event.name);
}

std::shared_ptr<dso> machine::on_mapped_file(const mapping_event& event) {
  if (event.pid == -1 || anonymous(event.name)) return nullptr;
  return dsos_.find_or_add(event.name, event.id, dso_kind::user,
                           host::mapping_place{event.pid, event.start, event.start + event.len});
}

std::optional<map> machine::on_sample(pid_t tid, std::uint64_t address, bool kernel) {
  std::optional<map> hit;
  if (kernel) {
    // No thread lookup: kernel samples the feed could not resolve (outside the kernel's maps)
    // come at the sampling rate. A process is noted at its first user-space sample.
    hit = kernel_maps_.find(address);
  } else if (std::shared_ptr<thread> task = threads_.find(tid)) {
    if (task->pid() > 0 && on_process_sampled_ && task->address_space()->mark_sampled())
      on_process_sampled_(task->pid());
    hit = task->address_space()->find(address);
    // The sampled process, alive now, is the best one to read the file through.
    if (hit && hit->object && !hit->object->sampled())
      hit->object->set_place({task->pid(), hit->start, hit->end});
    if (hit && !hit->object && (hit->prot & PROT_EXEC) != 0 && on_jit_sampled_ &&
        task->address_space()->mark_jit_sampled())
      on_jit_sampled_(task->pid());
  }
  if (hit && hit->object) dsos_.note_sampled(hit->object);
  return hit;
}

}  // namespace arec::model
