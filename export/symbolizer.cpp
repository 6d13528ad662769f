#include "export/symbolizer.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "host/mapped_file.hpp"
#include "io/file_copy.hpp"
#include "io/small_file.hpp"
#include "symbols/build_id_cache_layout.hpp"
#include "symbols/kernel_symbols.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::exporting {
namespace {

std::string cache_path(const std::string& root, const perf_data::build_id& id) {
  return symbols::build_id_link_path(root, id.hex());
}

}  // namespace

std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> plain{
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free};
  return status == 0 && plain ? std::string(plain.get()) : name;
}

symbolizer::symbolizer(symbolizer_settings settings) : settings_(std::move(settings)) {}

symbolizer::file_symbols& symbolizer::symbols_of(const model::dso& object,
                                                 const perf_data::build_id& recorded_id) {
  auto found = files_.find(&object);
  if (found != files_.end()) return found->second;
  file_symbols& symbols = files_[&object];
  if (object.name() == "[vdso]") {
    load_vdso(symbols, recorded_id);
    return symbols;
  }
  symbols.table = symbols::read_elf_symbols(object.name().c_str());
  symbols.path = object.name();
  bool rebuilt = !recorded_id.empty() && symbols.table && !symbols.table->id.empty() &&
                 symbols.table->id != recorded_id;
  if ((!symbols.table || rebuilt) && !recorded_id.empty() && !settings_.build_id_dir.empty()) {
    // perf's cache: .build-id/xx/yyy links to the directory holding the file as "elf".
    std::string cached_path = cache_path(settings_.build_id_dir, recorded_id) + "/elf";
    auto cached = symbols::read_elf_symbols(cached_path.c_str());
    if (cached) {
      symbols.table = std::move(cached);
      symbols.path = std::move(cached_path);
      rebuilt = false;
    }
  }
  if (rebuilt) symbols.table.reset();  // the names of another build would be wrong names
  // No build-id to check it by, but the path now holds another file than the one mapped (a
  // container's binary over a host path, a deploy): its names would be wrong names too.
  if (symbols.table && recorded_id.empty() && symbols.path == object.name() &&
      host::provably_another_file(object.name(), object.identity()))
    symbols.table.reset();
  if (!symbols.table) symbols.path.clear();
  if (symbols.table) add_debug_symbols(symbols);
  return symbols;
}

// perf's names for the vdso: the image it cached as [vdso]/<build-id>/vdso, else this process's
// own vdso when it is the recorded one (same kernel). Without a recorded build-id the image
// cannot be told from another kernel's, and it stays unnamed.
void symbolizer::load_vdso(file_symbols& symbols, const perf_data::build_id& recorded_id) {
  if (recorded_id.empty()) return;
  if (!settings_.build_id_dir.empty()) {
    std::string cached_path = cache_path(settings_.build_id_dir, recorded_id) + "/vdso";
    auto cached = symbols::read_elf_symbols(cached_path.c_str());
    if (cached && cached->id == recorded_id) {
      symbols.table = std::move(cached);
      symbols.path = std::move(cached_path);
      return;
    }
  }
  auto own = symbols::read_elf_symbols(symbols::own_vdso_image());
  if (own && own->id == recorded_id) symbols.table = std::move(own);
}

void symbolizer::add_debug_symbols(file_symbols& symbols) {
  symbols::elf_symbol_table& table = *symbols.table;
  if (table.full || table.id.empty()) return;
  if (!settings_.debug_dir.empty()) {
    std::string hex = table.id.hex();
    if (use_debug_file(symbols, settings_.debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" +
                                    hex.substr(2) + ".debug"))
      return;
  }
  // No local file names it: a debuginfod server may (only objects with samples get here).
  if (settings_.debuginfod && symbols::debuginfod_fetcher::configured())
    if (std::optional<std::string> fetched = debuginfod_.debuginfo(table.id))
      use_debug_file(symbols, std::move(*fetched));
}

bool symbolizer::use_debug_file(file_symbols& symbols, std::string path) {
  symbols::elf_symbol_table& table = *symbols.table;
  std::optional<symbols::elf_symbol_table> debug = symbols::read_elf_symbols(path.c_str());
  // The debug file's segments are the stripped file's; only its symbols are new.
  if (!debug || !debug->full || debug->id != table.id) return false;
  table.symbols = std::move(debug->symbols);
  table.full = true;
  symbols.debug_path = std::move(path);
  return true;
}

std::vector<std::string> symbolizer::take_warnings() {
  std::vector<std::string> warnings;
  if (std::string warning = debuginfod_.take_warning(); !warning.empty())
    warnings.push_back(std::move(warning));
  return warnings;
}

