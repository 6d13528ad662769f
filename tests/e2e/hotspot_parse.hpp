// hotspot_parse: a converted file run through hotspot's own parser (hotspot-perfparser, the
// program hotspot 1.3 reads perf.data with) and its output stream decoded (hotspot_stream).
#pragma once

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>

#include "hotspot_stream.hpp"
#include "support/child_process.hpp"

namespace arec::e2e {

inline constexpr const char* hotspot_parser_path =
    "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser";

// The totals hotspot would show for `input`, its stream written to `stream`; nullopt with
// `error` set when the parser fails or its output does not decode.
inline std::optional<test::perfparser_totals> hotspot_totals(const std::string& input,
                                                              const std::string& stream,
                                                              std::string& error) {
  test::command_result parsed = test::run_command(
      {hotspot_parser_path, "--input", input, "--output", stream}, std::chrono::seconds(60));
  if (parsed.exit_code != 0) {
    error = parsed.describe();
    return std::nullopt;
  }
  std::ifstream in(stream, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return test::read_perfparser_stream(std::as_bytes(std::span{bytes}), error);
}

}  // namespace arec::e2e
