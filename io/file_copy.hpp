// file_copy: the plain file operations a file cache or a spool needs: directories made as
// needed, a file copied (keeping its holes), bytes written to a new file, a
// directory's names, a file removed. (Replacing a file atomically: io/owned_files.) Each
// failure throws std::system_error naming the call and the path.
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

// Creates `path` and every missing parent (like mkdir -p), `mode` before the umask.
void make_directories(const std::string& path, mode_t mode = 0755);

// Copies the regular file open as `from_fd` into the empty file `to_fd`, keeping its holes:
// only its data extents (SEEK_DATA/SEEK_HOLE) are written, and the size is set last. Returns
// the bytes written, or nullopt (having written at most `limit`) when the data is larger than
// `limit`. `from` and `to` name the files in errors.
std::optional<std::uint64_t> copy_sparse(int from_fd, const std::string& from, int to_fd,
                                         const std::string& to, std::uint64_t limit);

// Copies what `from_fd` reads until its end (procfs files, whose size reads as 0) into `to_fd`.
void copy_to_end(int from_fd, const std::string& from, int to_fd, const std::string& to);

// Creates `path` (which must not exist) holding `bytes`, with `mode` before the umask.
void write_new_file(const std::string& path, std::span<const std::byte> bytes, mode_t mode);

// The names in directory `dir` other than "." and ".." (unsorted); empty when it does not exist.
std::vector<std::string> directory_names(const std::string& dir);

// The size of file `path`, or nullopt when it does not exist.
std::optional<std::uint64_t> file_size(const std::string& path);

// Removes `path`; false when it was not there.
bool remove_file(const std::string& path);

// Removes directory `path` if it holds nothing; false when it holds something or is not there.
bool remove_empty_directory(const std::string& path);

}  // namespace arec::io
