// record_sink: where producers of whole perf records (synthesis, the session's own records)
// put them. The sink copies what it needs before write() returns.
#pragma once

#include <cstddef>
#include <span>

namespace arec::io {

class record_sink {
 public:
  virtual ~record_sink() = default;
  // Appends one complete record (header included, size a multiple of 8 unless the type says
  // otherwise). Throws std::system_error when the underlying write fails.
  virtual void write(std::span<const std::byte> record) = 0;
};

}  // namespace arec::io
