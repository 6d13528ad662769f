// thread: one task the recording knows of: its ids, its command name, and the address space it
// shares with the other threads of its process (shared ownership: the maps outlive any one
// thread, and a thread removed from the table stays valid for whoever still holds it).
#pragma once

#include <sys/types.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "base/annotated_mutex.hpp"
#include "model/maps.hpp"

namespace arec::model {

class thread {
 public:
  // A task `tid` of process `pid` using the address space `address_space` (never null).
  thread(pid_t pid, pid_t tid, std::shared_ptr<maps> address_space);

  pid_t pid() const noexcept { return pid_; }
  pid_t tid() const noexcept { return tid_; }
  // The process's maps; the same object for every thread of the process.
  const std::shared_ptr<maps>& address_space() const noexcept { return maps_; }

  // The command name (at most 15 bytes, as the kernel keeps it).
  std::string comm() const AREC_EXCLUDES(mutex_);
  // Replaces the command name; longer names are cut to 15 bytes. Allocates nothing.
  void set_comm(std::string_view name) AREC_EXCLUDES(mutex_);

 private:
  const pid_t pid_;
  const pid_t tid_;
  const std::shared_ptr<maps> maps_;
  mutable base::mutex mutex_;
  static constexpr std::size_t comm_capacity = 16;  // TASK_COMM_LEN
  std::array<char, comm_capacity> comm_ AREC_GUARDED_BY(mutex_){};
};

}  // namespace arec::model
