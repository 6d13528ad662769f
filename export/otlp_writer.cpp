#include "export/otlp_writer.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "base/valid_utf8.hpp"
#include "export/otlp/profiles_service.pb.h"

namespace arec::exporting {
namespace {

namespace pb = opentelemetry::proto::profiles::v1development;
using request_message =
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;

constexpr std::size_t no_column = std::numeric_limits<std::size_t>::max();

// The sample labels profile_builder writes, and the semantic conventions' names for them. The
// cgroup path has no convention (container.id names the container) and is left out.
struct sample_attribute {
  std::string_view label;
  std::string_view key;
};
constexpr sample_attribute sample_attributes[] = {{"pid", "process.pid"},
                                                  {"tid", "thread.id"},
                                                  {"comm", "thread.name"},
                                                  {"cpu", "cpu.logical_number"},
                                                  {"container_id", "container.id"}};

// One event's columns in the profile: the builder writes "<event>_samples"/count, then
// "<event>"/<unit> (its summed period).
struct event_columns {
  std::string name, unit;
  std::size_t count = no_column;
  std::size_t weight = no_column;
};

std::vector<event_columns> events_of(const profile& source) {
  const auto& types = source.sample_types;
  auto text = [&](std::int64_t index) {
    return source.strings.at(static_cast<std::size_t>(index));
  };
  std::vector<event_columns> events;
  for (std::size_t i = 0; i < types.size(); ++i) {
    event_columns event{text(types[i].type), text(types[i].unit), no_column, i};
    if (i + 1 < types.size() && event.name == text(types[i + 1].type) + "_samples") {
      event = {text(types[i + 1].type), text(types[i + 1].unit), i, i + 1};
      ++i;
    }
    events.push_back(std::move(event));
  }
  return events;
}

class request_encoder {
 public:
  explicit request_encoder(const profile& source)
      : source_(source), dictionary_(*request_.mutable_dictionary()) {
    add_strings();
    add_zero_entries();
    add_functions();
    add_mappings();
    add_locations();
    add_sample_attributes();
  }

  std::vector<std::byte> encode(const otlp_resource& resource) {
    pb::ResourceProfiles& resource_profiles = *request_.add_resource_profiles();
    for (const otlp_attribute& attribute : resource.attributes) {
      auto* added = resource_profiles.mutable_resource()->add_attributes();
      added->set_key(base::valid_utf8(attribute.key));
      added->mutable_value()->set_string_value(base::valid_utf8(attribute.value));
    }
    pb::ScopeProfiles& scope = *resource_profiles.add_scope_profiles();
    scope.mutable_scope()->set_name("arec");
    for (const event_columns& event : events_of(source_)) add_profile(scope, event);
    std::vector<std::byte> bytes(request_.ByteSizeLong());
    if (!request_.SerializeToArray(bytes.data(), static_cast<int>(bytes.size())))
      throw std::runtime_error("cannot encode the OTLP request (over 2 GiB?)");
    return bytes;
  }

 private:
  static std::int32_t index(int size) { return static_cast<std::int32_t>(size); }

  // Every string of the message is UTF-8 (proto3: one that is not makes the whole request
  // unreadable), repaired by base::valid_utf8 on its way in.
  std::int32_t intern(const std::string& text) {
    std::string valid = base::valid_utf8(text);
    auto [found, added] = strings_.try_emplace(valid, index(dictionary_.string_table_size()));
    if (added) dictionary_.add_string_table(std::move(valid));
    return found->second;
  }

  std::int32_t attribute(std::string_view key, const std::string* text, std::int64_t number) {
    std::int32_t key_index = intern(std::string(key));
    auto identity = std::make_tuple(key_index, text != nullptr, text ? intern(*text) : number);
    auto [found, added] =
        attributes_.try_emplace(identity, index(dictionary_.attribute_table_size()));
    if (!added) return found->second;
    pb::KeyValueAndUnit& entry = *dictionary_.add_attribute_table();
    entry.set_key_strindex(key_index);
    if (text)
      entry.mutable_value()->set_string_value(
          dictionary_.string_table(static_cast<int>(std::get<2>(identity))));
    else
      entry.mutable_value()->set_int_value(number);
    return found->second;
  }

