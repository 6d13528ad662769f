// Errors at the system-call boundary: one exception type that names the call and the object
// it acted on, so that the user reads e.g. "open /sys/.../online: No such file or directory".
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>

namespace arec::base {

// Throws std::system_error for `err` with the message "CALL OBJECT".
[[noreturn]] void throw_system_error(int err, std::string_view call, std::string_view object = {});

// Throws for the current errno.
[[noreturn]] inline void throw_errno(std::string_view call, std::string_view object = {}) {
  throw_system_error(errno, call, object);
}

// Returns `result` unless it is -1, in which case it throws for errno naming `call` and `object`.
template <typename Int>
Int check_syscall(Int result, std::string_view call, std::string_view object = {}) {
  if (result == -1) throw_errno(call, object);
  return result;
}

// Retries `op` while it fails with EINTR; returns its last result.
template <typename Op>
auto retry_on_eintr(Op&& op) {
  for (;;) {
    auto result = op();
    if (result != -1 || errno != EINTR) return result;
  }
}

}  // namespace arec::base
