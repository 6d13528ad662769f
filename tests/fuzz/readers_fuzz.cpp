// libFuzzer targets for every reader of untrusted files, one binary (arec's sources compiled
// once with coverage) and the target chosen by the environment, AREC_FUZZ_TARGET:
//   convert  any bytes as a single-file recording or pipe stream, `arec convert` (strict)
//   salvage  the same with --salvage
//   export   `arec export` of them, pprof and folded
//   archive  the header reader and the BUILD_ID feature's entries, as `arec archive` reads them
//   spool    the bytes as a push spool's window file, read back by push_spool::load
//   features the bytes as one header feature of a valid recording (the first byte picks which
//            of perf 6.1's, and strict or --salvage), converted: feature_check's reading
//   perfmap  the bytes as perf-map text (symbols/perf_map_symbols, and convert's JIT ELF of it),
//            as arec's perf-map feature (perf_data/perf_maps_feature), as a jitdump (its whole
//            records, host/jitdump, the lines they name, symbols/jitdump_symbols, and its code
//            by time, symbols/jit_code_timeline, its generations' call frame information,
//            symbols/jit_eh_frame) and as arec's jitdump feature
//            (perf_data/jitdumps_feature)
// Malformed input must end in the reader's own error (format_error, a usage or system error),
// never a crash, a sanitizer report or an output file left behind.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "base/usage_error.hpp"
#include "convert/converter.hpp"
#include "export/exporter.hpp"
#include "fleet/push_spool.hpp"
#include "host/jitdump.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "perf_data/perf_header.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "symbols/jit_eh_frame.hpp"
#include "symbols/jit_elf.hpp"
#include "symbols/jit_code_timeline.hpp"
#include "symbols/jit_generations.hpp"
#include "symbols/jitdump_symbols.hpp"
#include "symbols/perf_map_symbols.hpp"

