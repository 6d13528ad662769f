// Decoder for perfparser 4.12 ("hotspot-perfparser" of hotspot 1.3.0) output.
//
// Record payloads (after the little-endian uint32 size prefix), all fields
// big-endian QDataStream encodings (i32/u32 = 4 bytes, u64 = 8, bool = 1 byte
// 0/1, QByteArray = u32 length + bytes with 0xffffffff meaning null, QString =
// u32 byte length + UTF-16BE, QList/QVector = u32 count + elements, float =
// 8-byte IEEE double because QDataStream defaults to DoublePrecision):
//
//   0 ThreadStart            i32 pid, i32 tid, u64 time, u32 cpu, i32 ppid
//   1 ThreadEnd              i32 pid, i32 tid, u64 time, u32 cpu
//   2 Command                i32 pid, i32 tid, u64 time, u32 cpu, i32 commStringId
//   3 LocationDefinition     i32 id, u64 address, i32 fileStringId, u32 pid,
//                            i32 line, i32 column, i32 parentLocationId
//   4 SymbolDefinition       i32 id (= a location id), i32 nameStringId,
//                            i32 binaryStringId, i32 pathStringId, bool isKernel
//   5 StringDefinition       i32 id, QByteArray string
//   6 LostDefinition         i32 pid, i32 tid, u64 time, u32 cpu
//   7 FeaturesDefinition     QByteArray hostName, osRelease, version, arch;
//                            u32 nrCpusOnline, nrCpusAvailable; QByteArray cpuDesc,
//                            cpuId; u64 totalMem; QList<QByteArray> cmdline;
//                            QList<{i32 pid, QByteArray id, QByteArray fileName}> buildIds;
//                            QList<QByteArray> siblingCores, siblingThreads;
//                            QList<{u32 nodeId, u64 memTotal, u64 memFree, QByteArray cpus}> numa;
//                            QList<{u32 type, QByteArray name}> pmuMappings;
//                            QList<{QByteArray name, u32 leaderIndex, u32 numMembers}> groupDescs
//   8 Error                  i32 code, QString message
//   9 Progress               float (serialised as 8-byte double)
//  10 TracePointFormat       i32 id, i32 systemStringId, i32 nameStringId, u32 flags
//  11 AttributesDefinition   i32 id, u32 type, u64 config, i32 nameStringId,
//                            bool usesFrequency, u64 frequencyOrPeriod
//  12 ContextSwitchDefinition i32 pid, i32 tid, u64 time, u32 cpu, bool switchOut
//  13 Sample                 i32 pid, i32 tid, u64 time, u32 cpu,
//                            QVector<i32> frames (location ids, leaf first),
//                            u8 numGuessedFrames,
//                            QVector<QPair<i32 attributeId, u64 cost>> costs
//  14 TracePointSample       Sample fields, then QHash<i32, QVariant> trace data
//
// String ids -1 mean "no string" (perfparser never defines empty strings).
#include "hotspot_stream.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace arec::test {
namespace {

constexpr std::size_t magic_size = 12;  // "QPERFSTREAM" plus its terminating NUL
constexpr std::size_t header_size = magic_size + 4;
constexpr char stream_magic[magic_size + 1] = "QPERFSTREAM";

// QDataStream versions whose encoding of the fields above is identical:
// from Qt_4_6 (12; floats written as doubles) up to Qt_6_0..Qt_6_6 (20).
// Qt_6_7 (21) changed how large container sizes are written, so refuse it
// rather than silently misread.
constexpr std::int32_t min_stream_version = 12;
constexpr std::int32_t max_stream_version = 20;

constexpr std::uint32_t null_size = 0xffffffffU;
constexpr std::string_view unknown_symbol = "[unknown]";

std::uint32_t read_le_u32(std::span<const std::byte> bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value |= std::to_integer<std::uint32_t>(bytes[i]) << (8 * i);
  return value;
}

void append_utf8(std::string& out, char32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xc0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xe0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code_point & 0x3f));
  }
}

