// output_path: creating arec's output safely. An existing output is kept as PATH.old (as perf
// does); new files are created 0600 with O_EXCL|O_NOFOLLOW so a symlink planted at the path is
// never followed.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "io/unique_fd.hpp"

namespace arec::io {

// Renames an existing file, directory or symlink at `path` to `path`.old (replacing an older
// .old); a device or FIFO there stays (the output is written into it).
void keep_previous_output(const std::string& path);
// Removes a finished output: a file, or a --threads directory with its data files (arec's
// layout has no subdirectories). Nothing there is not an error; a failure throws naming it.
void remove_output(const std::string& path);
// Creates a new file for reading and writing; fails if anything exists at `path`.
unique_fd create_output_file(const std::string& path);
// Renames a finished output (a file, or a --threads directory) from `from` to `to`, replacing
// what is at `to`; throws "rename FROM to TO: ..." (a rotated or timestamped recording).
void rename_output(const std::string& from, const std::string& to);
// Creates a new directory PREFIX.XXXXXX (0700, a name nobody else has) and returns its path.
std::string create_private_directory(const std::string& prefix);
// Creates a new directory (0700); fails if anything exists at `path`.
void create_output_directory(const std::string& path);
// Writes all of `bytes` at `offset`, retrying short writes; throws naming `path`.
void write_all_at(int fd, const void* bytes, std::size_t size, std::uint64_t offset,
                  const std::string& path);
// Writes all of `bytes` at the descriptor's position (a pipe), retrying short writes; throws
// naming `path`.
void write_all(int fd, std::span<const std::byte> bytes, const std::string& path);
// Whether `fd` is a pipe (or FIFO): perf record writes its pipe format there by default.
bool is_pipe(int fd);

}  // namespace arec::io
