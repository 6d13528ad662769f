#include "export/dwarf_unwinder.hpp"

#include <gelf.h>
#include <linux/perf_event.h>

#include <array>
#include <cstring>
#include <optional>
#include <set>
#include <utility>

#include "export/dwarf_unwinder_library.hpp"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

namespace arec::exporting {
namespace {

struct dwfl_closer {
  void operator()(Dwfl* dwfl) const noexcept { libdw().end(dwfl); }  // loaded: it made dwfl
};

#if defined(__x86_64__)
// The x86_64 DWARF register numbers 0-16 (psABI: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
// r8-r15, then the return address column, rip) as perf numbers its sampled registers.
constexpr std::array<unsigned, 17> dwarf_to_perf{
    PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,  PERF_REG_X86_SI,
    PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,
    PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
    PERF_REG_X86_R15, PERF_REG_X86_IP};
constexpr unsigned perf_reg_ip = PERF_REG_X86_IP;
constexpr unsigned perf_reg_sp = PERF_REG_X86_SP;
constexpr std::uint64_t native_abi = PERF_SAMPLE_REGS_ABI_64;
#else
// Other architectures: not unwound yet (the samples keep their IP).
constexpr std::array<unsigned, 0> dwarf_to_perf{};
constexpr unsigned perf_reg_ip = 0;
constexpr unsigned perf_reg_sp = 0;
constexpr std::uint64_t native_abi = ~0ull;
#endif

// libdwfl's offline reporting: modules are the ELF files we name with dwfl_report_elf, their
// separate debug files (.debug_frame) found the standard way (build-id, debuglink). Made with
// the first Dwfl, from the loaded libdw; every Dwfl keeps a pointer to it.
const Dwfl_Callbacks& offline_callbacks() {
  static char* debuginfo_path = nullptr;
  static const Dwfl_Callbacks callbacks = {
      .find_elf = nullptr,
      .find_debuginfo = libdw().standard_find_debuginfo,
      .section_address = libdw().offline_section_address,
      .debuginfo_path = &debuginfo_path,
  };
  return callbacks;
}

// A mapping of a file libdwfl can open: not anonymous memory, not [vdso] or [stack].
bool is_file_backed(const model::map& where) {
  return where.object && where.object->kind() == model::dso_kind::user &&
         !where.object->name().empty() && where.object->name().front() == '/';
}

}  // namespace

// One process: its Dwfl (modules reported as its samples reach them) and, while a sample is
// being unwound, that sample.
struct unwound_process {
  pid_t pid = 0;
  std::unique_ptr<Dwfl, dwfl_closer> dwfl;
  std::weak_ptr<model::maps> space;  // the address space the modules were reported from
  bool attached = false;
  bool stale = false;  // a module no longer matches the maps: start over at the next sample
  const dwarf_unwinder::file_locator* locate = nullptr;
  const dwarf_unwinder::jit_locator* locate_jit = nullptr;
  // Maps (start, module name) libdwfl would not take: not opened again for every sample.
  std::set<std::pair<std::uint64_t, const std::string*>> refused;

  // The sample being unwound (set by unwind() for the callbacks).
  std::uint64_t time = 0;
  const user_registers* regs = nullptr;
  std::span<const std::byte> stack;
  std::uint64_t stack_start = 0;  // the sampled SP: the address of stack[0]
  std::vector<unwound_frame>* frames = nullptr;

