#include "export/symbolizer.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "io/small_file.hpp"

namespace arec::exporting {
namespace {

std::string cache_path(const std::string& root, const io::build_id& id) {
  std::string hex = id.hex();
  return root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
}

bool is_text_type(char type) {
  return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

}  // namespace

std::string default_build_id_dir() {
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.debug";
  return {};
}

std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> plain{
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free};
  return status == 0 && plain ? std::string(plain.get()) : name;
}

std::vector<std::pair<std::uint64_t, std::string>> parse_kallsyms(std::string_view text) {
  std::vector<std::pair<std::uint64_t, std::string>> symbols;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    std::uint64_t address = 0;
    auto [after, error] = std::from_chars(line.data(), line.data() + line.size(), address, 16);
    std::size_t at = static_cast<std::size_t>(after - line.data());
    if (error != std::errc{} || address == 0 || at + 3 > line.size()) continue;
    if (!is_text_type(line[at + 1])) continue;
    std::string_view name = line.substr(at + 3);
    name = name.substr(0, name.find_first_of("\t "));
    if (!name.empty()) symbols.emplace_back(address, std::string(name));
  }
  std::stable_sort(symbols.begin(), symbols.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return symbols;
}

symbolizer::symbolizer(symbolizer_settings settings) : settings_(std::move(settings)) {}

symbolizer::file_symbols& symbolizer::symbols_of(const model::dso& object,
                                                 const io::build_id& recorded_id) {
  auto found = files_.find(&object);
  if (found != files_.end()) return found->second;
  file_symbols& symbols = files_[&object];
  symbols.table = io::read_elf_symbols(object.name().c_str());
  symbols.path = object.name();
  bool rebuilt = !recorded_id.empty() && symbols.table && !symbols.table->id.empty() &&
                 symbols.table->id != recorded_id;
  if ((!symbols.table || rebuilt) && !recorded_id.empty() && !settings_.build_id_dir.empty()) {
    // perf's cache: .build-id/xx/yyy links to the directory holding the file as "elf".
    std::string cached_path = cache_path(settings_.build_id_dir, recorded_id) + "/elf";
    auto cached = io::read_elf_symbols(cached_path.c_str());
    if (cached) {
      symbols.table = std::move(cached);
      symbols.path = std::move(cached_path);
      rebuilt = false;
    }
  }
  if (rebuilt) symbols.table.reset();  // the names of another build would be wrong names
  if (!symbols.table) symbols.path.clear();
  if (symbols.table) add_debug_symbols(*symbols.table);
  return symbols;
}

void symbolizer::add_debug_symbols(io::elf_symbol_table& table) const {
  if (table.full || table.id.empty() || settings_.debug_dir.empty()) return;
  std::string hex = table.id.hex();
  std::string path =
      settings_.debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  std::optional<io::elf_symbol_table> debug = io::read_elf_symbols(path.c_str());
  // The debug file's segments are the stripped file's; only its symbols are new.
  if (!debug || !debug->full || debug->id != table.id) return;
  table.symbols = std::move(debug->symbols);
  table.full = true;
}

std::string_view symbolizer::function_at(const model::map& where, std::uint64_t address,
                                         const io::build_id& recorded_id) {
  if (!where.object) return {};
  if (where.object->kind() != model::dso_kind::user) return kernel_function_at(address);
  file_symbols& symbols = symbols_of(*where.object, recorded_id);
  if (!symbols.table) return {};
  auto vaddr = symbols.table->vaddr_of_offset(address - where.start + where.pgoff);
  if (!vaddr) return {};
  const io::elf_symbol* symbol = symbols.table->find(*vaddr);
  if (!symbol) return {};
  std::size_t index = static_cast<std::size_t>(symbol - symbols.table->symbols.data());
  auto [entry, added] = symbols.demangled.try_emplace(index);
  if (added) entry->second = demangle(symbol->name);
  return entry->second;
}

bool symbolizer::has_symbols(const model::map& where, const io::build_id& recorded_id) {
  if (!where.object) return false;
  if (where.object->kind() != model::dso_kind::user) {
    load_kallsyms();
    return !kernel_.empty();
  }
  const file_symbols& symbols = symbols_of(*where.object, recorded_id);
  return symbols.table && !symbols.table->symbols.empty();
}

const std::string& symbolizer::elf_path(const model::map& where, const io::build_id& recorded_id) {
  static const std::string none;
  if (!where.object || where.object->kind() != model::dso_kind::user) return none;
  return symbols_of(*where.object, recorded_id).path;
}

io::build_id symbolizer::file_build_id(const model::map& where) {
  if (!where.object || where.object->kind() != model::dso_kind::user) return {};
  const file_symbols& symbols = symbols_of(*where.object, {});
  return symbols.table ? symbols.table->id : io::build_id{};
}

void symbolizer::load_kallsyms() {
  if (kernel_loaded_) return;
  kernel_loaded_ = true;
  std::optional<std::string> text;
  if (!settings_.kernel_build_id.empty() && !settings_.build_id_dir.empty())
    text = io::read_text_if_exists(settings_.build_id_dir + "/[kernel.kallsyms]/" +
                                   settings_.kernel_build_id.hex() + "/kallsyms");
  if (!text) text = io::read_text_if_exists(settings_.kallsyms_path);
  if (!text) return;
  for (auto& [start, name] : parse_kallsyms(*text)) kernel_.push_back({start, std::move(name)});
}

std::string_view symbolizer::kernel_function_at(std::uint64_t address) {
  load_kallsyms();
  auto after =
      std::upper_bound(kernel_.begin(), kernel_.end(), address,
                       [](std::uint64_t at, const kernel_symbol& s) { return at < s.start; });
  if (after == kernel_.begin()) return {};
  return std::prev(after)->name;
}

}  // namespace arec::exporting
