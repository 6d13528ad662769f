// symbolizer: names the function at an address of a mapping, from the mapped file's ELF symbol
// table (demangled C++) or, for the kernel and its modules, from kallsyms. Each file is read
// once, when its first address is asked for; a file whose build-id is not the recorded one is
// looked up in perf's build-id cache instead (its layout: symbols/build_id_cache.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/map.hpp"
#include "perf_data/build_id.hpp"
#include "symbols/debuginfod_fetcher.hpp"
#include "symbols/elf_symbols.hpp"
#include "symbols/frame_rules.hpp"
#include "symbols/inline_frames.hpp"

namespace arec::exporting {

struct symbolizer_settings {
  // perf's build-id cache (symbols::default_build_id_dir: $PERF_BUILDID_DIR, perfconfig's
  // buildid.dir, else $HOME/.debug, as recording and `arec archive` find it). Empty: no cache.
  std::string build_id_dir;
  // Separate debug files by build-id (<dir>/.build-id/xx/yyyy.debug, as Debian's -dbg and
  // -dbgsym packages install them): their .symtab names what a stripped file's .dynsym does
  // not. Empty: not looked up.
  std::string debug_dir = "/usr/lib/debug";
  // The kernel's symbols when the cache has no kallsyms for the recorded kernel.
  std::string kallsyms_path = "/proc/kallsyms";
  // The build-id the recording gives for the kernel (BUILD_ID feature), to find its kallsyms
  // in the cache; empty: use kallsyms_path.
  perf_data::build_id kernel_build_id;
  // Ask the servers DEBUGINFOD_URLS names for the debug file of a stripped object that got
  // samples and that no local file names (symbols/debuginfod_fetcher).
  bool debuginfod = true;
};

class symbolizer {
 public:
  explicit symbolizer(symbolizer_settings settings);

  // The (demangled) function containing `address` of `where`, or "" when unknown. The view
  // stays valid as long as the symbolizer. `recorded_id` is the build-id the recording saw for
  // the mapped file (empty when unknown).
  std::string_view function_at(const model::map& where, std::uint64_t address,
                               const perf_data::build_id& recorded_id);
  // The functions inlined at `address` (innermost first, demangled) inside the function
  // function_at names there, from DWARF where the file or its debug file has it; empty
  // otherwise. Valid as long as the symbolizer.
  std::span<const std::string> inlined_at(const model::map& where, std::uint64_t address,
                                          const perf_data::build_id& recorded_id);
  // What went wrong once (a debuginfod server down), each said once.
  std::vector<std::string> take_warnings();
  const symbols::debuginfod_fetcher& debuginfod() const noexcept { return debuginfod_; }
  // Whether the file of `where` had any symbols (asks function_at's cache; loads it if needed).
  bool has_symbols(const model::map& where, const perf_data::build_id& recorded_id);
  // The build-id of the file `where` maps as read from disk (or the cache), or empty.
  perf_data::build_id file_build_id(const model::map& where);
  // The ELF file the symbols of `where` come from (the mapped file, or its copy in the build-id
  // cache when the file on disk is another build or gone), or "" when there is none.
  const std::string& elf_path(const model::map& where, const perf_data::build_id& recorded_id);
  // The kernel functions containing `addresses` (sorted, ascending) from kallsyms, "" for
  // one it has no symbol for; nothing when no kallsyms can be read. One pass over the file.
  std::vector<std::string> kernel_functions(std::span<const std::uint64_t> addresses);

 private:
  struct file_symbols {
    std::optional<symbols::elf_symbol_table> table;
    std::string path;                                        // the file `table` was read from
    std::unordered_map<std::size_t, std::string> demangled;  // by symbol index, filled lazily
    // Code no symbol covers, named per function ("file+0xSTART") from its FDE (grouped_name).
    std::unique_ptr<symbols::object_cfi> cfi;  // opened at the first such address
    bool cfi_opened = false;
    std::unordered_map<std::uint64_t, std::string> grouped;  // by FDE start
    // Inlined functions (inlined_at), from the debug file's DWARF, else the file's own.
    std::string debug_path;  // the separate debug file the symbols came from, if any
    std::unique_ptr<symbols::object_dwarf> dwarf;
    bool dwarf_opened = false;
    std::unordered_map<std::uint64_t, std::vector<std::string>> inlined;  // by vaddr
  };

  file_symbols& symbols_of(const model::dso& object, const perf_data::build_id& recorded_id);
  std::string_view grouped_name(file_symbols& symbols, const model::dso& object,
                                std::uint64_t vaddr);
  void load_vdso(file_symbols& symbols, const perf_data::build_id& recorded_id);
  // Replaces the exported-only symbols of a stripped file with its debug file's, if any.
  void add_debug_symbols(file_symbols& symbols);
  bool use_debug_file(file_symbols& symbols, std::string path);
  // The recorded kernel's kallsyms in the cache if it is there, else settings_.kallsyms_path.
  const std::string& kallsyms_file();

  symbolizer_settings settings_;
  // Keyed by the dso itself (the machine keeps every dso): one load per dso, however many maps
  // and samples name it.
  std::unordered_map<const model::dso*, file_symbols> files_;
  std::optional<std::string> kallsyms_file_;  // chosen at first use
  symbols::debuginfod_fetcher debuginfod_;
};

// The demangled form of a C++ (Itanium ABI) name, or the name itself.
std::string demangle(const std::string& name);

// The kernel's text symbols in kallsyms text ("ADDRESS TYPE NAME [MODULE]" lines), sorted;
// data symbols and zero addresses (kptr_restrict) are left out.

}  // namespace arec::exporting
