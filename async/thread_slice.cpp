#include "async/thread_slice.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace arec::async {

namespace {

// The first published layout of sched_attr (SCHED_ATTR_SIZE_VER0); glibc 2.36 has no wrapper
// and <linux/sched/types.h> clashes with <sched.h>.
struct sched_attributes {
  std::uint32_t size = sizeof(sched_attributes);
  std::uint32_t policy = 0;
  std::uint64_t flags = 0;
  std::int32_t nice = 0;
  std::uint32_t priority = 0;
  std::uint64_t runtime_ns = 0;  // the slice, for fair policies
  std::uint64_t deadline_ns = 0;
  std::uint64_t period_ns = 0;
};
static_assert(sizeof(sched_attributes) == 48);

constexpr std::uint64_t reset_on_fork = 0x01;  // SCHED_FLAG_RESET_ON_FORK

bool read_attributes(sched_attributes& attributes) {
  return ::syscall(SYS_sched_getattr, 0, &attributes, sizeof attributes, 0) == 0;
}

}  // namespace

std::string request_time_slice(std::chrono::microseconds slice) {
  sched_attributes attributes;
  if (!read_attributes(attributes)) return std::string("sched_getattr: ") + std::strerror(errno);
  if (attributes.policy != SCHED_OTHER && attributes.policy != SCHED_BATCH) return {};
  attributes.size = sizeof attributes;
  attributes.flags &= reset_on_fork;  // what getattr reports beside it is not a request
  attributes.runtime_ns = static_cast<std::uint64_t>(slice.count()) * 1000;
  if (::syscall(SYS_sched_setattr, 0, &attributes, 0) != 0)
    return std::string("sched_setattr: ") + std::strerror(errno);
  return {};
}

std::chrono::microseconds current_time_slice() {
  sched_attributes attributes;
  if (!read_attributes(attributes)) return {};
  return std::chrono::microseconds(attributes.runtime_ns / 1000);
}

}  // namespace arec::async