  // The profile's own string table first (its string 0 is ""), so its indices stay as they are.
  void add_strings() {
    if (source_.strings.empty()) intern("");
    for (const std::string& text : source_.strings) {
      std::string valid = base::valid_utf8(text);
      strings_.try_emplace(valid, index(dictionary_.string_table_size()));
      dictionary_.add_string_table(std::move(valid));
    }
  }

  // Entry 0 of every table is its type's zero value: index 0 means "none".
  void add_zero_entries() {
    dictionary_.add_mapping_table();
    dictionary_.add_location_table();
    dictionary_.add_function_table();
    dictionary_.add_link_table();
    dictionary_.add_attribute_table();
    dictionary_.add_stack_table();
  }

  void add_functions() {
    for (const profile_function& function : source_.functions) {
      function_index_[function.id] = index(dictionary_.function_table_size());
      pb::Function& added = *dictionary_.add_function_table();
      added.set_name_strindex(static_cast<std::int32_t>(function.name));
      added.set_system_name_strindex(static_cast<std::int32_t>(function.name));
      added.set_filename_strindex(static_cast<std::int32_t>(function.filename));
    }
  }

  void add_mappings() {
    for (const profile_mapping& mapping : source_.mappings) {
      mapping_index_[mapping.id] = index(dictionary_.mapping_table_size());
      if (mapping.kernel) kernel_mappings_.insert(mapping.id);
      pb::Mapping& added = *dictionary_.add_mapping_table();
      added.set_memory_start(mapping.memory_start);
      added.set_memory_limit(mapping.memory_limit);
      added.set_file_offset(mapping.file_offset);
      added.set_filename_strindex(static_cast<std::int32_t>(mapping.filename));
      if (mapping.build_id != 0) {
        const std::string& id = source_.strings.at(static_cast<std::size_t>(mapping.build_id));
        added.add_attribute_indices(attribute("process.executable.build_id.gnu", &id, 0));
      }
    }
  }

  void add_locations() {
    const std::string kernel = "kernel";
    for (const profile_location& location : source_.locations) {
      location_index_[location.id] = index(dictionary_.location_table_size());
      pb::Location& added = *dictionary_.add_location_table();
      if (auto mapping = mapping_index_.find(location.mapping_id); mapping != mapping_index_.end())
        added.set_mapping_index(mapping->second);
      added.set_address(location.address);
      // As in pprof: inlined functions innermost first, their caller last.
      for (std::uint64_t inlined : location.inlined_ids)
        if (auto function = function_index_.find(inlined); function != function_index_.end())
          added.add_lines()->set_function_index(function->second);
      if (auto function = function_index_.find(location.function_id);
          function != function_index_.end()) {
        auto& line = *added.add_lines();
        line.set_function_index(function->second);
        if (location.line != 0) line.set_line(location.line);
      }
      if (kernel_mappings_.contains(location.mapping_id))
        added.add_attribute_indices(attribute("profile.frame.type", &kernel, 0));
    }
  }

  void add_sample_attributes() {
    std::unordered_map<std::int64_t, std::string_view> keys;  // pprof label key -> attribute key
    for (const sample_attribute& known : sample_attributes) {
      if (auto key = strings_.find(std::string(known.label)); key != strings_.end())
        keys.emplace(key->second, known.key);
    }
    for (const profile_sample& sample : source_.samples) {
      std::vector<std::int32_t>& indices = sample_attributes_.emplace_back();
      for (const sample_label& label : sample.labels) {
        auto key = keys.find(label.key);
        if (key == keys.end()) continue;
        const std::string* text =
            label.str != 0 ? &source_.strings.at(static_cast<std::size_t>(label.str)) : nullptr;
        indices.push_back(attribute(key->second, text, label.num));
      }
    }
  }

