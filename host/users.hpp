// users: -u USER resolved as perf resolves it (its target__parse_uid).
#pragma once

#include <sys/types.h>

#include <string>

namespace arec::host {

// A user name, else a number that is the uid of an existing user. Throws usage_error in perf's
// words: "Invalid User: NAME" for a name that is neither, "Problems obtaining information for
// user N" for a number no user has.
uid_t resolve_user(const std::string& user);

}  // namespace arec::host