namespace {

enum class target { convert, salvage, exporting, archive, spool, features, perfmap };

target chosen() {
  const char* name = std::getenv("AREC_FUZZ_TARGET");
  std::string_view value = name ? name : "convert";
  if (value == "convert") return target::convert;
  if (value == "salvage") return target::salvage;
  if (value == "export") return target::exporting;
  if (value == "archive") return target::archive;
  if (value == "spool") return target::spool;
  if (value == "features") return target::features;
  if (value == "perfmap") return target::perfmap;
  std::fprintf(stderr,
               "AREC_FUZZ_TARGET=%s: not convert, salvage, export, archive, spool, features or "
               "perfmap\n",
               name);
  std::abort();
}

// The readers' own refusals; anything else escapes and libFuzzer reports it.
template <typename Read>
void refused_or_read(Read&& read) {
  try {
    read();
  } catch (const arec::perf_data::format_error&) {
  } catch (const std::system_error&) {
  } catch (const arec::base::usage_error&) {
  }
}

std::string scratch(const char* what) {
  return "/tmp/arec-fuzz-" + std::to_string(::getpid()) + "-" + what;
}

void convert_once(const std::string& input, bool salvage) {
  std::string output = scratch("convert.perf");
  arec::convert::convert_options options;
  options.input = input;
  options.output = output;
  options.salvage = salvage;
  arec::convert::convert_settings settings;
  settings.memory_budget = 8u << 20;
  // The ELFs of captured JIT maps go to a cache of the run's own, never the user's ~/.debug.
  settings.build_id_dir = scratch("cache");
  refused_or_read([&] {
    arec::convert::convert(options, settings);
    ::unlink(output.c_str());  // a success: remove it so the check below sees only leftovers
  });
  std::error_code ignored;
  std::filesystem::remove_all(settings.build_id_dir, ignored);
  if (::access(output.c_str(), F_OK) == 0) __builtin_trap();  // an output survived a failure
}

void export_once(const std::string& input) {
  for (auto format :
       {arec::exporting::export_format::pprof, arec::exporting::export_format::folded}) {
    arec::exporting::export_options options;
    options.inputs = {input};
    options.output = scratch("export");
    options.format = format;
    options.salvage = format == arec::exporting::export_format::folded;
    options.quiet = true;
    refused_or_read([&] { arec::exporting::export_recording(options); });
    ::unlink(options.output.c_str());
  }
}

void archive_once(const std::string& input) {
  refused_or_read([&] {
    arec::perf_data::perf_header header =
        arec::perf_data::read_perf_header(input, arec::perf_data::header_mode::strict);
    if (const auto* payload = header.features.find(arec::perf_data::feature_build_id))
      arec::perf_data::parse_build_id_payload(*payload, 0, input);
  });
}

void spool_once(const std::string& input) {
  // One spool for the whole run, in a directory of its own removed at exit: only its reader is
  // exercised.
  static arec::fleet::push_spool spool = [] {
    std::atexit([] { std::filesystem::remove_all(scratch("spool")); });
    return arec::fleet::push_spool(
        {.memory_bytes = 1 << 20, .disk_bytes = 1 << 20, .dir = scratch("spool")},
        [](const std::string&) {});
  }();
  // The spool reads its window files relative to its directory: the input becomes one there.
  const std::string window = scratch("spool") + "/fuzz-window.pb";
  if (!std::filesystem::copy_file(input, window, std::filesystem::copy_options::overwrite_existing))
    return;
  arec::fleet::spool_entry entry;
  entry.path = window;
  refused_or_read([&] { (void)spool.load(entry); });
}

// The fuzzed payload as feature 1..31 of a recording that is otherwise whole (one attr, no
// records), so every input reaches the feature checks rather than dying in the header.
void features_once(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  auto bit = static_cast<arec::perf_data::feature>(1 + data[0] % 31);
  const auto* payload = reinterpret_cast<const std::byte*>(data + 1);
  arec::perf_data::feature_set features;
  features.set(bit, {payload, payload + size - 1});
  arec::perf_data::event_entry event;
  event.attr.size = sizeof event.attr;
  event.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  event.attr.sample_id_all = 1;
  event.ids = {1};
  const std::string path = scratch("features.perf");
  {
    arec::io::unique_fd fd =
        arec::io::unique_fd::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    arec::perf_data::perf_file_writer writer(fd.get(), path);
    writer.write_prologue(std::span{&event, 1});
    writer.write_epilogue(0, features);
  }
  convert_once(path, (data[0] & 0x80) != 0);
  ::unlink(path.c_str());
}

// The table's promises: sorted by start, names inside its text, at most `max` symbols, and a
// lookup's answer contains the address. A broken one traps.
void check_table(std::string_view text, std::size_t max) {
  arec::symbols::perf_map_table table(text, max);
  if (table.size() > max) __builtin_trap();
  std::uint64_t previous = 0;
  for (const arec::symbols::perf_map_symbol& symbol : table.symbols()) {
    if (symbol.start < previous || symbol.end <= symbol.start) __builtin_trap();
    if (table.name(symbol).size() != symbol.name_size) __builtin_trap();
    previous = symbol.start;
    for (std::uint64_t address : {symbol.start, symbol.end - 1, symbol.end}) {
      const arec::symbols::perf_map_symbol* found = table.at(address);
      if (found && (address < found->start || address >= found->end)) __builtin_trap();
    }
  }
}

// A timeline's promises (the dump's times as the recording's, offset 0): the code loaded last
// at a record's start and time is the code there then, and nothing is there before the earliest
// record. A broken one traps.
void check_timeline(std::span<const std::byte> bytes) {
  constexpr arec::perf_data::file_clocks same{{1, 1}, {2, 2}};
  std::optional<arec::symbols::jit_code_timeline> timeline =
      arec::symbols::jitdump_timeline(bytes, same);
  if (!timeline) return;
  std::vector<arec::symbols::jitdump_code> code = arec::symbols::jitdump_code_records(bytes);
  std::uint64_t earliest = ~0ull;
  for (const arec::symbols::jitdump_code& each : code) earliest = std::min(earliest, each.time);
  for (const arec::symbols::jitdump_code& each : code) {
    (void)timeline->name_at(each.start, each.time);
    if (earliest > 0 && !timeline->name_at(each.start, earliest - 1).empty()) __builtin_trap();
  }
}

// The call frame information of a generation's functions: each kept FDE starts in a function
// that had some and lies in the section; the ELF holding it is made without fault. A broken
// promise traps.
void check_call_frames(std::span<const arec::symbols::jitdump_code> functions,
                       const std::string& text) {
  constexpr std::uint64_t low = 0x1000, high = 0x7fff00000000, section = 0x7fff00001000;
  arec::symbols::jit_eh_frame merged =
      arec::symbols::merge_jit_eh_frames(functions, low, high, section);
  for (const arec::symbols::jit_fde& fde : merged.fdes) {
    if (fde.offset >= merged.bytes.size()) __builtin_trap();
    bool in_one = std::ranges::any_of(functions, [&](const arec::symbols::jitdump_code& code) {
      return !code.eh_frame.empty() && fde.first >= code.start && fde.first - code.start < code.size;
    });
    if (!in_one) __builtin_trap();
  }
  (void)arec::symbols::make_jit_elf(1, text, {low, high}, functions);
}

// Generations' promises: within the limit, starting at 0 in time order, each map holding the
// one before it (the code loaded up to a later end). A broken one traps.
void check_generations(std::span<const std::byte> bytes) {
  constexpr arec::perf_data::file_clocks same{{1, 1}, {2, 2}};
  arec::symbols::jit_generations generations(bytes, same, 4);
  if (generations.size() == 0 || generations.size() > 4 || generations.from(0) != 0)
    __builtin_trap();
  std::string before;
  for (std::size_t i = 0; i < generations.size(); ++i) {
    if (i > 0 && generations.from(i) < generations.from(i - 1)) __builtin_trap();
    std::string text = generations.perf_map(i);
    if (!text.starts_with(before)) __builtin_trap();
    check_call_frames(generations.functions(i), text);
    before = std::move(text);
  }
}

// A jitdump's promises: its whole records lie inside the bytes and within the room, and the
// lines they name make a table that keeps the table's promises. A broken one traps.
void check_jitdump(std::span<const std::byte> bytes) {
  for (std::size_t room : {bytes.size(), bytes.size() / 2}) {
    arec::host::jitdump_cursor cursor;
    arec::host::jitdump_span span = arec::host::whole_jitdump_records(bytes, cursor, room);
    if (span.kept > room || span.kept > span.whole || cursor.offset != span.whole)
      __builtin_trap();
    // What is kept is what the span counted, and reads as a dump of the same functions.
    std::string kept;
    std::size_t header = span.whole >= 12 ? arec::host::jitdump_value<std::uint32_t>(
                                                bytes, 8, cursor.swapped)
                                          : 0;
    arec::host::append_kept_records(kept, bytes.first(span.whole), header, cursor.swapped);
    if (kept.size() != span.kept) __builtin_trap();
    if (room == bytes.size() &&
        arec::symbols::jitdump_as_perf_map(std::as_bytes(std::span{kept})) !=
            arec::symbols::jitdump_as_perf_map(bytes.first(span.whole)))
      __builtin_trap();
  }
  check_table(arec::symbols::jitdump_as_perf_map(bytes),
              arec::symbols::perf_map_table::max_symbols);
  check_timeline(bytes);
  check_generations(bytes);
}

void perf_map_once(const std::uint8_t* data, std::size_t size) {
  std::string_view text{reinterpret_cast<const char*>(data), size};
  check_table(text, 8);
  check_table(text, arec::symbols::perf_map_table::max_symbols);
  (void)arec::symbols::make_jit_elf(7, text, {0, ~std::uint64_t{0}});
  refused_or_read([&] {
    auto payload = std::as_bytes(std::span{data, size});
    for (const auto& map : arec::perf_data::parse_perf_maps_payload(payload, 0, "fuzz"))
      check_table(map.text, arec::symbols::perf_map_table::max_symbols);
  });
  auto bytes = std::as_bytes(std::span{data, size});
  check_jitdump(bytes);
  refused_or_read([&] {
    for (const auto& dump : arec::perf_data::parse_jitdumps_payload(bytes, 0, "fuzz").dumps)
      check_jitdump(std::as_bytes(std::span{dump.bytes}));
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const target which = chosen();
  arec::io::unique_fd fd(::memfd_create("arec-fuzz", MFD_CLOEXEC));
  if (!fd) return 0;
  std::size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd.get(), data + written, size - written);
    if (n <= 0) return 0;
    written += static_cast<std::size_t>(n);
  }
  std::string input = "/proc/self/fd/" + std::to_string(fd.get());
  switch (which) {
    case target::convert:
      convert_once(input, false);
      break;
    case target::salvage:
      convert_once(input, true);
      break;
    case target::exporting:
      export_once(input);
      break;
    case target::archive:
      archive_once(input);
      break;
    case target::spool:
      spool_once(input);
      break;
    case target::features:
      features_once(data, size);
      break;
    case target::perfmap:
      perf_map_once(data, size);
      break;  // the bytes themselves
  }
  return 0;
}
