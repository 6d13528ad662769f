#include "export/pprof_writer.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/valid_utf8.hpp"
#include "export/profile.pb.h"

namespace arec::exporting {
namespace {

namespace pb = perftools::profiles;

void fill_value_type(pb::ValueType& out, const value_type& in) {
  out.set_type(in.type);
  out.set_unit(in.unit);
}

void add_samples(pb::Profile& out, const profile& in) {
  for (const profile_sample& sample : in.samples) {
    pb::Sample& encoded = *out.add_sample();
    for (std::uint64_t id : sample.location_ids) encoded.add_location_id(id);
    for (std::int64_t value : sample.values) encoded.add_value(value);
    for (const sample_label& label : sample.labels) {
      pb::Label& encoded_label = *encoded.add_label();
      encoded_label.set_key(label.key);
      if (label.str != 0)
        encoded_label.set_str(label.str);
      else
        encoded_label.set_num(label.num);
    }
  }
}

void add_tables(pb::Profile& out, const profile& in) {
  for (const profile_mapping& mapping : in.mappings) {
    pb::Mapping& encoded = *out.add_mapping();
    encoded.set_id(mapping.id);
    encoded.set_memory_start(mapping.memory_start);
    encoded.set_memory_limit(mapping.memory_limit);
    encoded.set_file_offset(mapping.file_offset);
    encoded.set_filename(mapping.filename);
    encoded.set_build_id(mapping.build_id);
    encoded.set_has_functions(mapping.has_functions);
  }
  for (const profile_location& location : in.locations) {
    pb::Location& encoded = *out.add_location();
    encoded.set_id(location.id);
    encoded.set_mapping_id(location.mapping_id);
    encoded.set_address(location.address);
    // pprof's order: the inlined functions innermost first, the function they are inlined into
    // last.
    for (std::uint64_t inlined : location.inlined_ids) encoded.add_line()->set_function_id(inlined);
    if (location.function_id != 0) {
      pb::Line& line = *encoded.add_line();
      line.set_function_id(location.function_id);
      if (location.line != 0) line.set_line(location.line);
    }
  }
  for (const profile_function& function : in.functions) {
    pb::Function& encoded = *out.add_function();
    encoded.set_id(function.id);
    encoded.set_name(function.name);
    encoded.set_system_name(function.name);
    encoded.set_filename(function.filename);
  }
  // proto3 strings: one that is not UTF-8 (a comm set to "\xff") would make the whole profile
  // unreadable to protobuf's parsers.
  for (const std::string& text : in.strings) out.add_string_table(base::valid_utf8(text));
}

std::int64_t metric_safe_name(profile& p, std::int64_t index) {
  std::string name = p.strings.at(static_cast<std::size_t>(index));
  bool changed = false;
  for (char& c : name) {
    bool fits = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == ':';
    if (!fits) c = '_', changed = true;
  }
  if (!changed) return index;
  auto found = std::find(p.strings.begin(), p.strings.end(), name);
  if (found != p.strings.end()) return found - p.strings.begin();
  p.strings.push_back(std::move(name));
  return static_cast<std::int64_t>(p.strings.size() - 1);
}

}  // namespace

void use_metric_safe_type_names(profile& p) {
  for (value_type& type : p.sample_types) type.type = metric_safe_name(p, type.type);
  p.period_type.type = metric_safe_name(p, p.period_type.type);
  p.default_sample_type = metric_safe_name(p, p.default_sample_type);
}

std::vector<std::byte> pprof_message(const profile& source) {
  pb::Profile out;
  for (const value_type& type : source.sample_types) fill_value_type(*out.add_sample_type(), type);
  add_samples(out, source);
  add_tables(out, source);
  out.set_time_nanos(source.time_nanos);
  out.set_duration_nanos(source.duration_nanos);
  fill_value_type(*out.mutable_period_type(), source.period_type);
  out.set_period(source.period);
  out.set_default_sample_type(source.default_sample_type);
  std::vector<std::byte> bytes(out.ByteSizeLong());
  if (!out.SerializeToArray(bytes.data(), static_cast<int>(bytes.size())))
    throw std::runtime_error("cannot encode the profile (over 2 GiB?)");
  return bytes;
}

std::vector<std::byte> gzip(const std::vector<std::byte>& data) {
  z_stream stream{};
  constexpr int gzip_window = 15 + 16;  // 32 KiB window, gzip header and trailer
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip_window, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::vector<std::byte> out(deflateBound(&stream, static_cast<uLong>(data.size())) + 32);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END)
    throw std::runtime_error("zlib: deflate failed (" + std::to_string(status) + ")");
  return out;
}

}  // namespace arec::exporting
