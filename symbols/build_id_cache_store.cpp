#include "symbols/build_id_cache_store.hpp"

#include <system_error>

#include "io/file_status.hpp"
#include "io/output_path.hpp"
#include "io/published_file.hpp"
#include "io/trusted_dir.hpp"
#include "io/unique_fd.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::symbols {

void store_in_build_id_cache(const std::string& root, const std::string& name,
                             const perf_data::build_id& id, std::span<const std::byte> image) {
  io::unique_fd root_fd = io::open_trusted_root(root);
  std::string hex = id.hex();
  std::string relative = build_id_object_dir("", name, hex).substr(1);
  io::unique_fd dir = io::open_below(root_fd.get(), relative, root);
  constexpr const char* leaf = "elf";
  if (!io::status_at(dir.get(), leaf, false)) {
    std::string shown = root + "/" + relative + "/" + leaf;
    io::published_file file(dir.get(), leaf, shown, io::publish_policy::new_only, 0644);
    io::write_all(file.fd(), image, shown);
    try {
      file.commit();
    } catch (const std::system_error& error) {
      // Stored meanwhile by another run: equal build-ids name equal contents.
      if (error.code() != std::errc::file_exists) throw;
    }
  }
  link_build_id(root_fd.get(), root, name, hex);
}

void link_build_id(int root_fd, const std::string& root, const std::string& name,
                   const std::string& hex) {
  std::string link = build_id_link_name(hex);
  std::size_t slash = link.rfind('/');
  io::unique_fd dir = io::open_below(root_fd, link.substr(0, slash), root);
  io::published_file::link_symbolically(build_id_link_target(name, hex), dir.get(),
                                        link.substr(slash + 1), root + "/" + link);
}

}  // namespace arec::symbols
