#include "support/temp_dir.hpp"

#include <stdlib.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "base/system_error.hpp"

namespace arec::test {

temp_dir::temp_dir() {
  const char* base = ::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/arec-test-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) base::throw_errno("mkdtemp", pattern);
  path_ = std::filesystem::absolute(buffer.data()).string();
}

temp_dir::~temp_dir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace arec::test
