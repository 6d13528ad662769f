// temp_dir: a fresh directory under $TMPDIR (or /tmp) for one test's files, removed with
// everything in it when the owner goes away.
#pragma once

#include <string>

namespace arec::test {

class temp_dir {
 public:
  // Creates "<tmp>/arec-test-XXXXXX"; throws std::system_error when mkdtemp fails.
  temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  // Removes the tree; errors are ignored (a test must not fail while cleaning up).
  ~temp_dir();

  const std::string& path() const noexcept { return path_; }
  // The absolute path of `name` inside the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace arec::test