// QString payloads are UTF-16BE; unpaired surrogates become U+FFFD so the
// result is always valid UTF-8.
std::string utf16be_to_utf8(std::span<const std::byte> bytes) {
  std::string out;
  const auto unit_at = [&](std::size_t i) {
    return static_cast<char16_t>((std::to_integer<unsigned>(bytes[2 * i]) << 8) |
                                 std::to_integer<unsigned>(bytes[2 * i + 1]));
  };
  const std::size_t units = bytes.size() / 2;
  for (std::size_t i = 0; i < units; ++i) {
    const char16_t unit = unit_at(i);
    const bool high = unit >= 0xd800 && unit < 0xdc00;
    const bool low = unit >= 0xdc00 && unit < 0xe000;
    if (high && i + 1 < units && unit_at(i + 1) >= 0xdc00 && unit_at(i + 1) < 0xe000) {
      const char16_t next = unit_at(++i);
      append_utf8(out, 0x10000 + ((char32_t(unit) - 0xd800) << 10) + (char32_t(next) - 0xdc00));
    } else if (high || low) {
      append_utf8(out, 0xfffd);
    } else {
      append_utf8(out, unit);
    }
  }
  return out;
}

// Reads big-endian QDataStream primitives from one record payload. Failure is
// sticky: after the first bad read every read yields zero/empty and ok() stays
// false, so a record can be decoded straight through and checked once.
class payload_reader {
 public:
  explicit payload_reader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  bool ok() const { return failure_.empty(); }
  const std::string& failure() const { return failure_; }
  bool at_end() const { return pos_ == bytes_.size(); }
  std::size_t position() const { return pos_; }

  void fail(std::string message) {
    if (ok()) failure_ = std::move(message);
  }

  std::uint8_t u8() { return static_cast<std::uint8_t>(big_endian(1)); }
  bool boolean() { return u8() != 0; }  // QDataStream writes bool as one 0/1 byte
  std::uint32_t u32() { return static_cast<std::uint32_t>(big_endian(4)); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::uint64_t u64() { return big_endian(8); }

  // QByteArray; a null array (size 0xffffffff) reads as empty.
  std::string byte_array() {
    const auto data = sized_block();
    return std::string(reinterpret_cast<const char*>(data.data()), data.size());
  }

  // QString; the size prefix counts bytes of UTF-16BE.
  std::string qstring() {
    const auto data = sized_block();
    if (data.size() % 2 != 0) fail("QString with odd byte length");
    return ok() ? utf16be_to_utf8(data) : std::string{};
  }

  // QList/QVector element count. Checked against the bytes left so a bogus
  // count can neither drive a huge allocation nor a long loop.
  std::size_t container_size(std::size_t min_element_bytes) {
    const std::uint32_t count = u32();
    if (ok() && count > remaining() / min_element_bytes) {
      fail("container of " + std::to_string(count) + " elements exceeds record");
      return 0;
    }
    return ok() ? count : 0;
  }

  // Consumes everything left, for trailing data we deliberately ignore.
  void skip_rest() { pos_ = bytes_.size(); }

 private:
  std::size_t remaining() const { return bytes_.size() - pos_; }

  std::span<const std::byte> take(std::size_t count) {
    if (!ok()) return {};
    if (count > remaining()) {
      fail("read of " + std::to_string(count) + " bytes at payload offset " + std::to_string(pos_) +
           " past end of record");
      return {};
    }
    const auto result = bytes_.subspan(pos_, count);
    pos_ += count;
    return result;
  }

  std::uint64_t big_endian(std::size_t width) {
    std::uint64_t value = 0;
    for (const std::byte b : take(width)) value = (value << 8) | std::to_integer<std::uint64_t>(b);
    return value;
  }

  std::span<const std::byte> sized_block() {
    const std::uint32_t size = u32();
    if (!ok() || size == null_size) return {};
    return take(size);
  }

  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  std::string failure_;
};

// The pid/tid/time/cpu prefix shared by task events and samples.
struct record_prefix {
  std::int32_t pid = 0;
  std::int32_t tid = 0;
  std::uint64_t time = 0;
};

record_prefix read_record_prefix(payload_reader& in) {
  record_prefix prefix;
  prefix.pid = in.i32();
  prefix.tid = in.i32();
  prefix.time = in.u64();
  in.u32();  // cpu
  return prefix;
}

void skip_byte_array_list(payload_reader& in) {
  const std::size_t count = in.container_size(4);
  for (std::size_t i = 0; i < count && in.ok(); ++i) in.byte_array();
}

// Decoded in full, although unused, so that a layout mismatch shows up as a
// record that is not consumed exactly.
void skip_features(payload_reader& in) {
  for (int i = 0; i < 4; ++i) in.byte_array();  // hostName, osRelease, version, arch
  in.u32();                                     // nrCpusOnline
  in.u32();                                     // nrCpusAvailable
  in.byte_array();                              // cpuDesc
  in.byte_array();                              // cpuId
  in.u64();                                     // totalMem
  skip_byte_array_list(in);                     // cmdline
  for (std::size_t n = in.container_size(12); n > 0 && in.ok(); --n) {
    in.i32();         // buildId pid
    in.byte_array();  // raw build id
    in.byte_array();  // file name
  }
  skip_byte_array_list(in);  // siblingCores
  skip_byte_array_list(in);  // siblingThreads
  for (std::size_t n = in.container_size(24); n > 0 && in.ok(); --n) {
    in.u32();         // nodeId
    in.u64();         // memTotal
    in.u64();         // memFree
    in.byte_array();  // cpu list
  }
  for (std::size_t n = in.container_size(8); n > 0 && in.ok(); --n) {
    in.u32();         // pmu type
    in.byte_array();  // pmu name
  }
  for (std::size_t n = in.container_size(12); n > 0 && in.ok(); --n) {
    in.byte_array();  // group name
    in.u32();         // leaderIndex
    in.u32();         // numMembers
  }
}

bool add_checked(std::uint64_t& sum, std::uint64_t value) {
  if (sum > UINT64_MAX - value) return false;
  sum += value;
  return true;
}

struct attribute_info {
  std::string name;
  bool uses_frequency = false;
  std::uint64_t frequency_or_period = 0;
};

struct location_info {
  std::int32_t parent = -1;
  // hotspot treats a location as having a symbol when a SymbolDefinition
  // named it and at least one of name/binary/path is non-empty.
  bool has_symbol = false;
  std::string symbol_name;
};

struct sample_cost {
  std::int32_t attribute_id = -1;
  std::uint64_t cost = 0;
};

class stream_decoder {
 public:
  bool decode_record(std::span<const std::byte> payload, std::string& error);
  perfparser_totals& totals() { return totals_; }

