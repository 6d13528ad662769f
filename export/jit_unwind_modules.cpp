#include "export/jit_unwind_modules.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <utility>

#include "convert/jit_mappings.hpp"
#include "perf_data/per_process.hpp"
#include "symbols/jit_elf.hpp"

namespace arec::exporting {
namespace {

// Whether a function of `functions` in [start, end) has call frame information: a mapping
// without one needs no module.
bool any_unwinding_in(std::span<const symbols::jitdump_code> functions, std::uint64_t start,
                      std::uint64_t end) {
  return std::ranges::any_of(functions, [&](const symbols::jitdump_code& code) {
    return !code.eh_frame.empty() && code.start >= start && code.start < end;
  });
}

// A memfd holding `image`, or an empty fd and `problem` set (the unwinding then steps over the
// mapping by frame pointer, as without a dump).
io::unique_fd memory_file(std::span<const std::byte> image, std::string& problem) {
  io::unique_fd fd(::memfd_create("arec-jit-elf", MFD_CLOEXEC));
  const char* call = fd ? nullptr : "memfd_create";
  for (std::size_t done = 0; fd && done < image.size();) {
    ssize_t wrote = ::write(fd.get(), image.data() + done, image.size() - done);
    if (wrote > 0) {
      done += static_cast<std::size_t>(wrote);
    } else {
      call = "write";
      fd.reset();
    }
  }
  if (call)
    problem = std::string(call) + " of a JIT mapping's unwinding ELF failed: " +
              std::strerror(errno) + "; its frames are stepped over by frame pointer";
  return fd;
}

}  // namespace

void jit_unwind_modules::use(perf_data::captured_jitdumps dumps) {
  ++uses_;
  auto by_pid = perf_data::unambiguous_by_pid(dumps.dumps);
  for (perf_data::captured_jitdump& dump : dumps.dumps) {
    const perf_data::captured_jitdump* one = by_pid.at(dump.pid);
    if (one != &dump) {
      if (!one) dumps_.erase(dump.pid);
      continue;
    }
    process_dump& kept = dumps_[dump.pid];
    if (kept.bytes && *kept.bytes == dump.bytes) continue;  // the same dump: its modules hold
    // The modules made of the dump before: a Dwfl that reported one has the file open itself.
    made_.erase(made_.lower_bound(key{dump.pid, 0, 0, 0, 0}),
                made_.lower_bound(key{dump.pid, uses_, 0, 0, 0}));
    kept.generations.reset();  // before the bytes it points into
    kept.bytes = std::make_shared<const std::string>(std::move(dump.bytes));
    kept.generations.emplace(std::as_bytes(std::span{*kept.bytes}), dumps.clocks);
    kept.version = uses_;
  }
}

const made_module* jit_unwind_modules::module_for(pid_t pid, const model::map& where,
                                                  std::uint64_t time) {
  auto dump = dumps_.find(pid);
  if (dump == dumps_.end()) return nullptr;
  const symbols::jit_generations& generations = *dump->second.generations;
  std::size_t generation = generations.at(time);
  auto [entry, added] = made_.try_emplace(
      key{pid, dump->second.version, where.start, where.end, generation});
  if (!added) return entry->second.module ? &*entry->second.module : nullptr;
  std::span<const symbols::jitdump_code> functions = generations.functions(generation);
  if (!any_unwinding_in(functions, where.start, where.end)) return nullptr;
  std::optional<symbols::jit_elf> elf =
      symbols::make_jit_elf(pid, generations.perf_map(generation), {where.start, where.end},
                            functions);
  if (!elf || elf->unwound == 0) return nullptr;
  not_unwound_ += elf->not_unwound;
  made& file = entry->second;
  std::string problem;
  file.fd = memory_file(elf->image, problem);
  if (!problem.empty() && !std::exchange(problem_said_, true)) problem_ = std::move(problem);
  if (!file.fd) return nullptr;
  // The name says which file it is: the generation, and which dump (a later file's is longer).
  file.module = made_module{
      convert::jit_mappings::dump_elf_name(pid, {where.start, where.end}, generation) + "#" +
          std::to_string(dump->second.version),
      "/proc/self/fd/" + std::to_string(file.fd.get())};
  return &*file.module;
}

}  // namespace arec::exporting
