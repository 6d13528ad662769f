#include "io/archive_library.hpp"

#include "base/shared_library.hpp"

namespace arec::io {
namespace {

class loaded_archive {
 public:
  loaded_archive() : library_({"libarchive.so.13"}, "writing a tar archive (libarchive)") {
    auto& f = functions_;
    f.write_new = find<decltype(archive_write_new)>("archive_write_new");
    f.write_free = find<decltype(archive_write_free)>("archive_write_free");
    f.write_set_format_pax_restricted = find<decltype(archive_write_set_format_pax_restricted)>(
        "archive_write_set_format_pax_restricted");
    f.write_add_filter_bzip2 =
        find<decltype(archive_write_add_filter_bzip2)>("archive_write_add_filter_bzip2");
    f.write_open_fd = find<decltype(archive_write_open_fd)>("archive_write_open_fd");
    f.write_header = find<decltype(archive_write_header)>("archive_write_header");
    f.write_data = find<decltype(archive_write_data)>("archive_write_data");
    f.write_close = find<decltype(archive_write_close)>("archive_write_close");
    f.errno_of = find<decltype(archive_errno)>("archive_errno");
    f.error_string = find<decltype(archive_error_string)>("archive_error_string");
    f.entry_new = find<decltype(archive_entry_new)>("archive_entry_new");
    f.entry_free = find<decltype(archive_entry_free)>("archive_entry_free");
    f.entry_set_pathname = find<decltype(archive_entry_set_pathname)>("archive_entry_set_pathname");
    f.entry_copy_stat = find<decltype(archive_entry_copy_stat)>("archive_entry_copy_stat");
    f.entry_set_nlink = find<decltype(archive_entry_set_nlink)>("archive_entry_set_nlink");
    f.entry_copy_symlink = find<decltype(archive_entry_copy_symlink)>("archive_entry_copy_symlink");
    f.entry_set_size = find<decltype(archive_entry_set_size)>("archive_entry_set_size");
  }
  const archive_functions& functions() const { return functions_; }

 private:
  template <typename Function>
  Function* find(const char* name) const {
    return library_.function<Function>(name);
  }

  base::shared_library library_;
  archive_functions functions_;
};

}  // namespace

const archive_functions& libarchive() {
  static const loaded_archive loaded;  // C++ guards its initialization across threads
  return loaded.functions();
}

}  // namespace arec::io