 private:
  void on_string(payload_reader& in);
  void on_attributes(payload_reader& in);
  void on_location(payload_reader& in);
  void on_symbol(payload_reader& in);
  void on_error(payload_reader& in);
  void on_sample(payload_reader& in, bool is_tracepoint);
  void on_task_event(payload_reader& in, perfparser_event_type type);
  void on_context_switch(const record_prefix& prefix, bool out);
  void charge_off_cpu(std::uint64_t time, const std::vector<std::string>& stack);

  std::string lookup_string(payload_reader& in, std::int32_t id) const;
  const location_info* find_location(std::int32_t id) const;
  bool expand_frames(payload_reader& in, const std::vector<std::int32_t>& frames);
  void account_cost(payload_reader& in, const sample_cost& cost);

  std::vector<std::string> strings_;
  std::vector<attribute_info> attributes_;
  std::vector<location_info> locations_;
  perfparser_totals totals_;
  // Per-sample scratch: symbol names leaf first, and the same de-duplicated.
  // The views point into locations_, so they are rebuilt for every sample
  // and must not outlive it (a later LocationDefinition may reallocate).
  std::vector<std::string_view> stack_symbols_;
  std::vector<std::string_view> unique_symbols_;

  // hotspot's per-thread state for off-CPU time, by (pid, tid).
  struct thread_state {
    bool off_cpu = false;
    std::uint64_t last_switch = 0;
    bool has_switch_stack = false;
    std::vector<std::string> switch_stack;  // of the last sched:sched_switch sample
  };
  std::map<std::pair<std::int32_t, std::int32_t>, thread_state> threads_;
};

bool stream_decoder::decode_record(std::span<const std::byte> payload, std::string& error) {
  payload_reader in(payload);
  const std::uint8_t raw_type = in.u8();
  if (!in.ok() || raw_type >= perfparser_event_type_count) {
    error = "invalid event type " + std::to_string(raw_type);
    return false;
  }
  const auto type = static_cast<perfparser_event_type>(raw_type);
  ++totals_.records[raw_type];

  switch (type) {
    case perfparser_event_type::thread_start:
    case perfparser_event_type::thread_end:
    case perfparser_event_type::command:
    case perfparser_event_type::lost_definition:
    case perfparser_event_type::context_switch_definition:
      on_task_event(in, type);
      break;
    case perfparser_event_type::location_definition:
      on_location(in);
      break;
    case perfparser_event_type::symbol_definition:
      on_symbol(in);
      break;
    case perfparser_event_type::string_definition:
      on_string(in);
      break;
    case perfparser_event_type::features_definition:
      skip_features(in);
      break;
    case perfparser_event_type::error:
      on_error(in);
      break;
    case perfparser_event_type::progress:
      in.u64();
      break;  // float sent as 8-byte double
    case perfparser_event_type::tracepoint_format:
      in.i32();  // id
      in.i32();  // system string id
      in.i32();  // name string id
      in.u32();  // flags
      break;
    case perfparser_event_type::attributes_definition:
      on_attributes(in);
      break;
    case perfparser_event_type::sample:
      on_sample(in, false);
      break;
    case perfparser_event_type::tracepoint_sample:
      on_sample(in, true);
      break;
  }

  if (in.ok() && !in.at_end())
    in.fail("record not fully consumed (" + std::to_string(in.position()) + " of " +
            std::to_string(payload.size()) + " bytes)");
  if (!in.ok()) {
    error = std::string(perfparser_event_type_name(type)) + ": " + in.failure();
    return false;
  }
  return true;
}

void stream_decoder::on_task_event(payload_reader& in, perfparser_event_type type) {
  const record_prefix prefix = read_record_prefix(in);
  if (type == perfparser_event_type::thread_start) {
    in.i32();                                        // ppid
    threads_.try_emplace({prefix.pid, prefix.tid});  // hotspot knows the thread from here
  } else if (type == perfparser_event_type::command) {
    lookup_string(in, in.i32());  // comm; validated only
  } else if (type == perfparser_event_type::context_switch_definition) {
    const bool out = in.boolean();
    if (in.ok()) on_context_switch(prefix, out);
  }
}

// As hotspot's addContextSwitch: a thread it has not met is ignored; a switch
// in after a switch out is off-CPU time, charged to the stack of the thread's
// last sched:sched_switch sample when it had one.
void stream_decoder::on_context_switch(const record_prefix& prefix, bool out) {
  auto found = threads_.find({prefix.pid, prefix.tid});
  if (found == threads_.end()) return;
  thread_state& thread = found->second;
  if (!out && thread.off_cpu) {
    const std::uint64_t time = prefix.time - thread.last_switch;
    totals_.off_cpu_total += time;
    if (thread.has_switch_stack) charge_off_cpu(time, thread.switch_stack);
  }
  thread.last_switch = prefix.time;
  thread.off_cpu = out;
}

void stream_decoder::charge_off_cpu(std::uint64_t time, const std::vector<std::string>& stack) {
  auto& event = totals_.events[off_cpu_time_name];
  ++event.samples;
  event.cost += time;
  if (stack.empty()) return;
  auto& self = totals_.symbols[{off_cpu_time_name, stack.front()}];
  ++self.self_samples;
  self.self_cost += time;
  std::vector<std::string> unique = stack;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  for (const std::string& symbol : unique) {
    auto& inclusive = totals_.symbols[{off_cpu_time_name, symbol}];
    ++inclusive.inclusive_samples;
    inclusive.inclusive_cost += time;
  }
}

// perfparser numbers strings, attributes and locations densely in the order it
// sends them, so each definition must carry the next id.
void stream_decoder::on_string(payload_reader& in) {
  const std::int32_t id = in.i32();
  std::string value = in.byte_array();
  if (in.ok() && id != static_cast<std::int64_t>(strings_.size()))
    in.fail("string id " + std::to_string(id) + " out of sequence");
  if (in.ok()) strings_.push_back(std::move(value));
}

std::string stream_decoder::lookup_string(payload_reader& in, std::int32_t id) const {
  if (id == -1) return {};
  if (id < 0 || static_cast<std::size_t>(id) >= strings_.size()) {
    in.fail("undefined string id " + std::to_string(id));
    return {};
  }
  return strings_[static_cast<std::size_t>(id)];
}

void stream_decoder::on_attributes(payload_reader& in) {
  const std::int32_t id = in.i32();
  in.u32();  // perf_event_attr.type
  in.u64();  // perf_event_attr.config
  attribute_info info;
  info.name = lookup_string(in, in.i32());
  info.uses_frequency = in.boolean();
  info.frequency_or_period = in.u64();
  if (in.ok() && id != static_cast<std::int64_t>(attributes_.size()))
    in.fail("attribute id " + std::to_string(id) + " out of sequence");
  if (in.ok()) attributes_.push_back(std::move(info));
}

void stream_decoder::on_location(payload_reader& in) {
  const std::int32_t id = in.i32();
  in.u64();                     // address
  lookup_string(in, in.i32());  // file; validated only
  in.u32();                     // pid
  in.i32();                     // line
  in.i32();                     // column
  const std::int32_t parent = in.i32();
  if (!in.ok()) return;
  if (id != static_cast<std::int64_t>(locations_.size()))
    return in.fail("location id " + std::to_string(id) + " out of sequence");
  // perfparser defines a parent before its children; insisting on that also
  // makes the parent chains acyclic, so walking them always terminates.
  if (parent < -1 || parent >= id)
    return in.fail("location " + std::to_string(id) + " has invalid parent " +
                   std::to_string(parent));
  locations_.push_back(location_info{parent, false, {}});
}

void stream_decoder::on_symbol(payload_reader& in) {
  const std::int32_t id = in.i32();
  const std::string name = lookup_string(in, in.i32());
  const std::string binary = lookup_string(in, in.i32());
  const std::string path = lookup_string(in, in.i32());
  in.boolean();  // isKernel
  if (!in.ok()) return;
  // A symbol belongs to the location with the same id (hotspot keeps both in
  // parallel vectors), and may be re-sent for a location.
  if (id < 0 || static_cast<std::size_t>(id) >= locations_.size())
    return in.fail("symbol for undefined location " + std::to_string(id));
  auto& location = locations_[static_cast<std::size_t>(id)];
  location.has_symbol = !name.empty() || !binary.empty() || !path.empty();
  location.symbol_name = name;
}

void stream_decoder::on_error(payload_reader& in) {
  in.i32();  // error code
  std::string message = in.qstring();
  if (in.ok()) totals_.error_messages.push_back(std::move(message));
}

const location_info* stream_decoder::find_location(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= locations_.size()) return nullptr;
  return &locations_[static_cast<std::size_t>(id)];
}

