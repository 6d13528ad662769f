#include "env_command.hpp"

namespace arec::e2e {

std::vector<std::string> env_command(const std::vector<std::string>& changes,
                                     const std::vector<std::string>& command) {
  std::vector<std::string> argv{"env"};
  argv.insert(argv.end(), changes.begin(), changes.end());
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

}  // namespace arec::e2e
