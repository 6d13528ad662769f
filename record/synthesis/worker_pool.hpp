// worker_pool: runs one function on a few threads at once and waits for all of them. Used for
// synthesis, which is blocking /proc reads: plain std::jthreads suit it better than the
// streaming executors, which must stay free to drain rings meanwhile.
#pragma once

#include <functional>

namespace arec::record {

// Calls body(0) .. body(count - 1) on `count` threads, the caller's thread running body(0),
// and returns when all have returned. If any throws, the first exception (by worker index) is
// rethrown after all finished. count 0 is taken as 1.
void run_workers(unsigned count, const std::function<void(unsigned worker)>& body);

}  // namespace arec::record
