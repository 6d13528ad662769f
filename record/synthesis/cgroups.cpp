#include "record/synthesis/cgroups.hpp"

#include <cstdint>
#include <string_view>

#include "io/cgroup_fs.hpp"
#include "io/perf_data/record_encoders.hpp"

namespace arec::record {

std::size_t synthesize_cgroups(io::record_sink& sink, const std::string& mount,
                               std::size_t sample_id_size) {
  io::perf::record_buffer buffer;
  std::size_t written = 0;
  io::walk_cgroups(mount, [&](std::uint64_t id, std::string_view path) {
    sink.write(io::perf::encode_cgroup(buffer, id, path, sample_id_size));
    ++written;
  });
  return written;
}

}  // namespace arec::record
