// archive_library: the libarchive entry points tar_writer calls, loaded when the first tar is
// written (base::shared_library), so that only `arec archive` maps libarchive and the libraries
// it brings (libxml2, ICU, nettle...: ~2 MB resident at start otherwise). Types and constants
// come from <archive.h>; libarchive.so.13's ABI is stable.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <cstddef>

namespace arec::io {

struct archive_functions {
  ::archive* (*write_new)() = nullptr;
  int (*write_free)(::archive*) = nullptr;
  int (*write_set_format_pax_restricted)(::archive*) = nullptr;
  int (*write_add_filter_bzip2)(::archive*) = nullptr;
  int (*write_open_fd)(::archive*, int fd) = nullptr;
  int (*write_header)(::archive*, ::archive_entry*) = nullptr;
  la_ssize_t (*write_data)(::archive*, const void*, std::size_t) = nullptr;
  int (*write_close)(::archive*) = nullptr;
  int (*errno_of)(::archive*) = nullptr;
  const char* (*error_string)(::archive*) = nullptr;
  ::archive_entry* (*entry_new)() = nullptr;
  void (*entry_free)(::archive_entry*) = nullptr;
  void (*entry_set_pathname)(::archive_entry*, const char*) = nullptr;
  void (*entry_copy_stat)(::archive_entry*, const struct stat*) = nullptr;
  void (*entry_set_nlink)(::archive_entry*, unsigned int) = nullptr;
  void (*entry_copy_symlink)(::archive_entry*, const char*) = nullptr;
  void (*entry_set_size)(::archive_entry*, la_int64_t) = nullptr;
};

// libarchive, loaded once per process (thread-safe; a failed load is tried again by the next
// call). Throws std::runtime_error saying what is missing.
const archive_functions& libarchive();

}  // namespace arec::io
