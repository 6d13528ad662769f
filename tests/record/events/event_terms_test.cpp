#include "record/events/event_terms.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <string>

#include "base/usage_error.hpp"

namespace arec::record {
namespace {

std::string parse_error(std::string_view name) {
  try {
    parse_event_spec(name);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted '" << name << "'";
  return {};
}

TEST(EventTerms, PeriodAndFrequencyTermsOfASymbolicEvent) {
  event_spec period = parse_event_spec("cpu-clock/period=100000/");
  EXPECT_EQ(period.name, "cpu-clock/period=100000/");
  EXPECT_EQ(period.type, unsigned{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(period.config, unsigned{PERF_COUNT_SW_CPU_CLOCK});
  EXPECT_EQ(period.terms.rate, (event_terms::sampling_rate{false, 100000}));
  EXPECT_EQ(parse_event_spec("cpu-clock/freq=99/").terms.rate,
            (event_terms::sampling_rate{true, 99}));
  EXPECT_EQ(parse_event_spec("cpu-clock/period=0x100/").terms.rate,
            (event_terms::sampling_rate{false, 256}));
  // The last of period and freq wins, as in perf; a bare term is 1.
  EXPECT_EQ(parse_event_spec("cpu-clock/period=1,freq=2/").terms.rate,
            (event_terms::sampling_rate{true, 2}));
  EXPECT_EQ(parse_event_spec("cpu-clock/period/").terms.rate,
            (event_terms::sampling_rate{false, 1}));
  EXPECT_FALSE(parse_event_spec("cpu-clock//").terms.rate);
}

TEST(EventTerms, CallGraphTerms) {
  event_spec dwarf = parse_event_spec("cpu-clock/call-graph=dwarf,stack-size=100/");
  EXPECT_EQ(dwarf.terms.call_graph, call_graph_mode::dwarf);
  EXPECT_EQ(dwarf.terms.stack_size, 104u) << "rounded up to 8 bytes, as perf";
  EXPECT_EQ(parse_event_spec("cpu-clock/call-graph=fp/").terms.call_graph, call_graph_mode::fp);
  EXPECT_EQ(parse_event_spec("cpu-clock/call-graph=no/").terms.call_graph, call_graph_mode::none);
  EXPECT_EQ(parse_event_spec("cpu-clock/max-stack=3/").terms.max_stack, 3u);
  EXPECT_EQ(parse_error("cpu-clock/call-graph=foo/"),
            "event syntax error: 'cpu-clock/call-graph=foo/': unknown call-graph mode 'foo' (fp, "
            "dwarf or no)");
}

TEST(EventTerms, NameInheritAndConfigTerms) {
  EXPECT_EQ(parse_event_spec("cpu-clock/name=foo/").name, "foo");
  EXPECT_EQ(parse_event_spec("cpu-clock/no-inherit/").terms.inherit, false);
  EXPECT_EQ(parse_event_spec("cpu-clock/inherit/").terms.inherit, true);
  EXPECT_EQ(parse_event_spec("cpu-clock/config=1/").config, 1u);
  EXPECT_NO_THROW(parse_event_spec("cpu-clock/time/"));
  EXPECT_EQ(parse_error("cpu-clock/time=0/"),
            "event syntax error: 'cpu-clock/time=0/': time=0 is not supported: arec records the "
            "time of every sample");
}

TEST(EventTerms, ModifiersFollowTheClosingSlash) {
  event_spec user = parse_event_spec("cpu-clock/period=100000/u");
  EXPECT_TRUE(user.exclude_kernel);
  EXPECT_FALSE(user.exclude_user);
  EXPECT_EQ(parse_error("cpu-clock/period=100000/:u"),
            "event syntax error: 'cpu-clock/period=100000/:u': parser error");
}

TEST(EventTerms, PmuOfSysfsGivesTheType) {
  event_spec software = parse_event_spec("software/config=1,period=1000/");
  EXPECT_EQ(software.type, unsigned{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(software.config, 1u);
  EXPECT_EQ(software.name, "software/config=1,period=1000/");
  EXPECT_EQ(find_pmu_type("tracepoint"), std::optional<std::uint32_t>{PERF_TYPE_TRACEPOINT});
  EXPECT_EQ(find_pmu_type("nopmu"), std::nullopt);
  EXPECT_EQ(find_pmu_type("../software"), std::nullopt);
}

TEST(EventTerms, UnknownTermsAndPmusInPerfsWords) {
  const std::string valid =
      "(valid terms: config,config1,config2,name,period,freq,branch_type,time,call-graph,"
      "stack-size,no-inherit,inherit,max-stack,nr,no-overwrite,overwrite,driver-config,percore,"
      "aux-output,aux-sample-size,metric-id)";
  EXPECT_EQ(parse_error("cpu-clock/bogus=1/"),
            "event syntax error: 'cpu-clock/bogus=1/': unknown term 'bogus' " + valid);
  EXPECT_EQ(parse_error("software/cpu-clock/"),
            "event syntax error: 'software/cpu-clock/': unknown term 'cpu-clock' for pmu "
            "'software' " +
                valid);
  EXPECT_EQ(parse_error("nopmu/config=1/"),
            "event syntax error: 'nopmu/config=1/': Cannot find PMU `nopmu'. Missing kernel "
            "support?");
  EXPECT_EQ(parse_error("cpu-clock/overwrite/"),
            "event syntax error: 'cpu-clock/overwrite/': term 'overwrite' is not supported by "
            "arec");
  EXPECT_EQ(parse_error("cpu-clock/period=x/"),
            "event syntax error: 'cpu-clock/period=x/': expected a number for term 'period'");
  EXPECT_EQ(parse_error("cpu-clock/period=1"),
            "event syntax error: 'cpu-clock/period=1': parser error");
}

}  // namespace
}  // namespace arec::record