// Turns location ids into symbol names the way hotspot's
// BottomUpResults::handleFrame does: each location id expands to its chain of
// parents (inlined frames first, then the function they were inlined into).
// A location without a symbol (a plain instruction address) takes the symbol
// of its parent, and that parent (the function entry) is then skipped, so one
// non-inlined frame yields exactly one symbol.
bool stream_decoder::expand_frames(payload_reader& in, const std::vector<std::int32_t>& frames) {
  stack_symbols_.clear();
  unique_symbols_.clear();
  for (const std::int32_t frame : frames) {
    bool skip_next = false;
    for (std::int32_t id = frame; id != -1;) {
      const location_info* location = find_location(id);
      if (location == nullptr) {
        in.fail("sample references undefined location " + std::to_string(id));
        return false;
      }
      if (skip_next) {
        skip_next = false;
      } else {
        const location_info* named = location;
        if (!location->has_symbol) {
          named = find_location(location->parent);
          skip_next = true;
        }
        const bool known = named != nullptr && named->has_symbol && !named->symbol_name.empty();
        stack_symbols_.push_back(known ? std::string_view(named->symbol_name) : unknown_symbol);
      }
      id = location->parent;
    }
  }
  unique_symbols_ = stack_symbols_;
  std::sort(unique_symbols_.begin(), unique_symbols_.end());
  unique_symbols_.erase(std::unique(unique_symbols_.begin(), unique_symbols_.end()),
                        unique_symbols_.end());
  return true;
}

