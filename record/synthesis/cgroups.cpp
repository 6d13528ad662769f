#include "record/synthesis/cgroups.hpp"

#include <cstdint>
#include <string_view>

#include "host/cgroup_fs.hpp"
#include "perf_data/record_encoders.hpp"

namespace arec::record {

std::size_t synthesize_cgroups(io::record_sink& sink, const std::string& mount,
                               std::size_t sample_id_size) {
  perf_data::record_buffer buffer;
  std::size_t written = 0;
  host::walk_cgroups(mount, [&](std::uint64_t id, std::string_view path) {
    sink.write(perf_data::encode_cgroup(buffer, id, path, sample_id_size));
    ++written;
  });
  return written;
}

}  // namespace arec::record
