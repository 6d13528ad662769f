// file_copy: the plain file operations a file cache or a spool needs: directories made as
// needed, a file hard-linked or else copied, bytes written to a new file or replaced atomically,
// a directory's names, a file removed. Each failure throws std::system_error naming the call and
// the path.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arec::io {

// Creates `path` and every missing parent (like mkdir -p), mode 0755 before the umask.
void make_directories(const std::string& path);

// Makes `to` (which must not exist) hold the content of `from`: a hard link when the file
// system allows one (no bytes copied), else a copy with `from`'s permission bits. Files whose
// size the kernel does not report (/proc/kallsyms) are copied to their end.
void link_or_copy(const std::string& from, const std::string& to);

// Creates `path` (which must not exist) holding `bytes`, with `mode` before the umask.
void write_new_file(const std::string& path, std::span<const std::byte> bytes, mode_t mode);

// Makes `dir`/`name` hold `bytes` (mode 0600), all or nothing: written to `dir`/.`name`.tmp,
// flushed to disk, renamed over `name`, and the directory flushed, so a crash leaves either no
// file, the whole file, or a ".tmp" leftover that remove_temporaries() deletes.
void replace_file_atomically(const std::string& dir, std::string_view name,
                             std::span<const std::byte> bytes);

// The names in directory `dir` other than "." and ".." (unsorted); empty when it does not exist.
std::vector<std::string> directory_names(const std::string& dir);

// The size of file `path`, or nullopt when it does not exist.
std::optional<std::uint64_t> file_size(const std::string& path);

// Removes `path`; false when it was not there.
bool remove_file(const std::string& path);

// Removes directory `path` if it holds nothing; false when it holds something or is not there.
bool remove_empty_directory(const std::string& path);

}  // namespace arec::io
