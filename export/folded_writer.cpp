#include "export/folded_writer.hpp"

#include <map>
#include <string_view>

namespace arec::exporting {
namespace {

bool is_count_type(const profile& source, const value_type& type) {
  return std::string_view(source.strings[static_cast<std::size_t>(type.type)])
      .ends_with("_samples");
}

std::string_view frame_name(const profile& source, std::uint64_t location_id) {
  const profile_location& location = source.locations[location_id - 1];
  if (location.function_id == 0) return "[unknown]";
  const profile_function& function = source.functions[location.function_id - 1];
  return source.strings[static_cast<std::size_t>(function.name)];
}

std::string_view comm_of(const profile& source, const profile_sample& sample) {
  for (const sample_label& label : sample.labels)
    if (label.str != 0 && source.strings[static_cast<std::size_t>(label.key)] == "comm")
      return source.strings[static_cast<std::size_t>(label.str)];
  return "[unknown]";
}

}  // namespace

std::string folded_text(const profile& source) {
  std::vector<std::size_t> counts;
  for (std::size_t i = 0; i < source.sample_types.size(); ++i)
    if (is_count_type(source, source.sample_types[i])) counts.push_back(i);
  std::map<std::string, std::int64_t> lines;
  std::string stack;
  for (const profile_sample& sample : source.samples) {
    std::int64_t count = 0;
    for (std::size_t column : counts) count += sample.values[column];
    if (count == 0) continue;
    stack.assign(comm_of(source, sample));
    for (auto id = sample.location_ids.rbegin(); id != sample.location_ids.rend(); ++id) {
      stack += ';';
      stack += frame_name(source, *id);
    }
    lines[stack] += count;
  }
  std::string out;
  for (const auto& [line, count] : lines) out += line + ' ' + std::to_string(count) + '\n';
  return out;
}

}  // namespace arec::exporting
