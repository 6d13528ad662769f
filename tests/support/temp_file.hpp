// temp_file: an empty file, open for reading and writing, that a test writes and then hands by
// path to a reader or to perf; it goes away with its owner.
#pragma once

#include <string>

#include "io/unique_fd.hpp"
#include "support/temp_dir.hpp"

namespace arec::test {

class temp_file {
 public:
  // Creates "file" in a fresh temp_dir, mode 0600, close-on-exec (a command the test runs must
  // not hold it open); throws std::system_error when the directory or the file cannot be made.
  temp_file();

  // The absolute path, stable for the object's lifetime.
  const std::string& path() const noexcept { return path_; }
  // The read-write descriptor, positioned at offset 0 when created.
  int fd() const noexcept { return fd_.get(); }

 private:
  // Declared first so it outlives the descriptor: the file is closed, then its directory removed.
  temp_dir dir_;
  std::string path_;
  io::unique_fd fd_;
};

}  // namespace arec::test
