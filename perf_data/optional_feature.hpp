// optional_feature: a feature a reader can do without (arec's own, which perf and hotspot pass
// over), parsed by its own parser, or empty when the recording has none or a damaged one: a
// damaged feature costs only the names or labels it gives, never the recording.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

// `parse(payload, 0, what)` of feature `bit`, or an empty value. When it is damaged and
// `problem` is given, the parser's message ("WHAT: offset N: ...") goes there.
template <typename Parse>
auto parsed_optional_feature(const feature_set& features, feature bit, Parse parse,
                             const std::string& what, std::string* problem = nullptr)
    -> decltype(parse(std::vector<std::byte>{}, 0, what)) {
  const std::vector<std::byte>* payload = features.find(bit);
  if (!payload) return {};
  try {
    return parse(*payload, 0, what);
  } catch (const format_error& error) {
    if (problem) *problem = error.what();
    return {};
  }
}

}  // namespace arec::perf_data