  // The module of `address`, reported from the maps first if needed; nullptr when none.
  Dwfl_Module* module_at(std::uint64_t address);
  bool read_stack(std::uint64_t address, Dwarf_Word& value) const;
  bool read_file(std::uint64_t address, Dwarf_Word& value);
};

Dwfl_Module* unwound_process::module_at(std::uint64_t address) {
  std::shared_ptr<model::maps> maps = space.lock();
  std::optional<model::map> where = maps ? maps->find(address) : std::nullopt;
  if (!where) return nullptr;
  // JIT code: the ELF arec made of it for this time, if any.
  const made_module* made = nullptr;
  if (!is_file_backed(*where)) {
    if (where->object || !*locate_jit || !(made = (*locate_jit)(pid, *where, time))) return nullptr;
  }
  const std::string& name = made ? made->name : where->object->name();
  const dwfl_functions& dw = libdw();
  if (Dwfl_Module* known = dw.addrmodule(dwfl.get(), address)) {
    const char* known_name =
        dw.module_info(known, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (known_name && name == known_name) return known;
    // Another file is mapped there now (exec, dlclose), or another generation of JIT code: a
    // Dwfl cannot drop a module.
    stale = true;
    return nullptr;
  }
  std::pair<std::uint64_t, const std::string*> key{where->start, &name};
  if (refused.contains(key)) return nullptr;
  std::string file = made ? made->path : (*locate)(*where);
  // The load bias: where offset 0 of the file would be (perf's map start - pgoff); a JIT
  // mapping's ELF has the mapping's own addresses.
  std::uint64_t base = made ? where->start : where->start - where->pgoff;
  Dwfl_Module* added =
      file.empty() ? nullptr
                   : dw.report_elf(dwfl.get(), name.c_str(), file.c_str(), -1, base, false);
  if (added && dw.addrmodule(dwfl.get(), address) == added) return added;
  refused.insert(key);
  return nullptr;
}

bool unwound_process::read_stack(std::uint64_t address, Dwarf_Word& value) const {
  if (address < stack_start || address - stack_start > stack.size() ||
      stack.size() - (address - stack_start) < sizeof value)
    return false;
  std::memcpy(&value, stack.data() + (address - stack_start), sizeof value);
  return true;
}

// Memory outside the stack copy (constants the CFI refers to): the bytes of the mapped file.
bool unwound_process::read_file(std::uint64_t address, Dwarf_Word& value) {
  Dwfl_Module* module = module_at(address);
  if (!module) return false;
  GElf_Addr bias = 0;
  Elf* elf = libdw().module_getelf(module, &bias);
  std::size_t size = 0;
  const char* bytes = elf ? elf_rawfile(elf, &size) : nullptr;
  std::size_t headers = 0;
  if (!bytes || elf_getphdrnum(elf, &headers) != 0) return false;
  std::uint64_t vaddr = address - bias;
  for (std::size_t i = 0; i < headers; ++i) {
    GElf_Phdr header;
    if (!gelf_getphdr(elf, static_cast<int>(i), &header) || header.p_type != PT_LOAD) continue;
    if (vaddr < header.p_vaddr || vaddr - header.p_vaddr + sizeof value > header.p_filesz) continue;
    std::uint64_t offset = header.p_offset + (vaddr - header.p_vaddr);
    if (offset > size || size - offset < sizeof value) return false;
    std::memcpy(&value, bytes + offset, sizeof value);
    return true;
  }
  return false;
}

namespace {

unwound_process* process_from(void* argument) {
  return static_cast<unwound_process*>(argument);
}

// Every thread of the process unwinds through the one Dwfl: whatever tid is asked for is the
// sample's thread.
pid_t next_thread(Dwfl* dwfl, void* dwfl_arg, void** thread_arg) {
  if (*thread_arg != nullptr) return 0;
  *thread_arg = dwfl_arg;
  return libdw().pid(dwfl);
}

bool get_thread(Dwfl*, pid_t, void* dwfl_arg, void** thread_arg) {
  *thread_arg = dwfl_arg;
  return true;
}

bool memory_read(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* dwfl_arg) {
  unwound_process& target = *process_from(dwfl_arg);
  return target.read_stack(address, *result) || target.read_file(address, *result);
}

bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
  const user_registers& regs = *process_from(thread_arg)->regs;
  for (std::size_t dwarf = 0; dwarf < dwarf_to_perf.size(); ++dwarf) {
    std::optional<std::uint64_t> value = regs.get(dwarf_to_perf[dwarf]);
    if (!value) continue;  // a register --user-regs left out: the CFI may not need it
    Dwarf_Word word = *value;
    if (!libdw().thread_state_registers(thread, static_cast<int>(dwarf), 1, &word)) return false;
  }
  return true;
}

const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
    .detach = nullptr,
    .thread_detach = nullptr,
};

struct frame_walk {
  unwound_process* target;
  std::size_t left;
};

int on_frame(Dwfl_Frame* state, void* argument) {
  auto& walk = *static_cast<frame_walk*>(argument);
  const dwfl_functions& dw = libdw();
  Dwarf_Addr pc = 0;
  if (!dw.frame_pc(state, &pc, nullptr)) return DWARF_CB_ABORT;
  // The module's CFI tells whether the frame is a signal frame: report it before asking.
  walk.target->module_at(pc);
  bool activation = false;
  if (!dw.frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
  if (pc != 0) walk.target->frames->push_back({pc, !activation});
  return --walk.left == 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
}

// dwfl_attach_state takes the architecture from the first module with an ELF: the IP's, or,
// when the IP is in no file (the vdso, JIT code), the process's first file-backed mapping.
bool attach(unwound_process& target, Dwfl_Module* first, const model::maps& space) {
  if (!first) {
    for (const model::map& where : space.entries()) {
      if (!is_file_backed(where)) continue;
      first = target.module_at(where.start);
      if (first) break;
    }
  }
  return first &&
         libdw().attach_state(target.dwfl.get(), nullptr, target.pid, &thread_callbacks, &target);
}

}  // namespace

dwarf_unwinder::dwarf_unwinder(file_locator locate, std::size_t max_frames)
    : locate_(std::move(locate)), max_frames_(max_frames == 0 ? 1 : max_frames) {}

dwarf_unwinder::~dwarf_unwinder() = default;

unwound_process& dwarf_unwinder::process_of(pid_t pid, const std::shared_ptr<model::maps>& space) {
  auto known = processes_.find(pid);
  // A new address space (the pid reused) or a module that no longer matches: a new Dwfl.
  if (known != processes_.end() && !known->second->stale && known->second->space.lock() == space)
    return *known->second;
  auto fresh = std::make_unique<unwound_process>();
  // Before the map holds anything for pid: a libdw that cannot be loaded leaves no entry
  // without a Dwfl, and the next sample tries again.
  fresh->dwfl.reset(libdw().begin(&offline_callbacks()));
  fresh->pid = pid;
  fresh->space = space;
  fresh->locate = &locate_;
  fresh->locate_jit = &locate_jit_;
  return *(processes_[pid] = std::move(fresh));
}

// Processes whose address space the model dropped (every thread exited) lose their Dwfl.
void dwarf_unwinder::forget_exited() {
  if (processes_.size() < sweep_at_) return;
  std::erase_if(processes_, [](const auto& entry) { return entry.second->space.expired(); });
  sweep_at_ = std::max<std::size_t>(64, 2 * processes_.size());
}

void dwarf_unwinder::unwind(pid_t pid, pid_t tid, std::uint64_t time,
                            const std::shared_ptr<model::maps>& space,
                            const user_registers& regs, std::span<const std::byte> stack,
                            std::vector<unwound_frame>& frames) {
  frames.clear();
  if (regs.abi != native_abi || !space) return;
  std::optional<std::uint64_t> ip = regs.get(perf_reg_ip);
  std::optional<std::uint64_t> sp = regs.get(perf_reg_sp);
  if (!ip || !sp) return;
  forget_exited();

  unwound_process* target = &process_of(pid, space);
  target->time = time;
  Dwfl_Module* first = target->dwfl ? target->module_at(*ip) : nullptr;
  if (!first && target->stale) {  // the IP's file replaced an older one: report from scratch
    target = &process_of(pid, space);
    target->time = time;
    first = target->dwfl ? target->module_at(*ip) : nullptr;
  }
  if (target->dwfl && !target->attached) target->attached = attach(*target, first, *space);
  if (target->attached) {
    target->regs = &regs;
    target->stack = stack;
    target->stack_start = *sp;
    target->frames = &frames;
    frame_walk walk{target, max_frames_};
    // Its result says why the walk ended (the outermost frame, no CFI, the cap): whatever it
    // found is kept.
    libdw().getthread_frames(target->dwfl.get(), tid, on_frame, &walk);
    target->regs = nullptr;
    target->stack = {};
    target->frames = nullptr;
  }
  if (frames.empty()) frames.push_back({*ip, false});
}

}  // namespace arec::exporting
