#include "host/users.hpp"

#include <pwd.h>

#include <array>
#include <charconv>

#include "base/usage_error.hpp"

namespace arec::host {

uid_t resolve_user(const std::string& user) {
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer;
  ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found) return found->pw_uid;
  // Not a name: perf then takes it as a uid, which must belong to a user too.
  uid_t uid = 0;
  const char* end = user.data() + user.size();
  auto [stop, ec] = std::from_chars(user.data(), end, uid);
  if (user.empty() || ec != std::errc{} || stop != end)
    throw base::usage_error("Invalid User: " + user);
  ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
  if (!found) throw base::usage_error("Problems obtaining information for user " + user);
  return found->pw_uid;
}

}  // namespace arec::host
