#include "support/temp_file.hpp"

#include <fcntl.h>

namespace arec::test {

temp_file::temp_file()
    : path_(dir_.file("file")),
      fd_(io::unique_fd::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) {}

}  // namespace arec::test
