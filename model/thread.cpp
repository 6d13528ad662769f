#include "model/thread.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace arec::model {

thread::thread(pid_t pid, pid_t tid, std::shared_ptr<maps> address_space)
    : pid_(pid), tid_(tid), maps_(std::move(address_space)) {}

std::string thread::comm() const {
  base::exclusive_lock lock{mutex_};
  return std::string{comm_.data()};
}

void thread::set_comm(std::string_view name) {
  std::size_t size = std::min(name.size(), comm_capacity - 1);
  base::exclusive_lock lock{mutex_};
  // An empty view may have no data (nullptr), and memcpy from null is undefined even for 0.
  if (size > 0) std::memcpy(comm_.data(), name.data(), size);
  comm_[size] = '\0';
}

}  // namespace arec::model
