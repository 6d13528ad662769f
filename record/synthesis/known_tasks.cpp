#include "record/synthesis/known_tasks.hpp"

#include <set>

#include "perf_data/record_encoders.hpp"

namespace arec::record {

namespace {

void append(std::vector<std::byte>& out, std::span<const std::byte> record) {
  out.insert(out.end(), record.begin(), record.end());
}

void encode_maps(std::vector<std::byte>& out, const model::thread& task,
                 std::size_t sample_id_size) {
  perf_data::record_buffer buffer;
  for (const model::map& entry : task.address_space()->entries()) {
    perf_data::mapping_record fields;
    fields.pid = task.pid();
    fields.tid = task.pid();
    fields.start = entry.start;
    fields.len = entry.end - entry.start;
    fields.pgoff = entry.pgoff;
    if (entry.object) {
      const model::dso_id& id = entry.object->id();
      fields.major = id.major;
      fields.minor = id.minor;
      fields.inode = id.inode;
      fields.inode_generation = id.inode_generation;
    }
    fields.prot = entry.prot;
    fields.flags = entry.flags;
    // Anonymous memory keeps its place under perf's name for it: a JIT's code is there, and
    // perf report resolves it through /tmp/perf-PID.map only for a map named so.
    fields.name = entry.object ? std::string_view{entry.object->name()} : perf_data::anonymous_name;
    append(out, perf_data::encode_mmap2(buffer, fields, sample_id_size));
  }
}

}  // namespace

std::vector<std::byte> encode_known_tasks(const model::machine& machine,
                                          std::size_t sample_id_size) {
  std::vector<std::byte> out;
  std::set<const model::maps*> described;
  perf_data::record_buffer buffer;
  machine.tasks().for_each([&](const model::thread& task) {
    append(out, perf_data::encode_comm(buffer, static_cast<std::uint32_t>(task.pid()),
                                       static_cast<std::uint32_t>(task.tid()), task.comm(),
                                       sample_id_size));
    if (described.insert(task.address_space().get()).second) encode_maps(out, task, sample_id_size);
  });
  return out;
}

}  // namespace arec::record
