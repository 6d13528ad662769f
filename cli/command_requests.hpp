// command_requests: what a command line can ask for instead of running the command.
#pragma once

#include <string>

namespace arec::cli {

struct help_request {  // -h/--help: print `text` to stdout and exit 0
  std::string text;
};
struct version_request {};  // --version

}  // namespace arec::cli
