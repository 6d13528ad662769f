#include "perf_data/pipe_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <span>
#include <vector>

#include "base/system_error.hpp"
#include "io/output_path.hpp"

namespace arec::perf_data {
namespace {

constexpr std::size_t chunk_bytes = 1 << 20;

}  // namespace

io::unique_fd spool_pipe_stream(int from, const std::string& name, const std::string& dir) {
  io::unique_fd spool = io::unique_fd::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  std::vector<std::byte> chunk(chunk_bytes);
  for (;;) {
    ssize_t got = base::retry_on_eintr([&] { return ::read(from, chunk.data(), chunk.size()); });
    if (got < 0) base::throw_errno("read", name);
    if (got == 0) return spool;
    io::write_all(spool.get(), std::span{chunk.data(), static_cast<std::size_t>(got)},
                  dir + " (copy of " + name + ")");
  }
}

}  // namespace arec::perf_data
