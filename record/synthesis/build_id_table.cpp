#include "record/synthesis/build_id_table.hpp"

#include <linux/perf_event.h>
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "host/mapped_file.hpp"
#include "io/file_status.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::record {
namespace {

// "/lib/modules/.../kernel/fs/ext4.ko.xz" or "[ext4]" -> "ext4"; sysfs spells '-' as '_'.
std::string module_name(std::string_view dso_name) {
  if (dso_name.starts_with('[') && dso_name.ends_with(']')) {
    dso_name = dso_name.substr(1, dso_name.size() - 2);
  } else {
    if (auto slash = dso_name.rfind('/'); slash != std::string_view::npos)
      dso_name.remove_prefix(slash + 1);
    if (auto dot = dso_name.find(".ko"); dot != std::string_view::npos)
      dso_name = dso_name.substr(0, dot);
  }
  std::string name{dso_name};
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// True when `path` on the host is the file open as `fd`.
bool path_leads_to(const std::string& path, int fd) {
  struct stat opened {};
  std::optional<struct stat> by_path;
  try {
    by_path = io::status_at(AT_FDCWD, path, true);
  } catch (const std::system_error&) {
    return false;  // a path arec cannot follow leads nowhere it can check
  }
  return by_path && ::fstat(fd, &opened) == 0 && by_path->st_dev == opened.st_dev &&
         by_path->st_ino == opened.st_ino;
}

// The build-id of a mapped file, and the file when its path no longer leads to it. A file that
// no candidate opens is marked unreachable: its process is gone and its path leads nowhere or
// to another file.
std::optional<perf_data::build_id> read_file_build_id(model::dso& object, io::unique_fd& kept) {
  io::unique_fd file = host::open_mapped_file(object.name(), object.place(), object.identity());
  if (!file) {
    object.mark_file_unreachable();
    return std::nullopt;
  }
  std::optional<perf_data::build_id> id = symbols::read_elf_build_id(file.get());
  if (id && !path_leads_to(object.name(), file.get())) kept = std::move(file);
  return id;
}

std::optional<perf_data::build_id> read_build_id(model::dso& object,
                                                 const build_id_sources& sources,
                                                 io::unique_fd& kept) {
  switch (object.kind()) {
    case model::dso_kind::kernel:
      return symbols::read_notes_file_build_id(sources.kernel_notes);
    case model::dso_kind::kernel_module: {
      std::string path = std::string{sources.modules_root} + "/" + module_name(object.name()) +
                         "/notes/.note.gnu.build-id";
      return symbols::read_notes_file_build_id(path.c_str());
    }
    case model::dso_kind::user:
      // The vdso is the same image in every 64-bit process: ours tells its build-id.
      if (object.name() == "[vdso]") return symbols::elf_image_build_id(symbols::own_vdso_image());
      if (!object.name().starts_with('/')) return std::nullopt;  // [heap], [stack], ...
      return read_file_build_id(object, kept);
  }
  return std::nullopt;
}

// An unread file gets an entry no file matches, so that perf does not take the file now at its
// path for it. Not where the same path has a build-id read from another mapping (a host's file
// and a container's at one path): perf 6.1 keeps one build-id per path, and that one names the
// samples of the mapping that was read.
void add_unread_files(model::machine& machine, std::vector<perf_data::build_id_entry>& entries) {
  std::vector<std::string> unread;
  for (const std::shared_ptr<model::dso>& object : machine.objects().all())
    if (object->kind() == model::dso_kind::user && object->file_unreachable() &&
        object->build_id().empty() && (unread.empty() || unread.back() != object->name()))
      unread.push_back(object->name());
  for (std::string& name : unread) {
    bool named =
        std::any_of(entries.begin(), entries.end(),
                    [&](const perf_data::build_id_entry& entry) { return entry.filename == name; });
    if (!named)
      entries.push_back(
          {PERF_RECORD_MISC_USER, perf_data::build_id::of_unread_file(), std::move(name)});
  }
}

}  // namespace

io::unique_fd read_build_id_once(model::dso& object, const build_id_sources& sources) {
  io::unique_fd kept;
  if (object.claim_build_id_read())
    if (auto id = read_build_id(object, sources, kept)) object.set_build_id(*id);
  return kept;
}

std::vector<perf_data::build_id_entry> collect_build_ids(model::machine& machine,
                                                         const build_id_sources& sources) {
  std::vector<perf_data::build_id_entry> entries;
  if (auto kernel = symbols::read_notes_file_build_id(sources.kernel_notes))
    entries.push_back({PERF_RECORD_MISC_KERNEL, *kernel, std::string{model::machine::kernel_name}});
  std::size_t first_other = entries.size();
  for (const std::shared_ptr<model::dso>& object : machine.objects().all()) {
    if (object->kind() == model::dso_kind::kernel) continue;  // listed first already
    read_build_id_once(*object, sources);  // those the background reader has not reached
    perf_data::build_id id = object->build_id();
    if (id.empty()) continue;
    std::uint16_t cpumode =
        object->kind() == model::dso_kind::user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
    // dsos are sorted by name: the same file seen by inode and by build-id is adjacent.
    bool duplicate = false;
    for (auto entry = entries.rbegin();
         entry != entries.rend() - static_cast<std::ptrdiff_t>(first_other) &&
         entry->filename == object->name();
         ++entry)
      duplicate = duplicate || entry->id == id;
    if (!duplicate) entries.push_back({cpumode, id, object->name()});
  }
  add_unread_files(machine, entries);
  return entries;
}

std::vector<unread_file> unread_sampled_files(model::machine& machine) {
  std::vector<unread_file> unread;
  std::string_view name;
  std::size_t files = 0, unread_here = 0;
  auto close_name = [&] {
    if (unread_here > 0) unread.push_back({std::string{name}, unread_here, files});
    files = unread_here = 0;
  };
  for (const std::shared_ptr<model::dso>& object : machine.objects().all()) {
    if (object->kind() != model::dso_kind::user) continue;
    if (object->name() != name) {
      close_name();
      name = object->name();
    }
    ++files;
    if (object->file_unreachable() && object->sampled() && object->build_id().empty())
      ++unread_here;
  }
  close_name();
  return unread;
}

}  // namespace arec::record
