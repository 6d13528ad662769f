#include "host/tracing_data.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "host/tracefs.hpp"
#include "perf_data/feature_encoder.hpp"

namespace arec::host {
namespace {

constexpr unsigned char tracing_magic[] = {0x17, 0x08, 0x44};

void append_text(perf_data::feature_encoder& out, std::string_view text) {
  out.bytes(std::as_bytes(std::span(text.data(), text.size())));
}

// A C string with its NUL (the tags and system names; not perf's padded strings).
void append_c_string(perf_data::feature_encoder& out, std::string_view text) {
  append_text(out, text);
  out.bytes(std::array{std::byte{0}});
}

// u64 size, then the text: how the blob stores every file except kallsyms and printk_formats.
void append_file(perf_data::feature_encoder& out, std::string_view root,
                 std::string_view relative) {
  std::string text = tracefs::read_file(root, relative);
  out.u64(text.size());
  append_text(out, text);
}

void append_formats(perf_data::feature_encoder& out, std::string_view root, std::string_view system,
                    std::span<const std::string> events) {
  out.u32(static_cast<std::uint32_t>(events.size()));
  for (const std::string& event : events)
    append_file(out, root, "events/" + std::string(system) + "/" + event + "/format");
}

}  // namespace

std::vector<std::byte> tracing_data_payload(
    std::string_view tracefs_root,
    std::span<const std::pair<std::string, std::string>> tracepoints) {
  // Group events by system in first-appearance order; perf matches formats to attrs by the
  // "ID:" line, so the order is free.
  std::vector<std::pair<std::string, std::vector<std::string>>> systems;
  for (const auto& tracepoint : tracepoints) {
    const std::string& system = tracepoint.first;
    auto group = std::find_if(systems.begin(), systems.end(),
                              [&](const auto& entry) { return entry.first == system; });
    if (group == systems.end()) group = systems.insert(systems.end(), {system, {}});
    auto& events = group->second;
    if (std::find(events.begin(), events.end(), tracepoint.second) == events.end())
      events.push_back(tracepoint.second);
  }
  auto ftrace = std::find_if(systems.begin(), systems.end(),
                             [](const auto& entry) { return entry.first == "ftrace"; });
  std::vector<std::string> ftrace_events;
  if (ftrace != systems.end()) {
    ftrace_events = std::move(ftrace->second);
    systems.erase(ftrace);
  }

  perf_data::feature_encoder out;
  out.bytes(std::as_bytes(std::span(tracing_magic)));
  append_text(out, "tracing");
  append_c_string(out, "0.6");
  out.bytes(std::array{std::byte{std::endian::native == std::endian::big ? 1 : 0},
                       std::byte{sizeof(long)}});
  out.u32(static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE)));

  append_c_string(out, "header_page");
  append_file(out, tracefs_root, "events/header_page");
  append_c_string(out, "header_event");
  append_file(out, tracefs_root, "events/header_event");

  append_formats(out, tracefs_root, "ftrace", ftrace_events);
  out.u32(static_cast<std::uint32_t>(systems.size()));
  for (const auto& [system, events] : systems) {
    append_c_string(out, system);
    append_formats(out, tracefs_root, system, events);
  }

  out.u32(0);  // kallsyms: perf 6.1 writes none; perf symbolizes function pointers itself
  std::string printk = tracefs::read_file(tracefs_root, "printk_formats");
  out.u32(static_cast<std::uint32_t>(printk.size()));
  append_text(out, printk);
  append_file(out, tracefs_root, "saved_cmdlines");
  return out.take();
}

}  // namespace arec::host
