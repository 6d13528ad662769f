#include "io/replacing_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/system_error.hpp"

namespace arec::io {

replacing_file::replacing_file(const std::string& destination)
    : destination_(destination), temporary_path_(destination + ".arec-tmp.XXXXXX") {
  int raw = ::mkostemp(temporary_path_.data(), O_CLOEXEC);
  if (raw < 0) throw_errno("mkostemp", temporary_path_);
  fd_.reset(raw);
}

replacing_file::~replacing_file() {
  if (!renamed_) ::unlink(temporary_path_.c_str());
}

void replacing_file::commit() {
  if (::rename(temporary_path_.c_str(), destination_.c_str()) != 0)
    throw_errno("rename", temporary_path_ + " to " + destination_);
  renamed_ = true;
}

}  // namespace arec::io