  std::int32_t stack_of(const std::vector<std::uint64_t>& location_ids) {
    std::string key(reinterpret_cast<const char*>(location_ids.data()),
                    location_ids.size() * sizeof(std::uint64_t));
    auto [found, added] =
        stacks_.try_emplace(std::move(key), index(dictionary_.stack_table_size()));
    if (!added) return found->second;
    pb::Stack& stack = *dictionary_.add_stack_table();
    for (std::uint64_t id : location_ids) {
      auto location = location_index_.find(id);
      stack.add_location_indices(location == location_index_.end() ? 0 : location->second);
    }
    return found->second;
  }

  std::int64_t column_sum(std::size_t column) const {
    std::int64_t sum = 0;
    for (const profile_sample& sample : source_.samples)
      if (column < sample.values.size()) sum += sample.values[column];
    return sum;
  }

  // The profile's period when this event is the one it describes, else the event's mean period.
  std::int64_t period_of(const event_columns& event) const {
    if (source_.strings.at(static_cast<std::size_t>(source_.period_type.type)) == event.name)
      return source_.period;
    std::int64_t count = event.count == no_column ? 0 : column_sum(event.count);
    return count == 0 ? 0 : column_sum(event.weight) / count;
  }

  void set_type(pb::ValueType& type, const std::string& name, const std::string& unit) {
    type.set_type_strindex(intern(name));
    type.set_unit_strindex(intern(unit));
  }

  void add_profile(pb::ScopeProfiles& scope, const event_columns& event) {
    pb::Profile added;
    std::size_t column = event.weight;
    if (event.name == "offcpu-time") {
      set_type(*added.mutable_sample_type(), "off_cpu", "nanoseconds");
    } else if (event.unit == "nanoseconds" && event.count != no_column) {
      // What OpenTelemetry's eBPF profiler sends for CPU time, and Pyroscope reads as process_cpu.
      set_type(*added.mutable_sample_type(), "samples", "count");
      set_type(*added.mutable_period_type(), "cpu", "nanoseconds");
      added.set_period(period_of(event));
      column = event.count;
    } else {
      set_type(*added.mutable_sample_type(), event.name, event.unit);
      set_type(*added.mutable_period_type(), event.name, event.unit);
      added.set_period(period_of(event));
    }
    added.set_time_unix_nano(static_cast<std::uint64_t>(source_.time_nanos));
    added.set_duration_nano(static_cast<std::uint64_t>(source_.duration_nanos));
    for (std::size_t i = 0; i < source_.samples.size(); ++i) {
      const profile_sample& sample = source_.samples[i];
      if (column >= sample.values.size() || sample.values[column] == 0) continue;
      pb::Sample& encoded = *added.add_samples();
      encoded.set_stack_index(stack_of(sample.location_ids));
      for (std::int32_t attribute_index : sample_attributes_[i])
        encoded.add_attribute_indices(attribute_index);
      encoded.add_values(sample.values[column]);
    }
    if (added.samples_size() > 0) *scope.add_profiles() = std::move(added);
  }

  const profile& source_;
  request_message request_;
  pb::ProfilesDictionary& dictionary_;
  std::unordered_map<std::string, std::int32_t> strings_;
  std::map<std::tuple<std::int32_t, bool, std::int64_t>, std::int32_t> attributes_;
  std::unordered_map<std::string, std::int32_t> stacks_;  // location ids as bytes -> index
  std::unordered_map<std::uint64_t, std::int32_t> mapping_index_, location_index_, function_index_;
  std::unordered_set<std::uint64_t> kernel_mappings_;
  std::vector<std::vector<std::int32_t>> sample_attributes_;  // per sample of source_
};

}  // namespace

std::vector<std::byte> otlp_request(const profile& source, const otlp_resource& resource) {
  return request_encoder(source).encode(resource);
}

}  // namespace arec::exporting