void stream_decoder::on_sample(payload_reader& in, bool is_tracepoint) {
  const record_prefix prefix = read_record_prefix(in);
  std::vector<std::int32_t> frames(in.container_size(4));
  for (auto& frame : frames) frame = in.i32();
  totals_.guessed_frames += in.u8();
  std::vector<sample_cost> costs(in.container_size(12));
  for (auto& cost : costs) {
    cost.attribute_id = in.i32();
    cost.cost = in.u64();
  }
  // The QHash<qint32, QVariant> of tracepoint fields is not needed for
  // totals; hotspot 1.3 ignores it as well.
  if (is_tracepoint) in.skip_rest();
  if (!in.ok()) return;

  if (!expand_frames(in, frames)) return;
  if (stack_symbols_.empty()) ++totals_.samples_without_frames;
  thread_state& thread = threads_[{prefix.pid, prefix.tid}];
  for (const auto& cost : costs) {
    account_cost(in, cost);
    const auto attribute = static_cast<std::size_t>(cost.attribute_id);
    if (cost.attribute_id >= 0 && attribute < attributes_.size() &&
        attributes_[attribute].name == "sched:sched_switch") {
      thread.switch_stack.assign(stack_symbols_.begin(), stack_symbols_.end());
      thread.has_switch_stack = true;
    }
  }
}

