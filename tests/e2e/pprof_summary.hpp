// pprof_summary: a gzipped pprof decoded by npm's pprof-format (pprof_format_summary.cjs), and an
// OTLP profiles request decoded by npm's protobufjs (otlp_profiles_summary.cjs): implementations
// independent of arec's protobuf code, each as one line of JSON to read values from.
#pragma once

#include <map>
#include <string>

#include "support/child_process.hpp"

namespace arec::e2e {

// Runs the decoder on `path`. Not a skip when it is missing: CI must have the second decoder
// (scripts/install-deps.sh installs it); the result's describe() says how to get it.
// With `leaf`, "leafMatches" counts the samples whose leaf function's name contains it.
test::command_result npm_pprof_summary(const std::string& path, const std::string& leaf = {});

// Runs otlp_profiles_summary.cjs on `path` (an ExportProfilesServiceRequest, gzipped or not);
// with `leaf`, "leafTotals" sums the samples whose leaf function's name contains it.
test::command_result npm_otlp_summary(const std::string& path, const std::string& leaf = {});

// Debian's protoc reading `path` with arec's pinned protos, which also checks that every string
// is UTF-8 as Go's servers do: a pprof (gzipped) or an OTLP ExportProfilesServiceRequest
// (not). Exit code 0 when it parses; the text format on stdout.
enum class protoc_message { pprof, otlp_request };
test::command_result protoc_decode(const std::string& path, protoc_message message);

// Flat (self) and cumulative percentages by function name of `go tool pprof -top` output: rows
// "flat flat% sum% cum cum% NAME", the name possibly with spaces.
struct pprof_shares {
  std::map<std::string, double> flat, cum;
};
pprof_shares pprof_top_shares(const std::string& text);

// The number after "KEY": in the JSON text (quoted or not), or -1 when it is not there.
long long json_number(const std::string& json, const std::string& key);

// `"KEY":"VALUE"` somewhere in the JSON text (an attribute, a mapping's build-id...).
bool json_holds(const std::string& json, const std::string& key, const std::string& value);

// The value of "TYPE" ("samples/count") in an OTLP summary's "totals", or -1 when it is not
// there (no profile of that type).
long long otlp_total(const std::string& summary, const std::string& type);

}  // namespace arec::e2e
