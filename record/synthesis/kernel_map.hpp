// kernel_map: the MMAP records perf writes for the kernel image and its modules, so that kernel
// addresses in samples resolve (docs/perf-data-format.md, "Kernel maps").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "io/record_sink.hpp"
#include "record/synthesis/synthesizer.hpp"

namespace arec::record {

struct kernel_text {
  std::string_view symbol;  // the reference symbol: "_text", or "_stext" when _text is absent
  std::uint64_t start = 0;  // its address
  std::uint64_t end = 0;    // _etext, or 0 when kallsyms has none
};

// Where the kernel's maps are read from; tests point these at fixtures.
struct kernel_sources {
  const char* kallsyms = "/proc/kallsyms";
  const char* modules = "/proc/modules";
  // modules.dep naming each module's file; nullptr means /lib/modules/<uname -r>/modules.dep.
  const char* modules_dep = nullptr;
  // The kernel's text, when it was found before: it does not move while a recording runs, and
  // finding it reads most of kallsyms (5 MB here, ~70 ms of CPU), which every rotated file
  // would otherwise pay again.
  std::optional<kernel_text> text;
};

// Finds the reference symbol and _etext in a kallsyms file. Returns nullopt when the file is
// missing, has no reference symbol, or shows it at address 0 (kptr_restrict hides addresses).
std::optional<kernel_text> find_kernel_text(const char* kallsyms_path);

// One line of /proc/modules: "name size refcount deps state 0xaddress [taint]".
struct module_line {
  std::string_view name;
  std::uint64_t size = 0;
  std::uint64_t start = 0;  // 0 when kptr_restrict hides it
};
std::optional<module_line> parse_module_line(std::string_view line);

// Writes the kernel MMAP (misc KERNEL, pid -1, tid 0, start = reference symbol, len up to _etext
// — else up to the lowest module, else to the end of the address space — pgoff = the symbol's
// address, name "[kernel.kallsyms]" + symbol), then one MMAP per module in address order (len =
// its size, pgoff 0, name = its file from modules.dep, else "[name]"). When kallsyms hides
// addresses it writes, like perf, neither the kernel nor the module maps and returns false.
// Returns true when the kernel map was written. Throws only what the sink throws and
// std::invalid_argument for a bad sample_id_size.
bool synthesize_kernel_maps(io::record_sink& sink, const synthesis_config& config,
                            const kernel_sources& sources = {});

}  // namespace arec::record
