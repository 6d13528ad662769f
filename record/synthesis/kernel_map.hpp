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
  std::uint64_t end = 0;    // _etext, or 0 when neither kallsyms nor iomem gives it
};

// On x86 the kernel registers its text in /proc/iomem as "Kernel code", from _text to
// _etext - 1 (setup_arch), so _etext is found there instead of ~120 000 lines into kallsyms.
// Other architectures bound that resource differently (arm64 ends it at __init_begin).
#if defined(__x86_64__) || defined(__i386__)
inline constexpr const char* iomem_bounding_kernel_text = "/proc/iomem";
#else
inline constexpr const char* iomem_bounding_kernel_text = nullptr;
#endif

// Where the kernel's maps are read from; tests point these at fixtures.
struct kernel_sources {
  const char* kallsyms = "/proc/kallsyms";
  const char* modules = "/proc/modules";
  // modules.dep naming each module's file; nullptr means /lib/modules/<uname -r>/modules.dep.
  const char* modules_dep = nullptr;
  // Where the length of _text.._etext is read first; nullptr reads kallsyms to _etext.
  const char* iomem = iomem_bounding_kernel_text;
  // The kernel's text, when it was found before: it does not move while a recording runs, and
  // without iomem finding it reads most of kallsyms (5 MB here, ~40 ms of CPU), which every
  // rotated file would otherwise pay again.
  std::optional<kernel_text> text;
};

// Finds the reference symbol in a kallsyms file, and _etext: _text plus the length of iomem's
// "Kernel code" when `iomem_path` shows it (root sees addresses, others zeros), else from
// kallsyms. Returns nullopt when kallsyms is missing, has no reference symbol, or shows it at
// address 0 (kptr_restrict hides addresses).
std::optional<kernel_text> find_kernel_text(const char* kallsyms_path,
                                            const char* iomem_path = iomem_bounding_kernel_text);

// The length of the "Kernel code" resource in an iomem file; nullopt when it is absent or hidden.
std::optional<std::uint64_t> kernel_code_length(const char* iomem_path);

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