std::string_view symbolizer::function_at(const model::map& where, std::uint64_t address,
                                         const perf_data::build_id& recorded_id) {
  if (!where.object) return {};
  if (where.object->kind() != model::dso_kind::user) return {};  // kernel_functions()
  file_symbols& symbols = symbols_of(*where.object, recorded_id);
  if (!symbols.table) return {};
  auto vaddr = symbols.table->vaddr_of_offset(address - where.start + where.pgoff);
  if (!vaddr) return {};
  const symbols::elf_symbol* symbol = symbols.table->find(*vaddr);
  if (!symbol) return grouped_name(symbols, *where.object, *vaddr);
  std::size_t index = static_cast<std::size_t>(symbol - symbols.table->symbols.data());
  auto [entry, added] = symbols.demangled.try_emplace(index);
  if (added) entry->second = demangle(symbol->name);
  return entry->second;
}

// No symbol covers `vaddr`: the function is the FDE that does, named after the file and its
// start ("libz.so.1+0x2a40", the address addr2line and a backend symbolizer take), so its
// samples add up in one frame instead of one per address. Unnamed where no FDE covers it, or
// where the FDEs overlap: a grouping that could merge two functions would charge a wrong one.
std::string_view symbolizer::grouped_name(file_symbols& symbols, const model::dso& object,
                                          std::uint64_t vaddr) {
  std::optional<std::uint64_t> start = symbols.table->function_start(vaddr);
  if (!start || symbols.path.empty()) return {};
  if (!symbols.cfi_opened) {
    symbols.cfi_opened = true;
    try {
      symbols.cfi = symbols::object_cfi::open(symbols.path);
    } catch (const std::runtime_error&) {
      // No libdw: such code stays one location per address (chain completion says so).
    }
  }
  if (!symbols.cfi) return {};
  auto row = symbols.cfi->function_range(vaddr);
  if (!row || row->first < *start) return {};
  auto [entry, added] = symbols.grouped.try_emplace(*start);
  if (added) {
    std::string_view file = object.name();
    file = file.substr(file.rfind('/') + 1);
    char hex[2 + 16 + 1];
    auto end = std::to_chars(hex, hex + sizeof hex, *start, 16).ptr;
    entry->second.append(file).append("+0x").append(hex, end);
  }
  return entry->second;
}

std::span<const std::string> symbolizer::inlined_at(const model::map& where,
                                                    std::uint64_t address,
                                                    const perf_data::build_id& recorded_id) {
  if (!where.object || where.object->kind() != model::dso_kind::user) return {};
  file_symbols& symbols = symbols_of(*where.object, recorded_id);
  if (!symbols.table) return {};
  auto vaddr = symbols.table->vaddr_of_offset(address - where.start + where.pgoff);
  if (!vaddr || !symbols.table->find(*vaddr)) return {};  // only inside a function named by symbol
  if (!symbols.dwarf_opened) {
    symbols.dwarf_opened = true;
    const std::string& path = symbols.debug_path.empty() ? symbols.path : symbols.debug_path;
    try {
      if (!path.empty()) symbols.dwarf = symbols::object_dwarf::open(path);
    } catch (const std::runtime_error&) {
      // No libdw: no inlined frames (the chain completion's warning says libdw is missing).
    }
  }
  if (!symbols.dwarf) return {};
  auto [entry, added] = symbols.inlined.try_emplace(*vaddr);
  if (added)
    for (const std::string& name : symbols.dwarf->inlined_at(*vaddr))
      entry->second.push_back(demangle(name));
  return entry->second;
}

bool symbolizer::has_symbols(const model::map& where, const perf_data::build_id& recorded_id) {
  if (!where.object) return false;
  if (where.object->kind() != model::dso_kind::user) {
    return io::file_size(kallsyms_file()).has_value();  // named when the profile is finished
  }
  const file_symbols& symbols = symbols_of(*where.object, recorded_id);
  return symbols.table && !symbols.table->symbols.empty();
}

const std::string& symbolizer::elf_path(const model::map& where,
                                        const perf_data::build_id& recorded_id) {
  static const std::string none;
  if (!where.object || where.object->kind() != model::dso_kind::user) return none;
  return symbols_of(*where.object, recorded_id).path;
}

perf_data::build_id symbolizer::file_build_id(const model::map& where) {
  if (!where.object || where.object->kind() != model::dso_kind::user) return {};
  const file_symbols& symbols = symbols_of(*where.object, {});
  return symbols.table ? symbols.table->id : perf_data::build_id{};
}

const std::string& symbolizer::kallsyms_file() {
  if (kallsyms_file_) return *kallsyms_file_;
  // The cache's copy is of the recorded kernel, which need not be the running one.
  if (!settings_.kernel_build_id.empty() && !settings_.build_id_dir.empty()) {
    std::string cached = settings_.build_id_dir + "/[kernel.kallsyms]/" +
                         settings_.kernel_build_id.hex() + "/kallsyms";
    if (io::file_size(cached)) return kallsyms_file_.emplace(std::move(cached));
  }
  return kallsyms_file_.emplace(settings_.kallsyms_path);
}

std::vector<std::string> symbolizer::kernel_functions(std::span<const std::uint64_t> addresses) {
  auto names = symbols::kernel_function_names(kallsyms_file().c_str(), addresses);
  return names ? std::move(*names) : std::vector<std::string>(addresses.size());
}

}  // namespace arec::exporting
