// thread_slice: asks the fair scheduler (EEVDF, Linux 6.12+) for shorter time slices for the
// calling thread. A shorter slice changes when a thread runs, not how much: its virtual
// deadline comes sooner, so once woken it waits less for the task that holds its CPU, and a
// task that preempts it gives the CPU back after one short slice. Threads it creates afterwards
// (io_uring's io-wq workers) inherit the slice.
#pragma once

#include <chrono>
#include <string>

namespace arec::async {

// Sets the calling thread's slice (sched_setattr's sched_runtime; the kernel clamps it to
// 0.1-100 ms), keeping its policy and nice. Threads under a real-time, deadline or idle policy
// are left alone. Older kernels accept and ignore the request. Returns an empty string, or
// "sched_setattr: <strerror>" when the kernel refused.
std::string request_time_slice(std::chrono::microseconds slice);

// The calling thread's slice as the kernel reports it (0 before 6.12).
std::chrono::microseconds current_time_slice();

}  // namespace arec::async
