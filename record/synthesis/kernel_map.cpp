#include "record/synthesis/kernel_map.hpp"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/utsname.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "io/small_file.hpp"
#include "symbols/kallsyms.hpp"

namespace arec::record {

namespace {

std::optional<std::uint64_t> parse_hex(std::string_view text) {
  if (text.starts_with("0x")) text.remove_prefix(2);
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Splits off the next field separated by `separator`.
std::string_view next_field(std::string_view& text, char separator = ' ') {
  auto end = text.find(separator);
  std::string_view field = text.substr(0, end);
  text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  return field;
}

// Module names use '_' where file names may use '-' (snd-hda-intel.ko is snd_hda_intel).
bool same_module_name(std::string_view module, std::string_view file_stem) {
  if (module.size() != file_stem.size()) return false;
  for (std::size_t i = 0; i < module.size(); ++i) {
    char a = module[i] == '-' ? '_' : module[i];
    char b = file_stem[i] == '-' ? '_' : file_stem[i];
    if (a != b) return false;
  }
  return true;
}

struct module_map {
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  std::string path;  // empty until modules.dep names the file
};

std::vector<module_map> read_modules(const char* path) {
  std::vector<module_map> modules;
  io::small_file file = io::small_file::open_at(AT_FDCWD, path);
  if (!file) return modules;  // a kernel without module support has no /proc/modules
  char buffer[4096];
  io::line_reader lines{file, buffer};
  while (auto line = lines.next()) {
    auto module = parse_module_line(line->text);
    if (module && module->start != 0)
      modules.push_back({std::string{module->name}, module->start, module->size, {}});
  }
  std::sort(modules.begin(), modules.end(),
            [](const module_map& a, const module_map& b) { return a.start < b.start; });
  return modules;
}

// Fills module_map::path from modules.dep ("kernel/fs/x/y.ko.xz: deps", relative to its dir).
void find_module_files(std::vector<module_map>& modules, const char* modules_dep) {
  std::string dep_path;
  if (modules_dep) {
    dep_path = modules_dep;
  } else {
    utsname system{};
    if (::uname(&system) != 0) return;
    dep_path = std::string{"/lib/modules/"} + system.release + "/modules.dep";
  }
  std::string_view base_dir{dep_path};
  base_dir = base_dir.substr(0, base_dir.rfind('/') + 1);
  io::small_file file = io::small_file::open_at(AT_FDCWD, dep_path.c_str());
  if (!file) return;
  char buffer[8192];
  io::line_reader lines{file, buffer};
  while (auto line = lines.next()) {
    std::string_view file_path = line->text.substr(0, line->text.find(':'));
    std::string_view stem = file_path.substr(file_path.rfind('/') + 1);
    auto ko = stem.find(".ko");
    if (ko == std::string_view::npos) continue;
    stem = stem.substr(0, ko);
    for (auto& module : modules) {
      if (!module.path.empty() || !same_module_name(module.name, stem)) continue;
      module.path = file_path.starts_with('/') ? std::string{file_path}
                                               : std::string{base_dir} + std::string{file_path};
    }
  }
}

constexpr std::int32_t host_kernel_pid = -1;  // perf's HOST_KERNEL_ID

}  // namespace

std::optional<std::uint64_t> kernel_code_length(const char* iomem_path) {
  if (!iomem_path) return std::nullopt;
  io::small_file file = io::small_file::open_at(AT_FDCWD, iomem_path);
  if (!file) return std::nullopt;
  char buffer[4096];
  io::line_reader lines{file, buffer};
  while (auto line = lines.next()) {
    std::string_view text = line->text;
    text.remove_prefix(std::min(text.find_first_not_of(' '), text.size()));
    auto range = next_field(text);  // "01000000-02276507"
    if (next_field(text) != ":" || text != "Kernel code") continue;
    auto first = parse_hex(next_field(range, '-'));
    auto last = parse_hex(range);
    if (!first || !last || *last <= *first) return std::nullopt;  // zeros: addresses hidden
    return *last - *first + 1;
  }
  return std::nullopt;
}

std::optional<kernel_text> find_kernel_text(const char* kallsyms_path, const char* iomem_path) {
  std::optional<std::uint64_t> code_length = kernel_code_length(iomem_path);
  std::optional<std::uint64_t> text, stext, etext;
  bool readable =
      symbols::for_each_kallsyms_entry(kallsyms_path, [&](const symbols::kallsyms_entry& entry) {
        if (entry.name == "_text")
          text = entry.address;
        else if (entry.name == "_stext")
          stext = entry.address;
        else if (entry.name == "_etext")
          etext = entry.address;
        return !(text && (etext || code_length));
      });
  if (!readable) return std::nullopt;
  kernel_text result;
  if (text) {
    result.symbol = "_text";
    result.start = *text;
  } else if (stext) {
    result.symbol = "_stext";
    result.start = *stext;
  } else {
    return std::nullopt;
  }
  if (result.start == 0) return std::nullopt;  // kptr_restrict: every address reads as 0
  // iomem's resource starts at _text, so it gives _etext only from that symbol.
  if (text && code_length)
    result.end = *text + *code_length;
  else
    result.end = etext.value_or(0);
  return result;
}

std::optional<module_line> parse_module_line(std::string_view line) {
  module_line module;
  module.name = next_field(line);
  auto size = next_field(line);
  next_field(line);  // reference count
  next_field(line);  // dependents
  next_field(line);  // state
  auto address = parse_hex(next_field(line));
  if (module.name.empty() || !address) return std::nullopt;
  auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), module.size);
  if (ec != std::errc{} || end != size.data() + size.size()) return std::nullopt;
  module.start = *address;
  return module;
}

bool synthesize_kernel_maps(io::record_sink& sink, const synthesis_config& config,
                            const kernel_sources& sources) {
  std::optional<kernel_text> kernel =
      sources.text ? sources.text : find_kernel_text(sources.kallsyms, sources.iomem);
  if (!kernel) return false;
  auto modules = read_modules(sources.modules);
  find_module_files(modules, sources.modules_dep);

  std::uint64_t end = kernel->end;
  if (end <= kernel->start) {  // no _etext: perf ends the kernel at the next module, else at ~0
    end = ~std::uint64_t{0};
    for (const auto& module : modules)
      if (module.start > kernel->start) {
        end = module.start;
        break;
      }
  }
  perf_data::record_buffer record;
  char name[64];
  std::string_view prefix = "[kernel.kallsyms]";
  auto name_end = std::copy(prefix.begin(), prefix.end(), name);
  name_end = std::copy(kernel->symbol.begin(), kernel->symbol.end(), name_end);
  perf_data::mapping_record fields;
  fields.misc = PERF_RECORD_MISC_KERNEL;
  fields.pid = host_kernel_pid;
  fields.start = kernel->start;
  fields.len = end - kernel->start;
  fields.pgoff = kernel->start;
  fields.name = {name, static_cast<std::size_t>(name_end - name)};
  sink.write(perf_data::encode_mmap(record, fields, config.sample_id_size));

  for (const auto& module : modules) {
    fields.start = module.start;
    fields.len = module.size;
    fields.pgoff = 0;
    std::string bracketed;
    if (module.path.empty()) bracketed = "[" + module.name + "]";
    fields.name = module.path.empty() ? bracketed : module.path;
    sink.write(perf_data::encode_mmap(record, fields, config.sample_id_size));
  }
  return true;
}

}  // namespace arec::record