void stream_decoder::account_cost(payload_reader& in, const sample_cost& sample) {
  if (sample.attribute_id < 0 ||
      static_cast<std::size_t>(sample.attribute_id) >= attributes_.size()) {
    // hotspot warns and drops costs of attributes it has not seen.
    ++totals_.costs_with_unknown_attribute;
    return;
  }
  const auto& attribute = attributes_[static_cast<std::size_t>(sample.attribute_id)];
  // Like hotspot: a zero cost means "no period in the sample"; for fixed
  // period events the configured period is the cost.
  const std::uint64_t cost =
      (sample.cost == 0 && !attribute.uses_frequency) ? attribute.frequency_or_period : sample.cost;

  auto& event = totals_.events[attribute.name];
  ++event.samples;
  bool fits = add_checked(event.cost, cost);
  if (!stack_symbols_.empty()) {
    auto& self = totals_.symbols[{attribute.name, std::string(stack_symbols_.front())}];
    ++self.self_samples;
    fits = add_checked(self.self_cost, cost) && fits;
  }
  for (const auto symbol : unique_symbols_) {
    auto& inclusive = totals_.symbols[{attribute.name, std::string(symbol)}];
    ++inclusive.inclusive_samples;
    fits = add_checked(inclusive.inclusive_cost, cost) && fits;
  }
  if (!fits) in.fail("cost sum overflows 64 bits");
}

bool read_header(std::span<const std::byte> bytes, std::int32_t& version, std::string& error) {
  if (bytes.size() < header_size) {
    error = "file shorter than the 16-byte QPERFSTREAM header";
    return false;
  }
  if (std::memcmp(bytes.data(), stream_magic, magic_size) != 0) {
    error = "missing QPERFSTREAM magic";
    return false;
  }
  // perfparser writes the version with qToLittleEndian, unlike the payloads.
  version = static_cast<std::int32_t>(read_le_u32(bytes.subspan(magic_size, 4)));
  if (version < min_stream_version || version > max_stream_version) {
    error = "unsupported QDataStream version " + std::to_string(version);
    return false;
  }
  return true;
}

}  // namespace

const char* perfparser_event_type_name(perfparser_event_type type) {
  static constexpr std::array<const char*, perfparser_event_type_count> names = {
      "ThreadStart",
      "ThreadEnd",
      "Command",
      "LocationDefinition",
      "SymbolDefinition",
      "StringDefinition",
      "LostDefinition",
      "FeaturesDefinition",
      "Error",
      "Progress",
      "TracePointFormat",
      "AttributesDefinition",
      "ContextSwitchDefinition",
      "Sample",
      "TracePointSample"};
  const auto index = static_cast<std::size_t>(type);
  return index < names.size() ? names[index] : "Invalid";
}

std::optional<perfparser_totals> read_perfparser_stream(std::span<const std::byte> bytes,
                                                        std::string& error) {
  std::int32_t version = 0;
  if (!read_header(bytes, version, error)) return std::nullopt;

  stream_decoder decoder;
  decoder.totals().data_stream_version = version;
  std::size_t offset = header_size;
  while (offset < bytes.size()) {
    if (bytes.size() - offset < 4) {
      error = "truncated record size at offset " + std::to_string(offset);
      return std::nullopt;
    }
    const std::uint32_t size = read_le_u32(bytes.subspan(offset, 4));
    offset += 4;
    if (size == 0) {
      // Every record has at least its type byte.
      error = "empty record at offset " + std::to_string(offset - 4);
      return std::nullopt;
    }
    if (size > bytes.size() - offset) {
      error = "record of " + std::to_string(size) + " bytes at offset " +
              std::to_string(offset - 4) + " does not fit the file";
      return std::nullopt;
    }
    std::string record_error;
    if (!decoder.decode_record(bytes.subspan(offset, size), record_error)) {
      error = record_error + " (record at offset " + std::to_string(offset - 4) + ")";
      return std::nullopt;
    }
    offset += size;
  }
  return std::move(decoder.totals());
}

}  // namespace arec::test
