#include "symbols/build_id_archive.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <optional>
#include <set>

#include "io/file_status.hpp"
#include "io/published_file.hpp"
#include "io/tar_writer.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::symbols {
namespace {

// The build-id's object directory relative to the cache root, from its .build-id link
// ("../../usr/bin/ls/<hex>" -> "usr/bin/ls/<hex>"), when the cache holds both.
std::optional<std::string> cached_object_dir(const std::string& root, const std::string& link) {
  std::array<char, 4096> target{};
  ssize_t length = ::readlink((root + "/" + link).c_str(), target.data(), target.size() - 1);
  if (length < 0) return std::nullopt;
  std::string relative(target.data(), static_cast<std::size_t>(length));
  constexpr std::string_view up = "../../";
  if (!relative.starts_with(up)) return std::nullopt;
  relative.erase(0, up.size());
  if (relative.starts_with("../") || relative.find("/../") != std::string::npos)
    return std::nullopt;  // outside the cache
  std::optional<struct stat> status = io::status_at(AT_FDCWD, root + "/" + relative, true);
  if (!status || !S_ISDIR(status->st_mode)) return std::nullopt;
  return relative;
}

}  // namespace

archive_contents write_build_id_archive(std::span<const perf_data::build_id_entry> entries,
                                        const std::string& cache_root, const std::string& output) {
  io::published_file file(output, io::publish_policy::replace);
  io::tar_writer tar(file.fd(), output);
  archive_contents contents;
  std::set<std::string> seen;
  for (const perf_data::build_id_entry& entry : entries) {
    if (entry.id.empty() || entry.id.is_of_unread_file()) continue;  // no object to pack
    std::string hex = entry.id.hex();
    if (!seen.insert(hex).second) continue;
    std::string link = build_id_link_name(hex);
    std::optional<std::string> object_dir = cached_object_dir(cache_root, link);
    if (!object_dir) {
      contents.missing.push_back(entry.filename + " (build-id " + hex + ")");
      continue;
    }
    tar.add(cache_root, link);
    contents.bytes += tar.add(cache_root, *object_dir);
    ++contents.objects;
  }
  tar.finish();
  if (contents.objects > 0) file.commit();
  return contents;
}

}  // namespace arec::symbols
