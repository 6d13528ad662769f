// replacing_file: a file written under a temporary name next to its destination and renamed
// over it only when complete, so that a reader, a crash or a failure never leaves half a file
// at the destination (an older file there stays until the rename replaces it).
#pragma once

#include <string>

#include "io/unique_fd.hpp"

namespace arec::io {

class replacing_file {
 public:
  // Creates "DESTINATION.arec-tmp.XXXXXX" (mode 0600). Throws std::system_error naming it.
  explicit replacing_file(const std::string& destination);
  replacing_file(const replacing_file&) = delete;
  replacing_file& operator=(const replacing_file&) = delete;
  // Removes the temporary file unless commit() renamed it.
  ~replacing_file();

  int fd() const noexcept { return fd_.get(); }
  const std::string& temporary_path() const noexcept { return temporary_path_; }
  const std::string& destination() const noexcept { return destination_; }

  // Renames the file to its destination, replacing what is there. Throws std::system_error.
  void commit();

 private:
  std::string destination_;
  std::string temporary_path_;
  unique_fd fd_;
  bool renamed_ = false;
};

}  // namespace arec::io
