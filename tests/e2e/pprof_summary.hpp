// pprof_summary: a gzipped pprof decoded by npm's pprof-format (pprof_format_summary.cjs), an
// implementation independent of arec's protobuf code, as one line of JSON to read values from.
#pragma once

#include <string>

#include "support/child_process.hpp"

namespace arec::e2e {

// Runs the decoder on `path`. Not a skip when it is missing: CI must have the second decoder
// (scripts/install-deps.sh installs it); the result's describe() says how to get it.
// With `leaf`, "leafMatches" counts the samples whose leaf function's name contains it.
test::command_result npm_pprof_summary(const std::string& path, const std::string& leaf = {});

// The number after "KEY": in the JSON text (quoted or not), or -1 when it is not there.
long long json_number(const std::string& json, const std::string& key);

}  // namespace arec::e2e
