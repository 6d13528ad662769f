#include "export/folded_writer.hpp"

#include <map>
#include <string_view>

#include "base/valid_utf8.hpp"

namespace arec::exporting {
namespace {

bool is_count_type(const profile& source, const value_type& type) {
  return std::string_view(source.strings[static_cast<std::size_t>(type.type)])
      .ends_with("_samples");
}

std::string_view function_name(const profile& source, std::uint64_t function_id) {
  const profile_function& function = source.functions[function_id - 1];
  return source.strings[static_cast<std::size_t>(function.name)];
}

std::string_view comm_of(const profile& source, const profile_sample& sample) {
  for (const sample_label& label : sample.labels)
    if (label.str != 0 && source.strings[static_cast<std::size_t>(label.key)] == "comm")
      return source.strings[static_cast<std::size_t>(label.str)];
  return "[unknown]";
}

// A name as one frame of a line: a ';' would split it into two frames, a line end would start a
// line of someone else's making ("x 999;a;fake_frame 5521"). As FlameGraph's stackcollapse
// scripts do, ';' becomes ':'; control characters become '?'; bytes that are not UTF-8 become
// U+FFFD, as in the pprof and OTLP string tables.
void append_frame(std::string& out, std::string_view name) {
  std::string repaired;  // allocated only for a name that is not UTF-8
  if (!base::is_valid_utf8(name)) name = repaired = base::valid_utf8(name);
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    out += c == ';' ? ':' : byte < 0x20 || byte == 0x7f ? '?' : c;
  }
}

// A location's frames, root first: its function, then what was inlined into it, outermost first.
void append_frames(std::string& out, const profile& source, std::uint64_t location_id) {
  const profile_location& location = source.locations[location_id - 1];
  out += ';';
  if (location.function_id == 0) {
    out += "[unknown]";
    return;
  }
  append_frame(out, function_name(source, location.function_id));
  for (auto inlined = location.inlined_ids.rbegin(); inlined != location.inlined_ids.rend();
       ++inlined) {
    out += ';';
    append_frame(out, function_name(source, *inlined));
  }
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
    stack.clear();
    append_frame(stack, comm_of(source, sample));
    for (auto id = sample.location_ids.rbegin(); id != sample.location_ids.rend(); ++id)
      append_frames(stack, source, *id);
    lines[stack] += count;
  }
  std::string out;
  for (const auto& [line, count] : lines) out += line + ' ' + std::to_string(count) + '\n';
  return out;
}

}  // namespace arec::exporting
