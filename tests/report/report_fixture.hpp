// report_fixture: small export profiles made by hand, in the shape profile_builder gives
// (cpu-clock samples and nanoseconds, pid/tid/comm labels), for the report's tests.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "export/profile.hpp"

namespace arec::report::fixture {

class sample_profile {
 public:
  sample_profile() {
    result.sample_types = {{intern("cpu-clock_samples"), intern("count")},
                           {intern("cpu-clock"), intern("nanoseconds")}};
    result.default_sample_type = intern("cpu-clock");
    result.period_type = {intern("cpu"), intern("nanoseconds")};
    result.period = 500'000;
    result.mappings.push_back({1, 0x1000, 0x2000, 0, intern("/bin/app"), 0, true, false});
    result.mappings.push_back({2, 0xffff0000, 0xffffffff, 0, intern("[kernel.kallsyms]"), 0,
                               true, true});
  }

  // One sample, root first. A name "[kernel]NAME" is a kernel frame, "?" a frame without a
  // function. Thread 1 is worker 100/101, thread 2 worker 100/102.
  void add(std::initializer_list<std::string_view> root_first, std::int64_t weight, int thread,
           std::string_view comm = "worker") {
    exporting::profile_sample sample;
    for (std::string_view name : root_first) sample.location_ids.insert(sample.location_ids.begin(), location(name));
    sample.values = {1, weight};
    sample.labels = {{intern("pid"), 0, 100},
                     {intern("tid"), 0, 100 + thread},
                     {intern("comm"), intern(comm), 0}};
    result.samples.push_back(std::move(sample));
  }

  std::int64_t intern(std::string_view text) {
    for (std::size_t i = 0; i < result.strings.size(); ++i)
      if (result.strings[i] == text) return static_cast<std::int64_t>(i);
    result.strings.emplace_back(text);
    return static_cast<std::int64_t>(result.strings.size() - 1);
  }

  exporting::profile result{.strings = {""}};

 private:
  std::uint64_t location(std::string_view name) {
    bool kernel = name.starts_with("[kernel]");
    if (kernel) name.remove_prefix(8);
    std::uint64_t function_id = 0;
    if (name != "?") {
      result.functions.push_back(
          {result.functions.size() + 1, intern(name), intern(kernel ? "[kernel.kallsyms]" : "/bin/app")});
      function_id = result.functions.size();
    }
    result.locations.push_back({result.locations.size() + 1, kernel ? 2u : 1u,
                                kernel ? 0xffff0100u : 0x1100u, function_id});
    return result.locations.size();
  }
};

}  // namespace arec::report::fixture
