// file_copy: the plain file operations a file cache needs: directories made as needed, a file
// hard-linked or else copied, bytes written to a new file. Each failure throws std::system_error
// naming the call and the path.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string>

namespace arec::io {

// Creates `path` and every missing parent (like mkdir -p), mode 0755 before the umask.
void make_directories(const std::string& path);

// Makes `to` (which must not exist) hold the content of `from`: a hard link when the file
// system allows one (no bytes copied), else a copy with `from`'s permission bits. Files whose
// size the kernel does not report (/proc/kallsyms) are copied to their end.
void link_or_copy(const std::string& from, const std::string& to);

// Creates `path` (which must not exist) holding `bytes`, with `mode` before the umask.
void write_new_file(const std::string& path, std::span<const std::byte> bytes, mode_t mode);

}  // namespace arec::io
