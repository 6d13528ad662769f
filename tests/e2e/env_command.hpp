// env_command: a command line run through env(1) with its environment changed, so a test can
// set AREC_SYSFS_ROOT or AREC_FORCE_PLAIN_IO for one child without touching its own environment.
#pragma once

#include <string>
#include <vector>

namespace arec::e2e {

// {"env", changes..., command...}: each change is passed to env as written, so "NAME=VALUE"
// sets a variable and the pair "-u", "NAME" removes one (the "-u" pairs first). command[0] must
// not contain '=' (env would take it for a setting): the tests pass absolute program paths.
std::vector<std::string> env_command(const std::vector<std::string>& changes,
                                     const std::vector<std::string>& command);

}  // namespace arec::e2e
