// otlp_writer: a profile becomes an OTLP profiles request in opentelemetry-proto v1.11.0's layout,
// read back here with the code generated from export/otlp's protos: entry 0 of every table is
// the zero value, each event is a Profile of its own with the sample type a fleet store expects,
// values add up to the profile's, and labels become the semantic conventions' attributes.
#include "export/otlp_writer.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "export/otlp/profiles_service.pb.h"

namespace arec::exporting {
namespace {

namespace pb = opentelemetry::proto::profiles::v1development;
using request_message =
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;

// A profile as profile_builder makes it: cpu-clock and offcpu-time, each a count column and a
// weight column; two stacks in a program whose mapping has a build-id, one of them through the
// kernel.
profile two_event_profile() {
  profile p;
  p.strings = {"",
               "cpu-clock_samples",
               "count",
               "cpu-clock",
               "nanoseconds",
               "offcpu-time_samples",
               "offcpu-time",
               "pid",
               "tid",
               "comm",
               "cpu",
               "container_id",
               "/usr/bin/app",
               "[kernel.kallsyms]",
               "hot",
               "schedule",
               "main",
               "abc123",
               "app-worker",
               "c0ffee"};
  p.sample_types = {{1, 2}, {3, 4}, {5, 2}, {6, 4}};
  p.period_type = {3, 4};
  p.period = 10'101'010;
  p.time_nanos = 1'700'000'000'000'000'000;
  p.duration_nanos = 15'000'000'000;
  p.mappings = {{.id = 1,
                 .memory_start = 0x400000,
                 .memory_limit = 0x500000,
                 .filename = 12,
                 .build_id = 17,
                 .has_functions = true},
                {.id = 2,
                 .memory_start = 0xffffffff81000000,
                 .memory_limit = 0xffffffff82000000,
                 .filename = 13,
                 .has_functions = true,
                 .kernel = true}};
  p.functions = {{1, 14, 12}, {2, 15, 13}, {3, 16, 12}};
  p.locations = {{1, 1, 0x401000, 1}, {2, 2, 0xffffffff81001000, 2}, {3, 1, 0x402000, 3}};
  std::vector<sample_label> labels = {{7, 0, 42}, {8, 0, 43}, {9, 18, 0}, {10, 0, 1}, {11, 19, 0}};
  p.samples = {{{1, 3}, {5, 50'000'000, 0, 0}, labels},
               {{2, 3}, {0, 0, 2, 7'000'000}, labels},
               {{1, 3}, {3, 30'000'000, 0, 0}, {{7, 0, 44}, {8, 0, 44}, {9, 16, 0}}}};
  return p;
}

request_message decode(const std::vector<std::byte>& bytes) {
  request_message request;
  EXPECT_TRUE(request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  return request;
}

std::string text(const pb::ProfilesDictionary& dictionary, int index) {
  return dictionary.string_table(index);
}

// key -> value as text, of a sample's attributes.
std::map<std::string, std::string> attributes(const pb::ProfilesDictionary& dictionary,
                                              const google::protobuf::RepeatedField<int>& indices) {
  std::map<std::string, std::string> out;
  for (int index : indices) {
    const pb::KeyValueAndUnit& entry = dictionary.attribute_table(index);
    const auto& value = entry.value();
    out[text(dictionary, entry.key_strindex())] =
        value.has_string_value() ? value.string_value() : std::to_string(value.int_value());
  }
  return out;
}

std::string leaf_function(const pb::ProfilesDictionary& dictionary, const pb::Sample& sample) {
  const pb::Stack& stack = dictionary.stack_table(sample.stack_index());
  const pb::Location& leaf = dictionary.location_table(stack.location_indices(0));
  return text(dictionary,
              dictionary.function_table(leaf.lines(0).function_index()).name_strindex());
}

TEST(OtlpWriter, EveryTableStartsWithItsZeroValue) {
  request_message request = decode(otlp_request(two_event_profile(), {}));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  EXPECT_EQ(dictionary.string_table(0), "");
  EXPECT_EQ(dictionary.mapping_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.location_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.function_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.link_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.attribute_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.stack_table(0).ByteSizeLong(), 0u);
  EXPECT_EQ(dictionary.mapping_table_size(), 3);
  EXPECT_EQ(dictionary.location_table_size(), 4);
  EXPECT_EQ(dictionary.function_table_size(), 4);
  EXPECT_EQ(dictionary.stack_table_size(), 3);  // zero, {1,3} and {2,3}: shared by both profiles
}

// A location's source line (a JIT frame's, from its dump) is its function's line's.
TEST(OtlpWriter, ALocationsLineIsItsFunctionsLine) {
  profile p = two_event_profile();
  p.locations[0].line = 42;
  request_message request = decode(otlp_request(p, {}));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  ASSERT_EQ(dictionary.location_table_size(), 4);
  EXPECT_EQ(dictionary.location_table(1).lines(0).line(), 42);
  EXPECT_EQ(dictionary.location_table(2).lines(0).line(), 0) << "unknown: not written";
}

TEST(OtlpWriter, CpuTimeIsSampleCountsWithACpuPeriodAndOffCpuTimeIsNanoseconds) {
  request_message request = decode(otlp_request(two_event_profile(), {}));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  ASSERT_EQ(request.resource_profiles_size(), 1);
  const pb::ScopeProfiles& scope = request.resource_profiles(0).scope_profiles(0);
  EXPECT_EQ(scope.scope().name(), "arec");
  ASSERT_EQ(scope.profiles_size(), 2);

  const pb::Profile& cpu = scope.profiles(0);
  EXPECT_EQ(text(dictionary, cpu.sample_type().type_strindex()), "samples");
  EXPECT_EQ(text(dictionary, cpu.sample_type().unit_strindex()), "count");
  EXPECT_EQ(text(dictionary, cpu.period_type().type_strindex()), "cpu");
  EXPECT_EQ(text(dictionary, cpu.period_type().unit_strindex()), "nanoseconds");
  EXPECT_EQ(cpu.period(), 10'101'010);
  EXPECT_EQ(cpu.time_unix_nano(), 1'700'000'000'000'000'000u);
  EXPECT_EQ(cpu.duration_nano(), 15'000'000'000u);
  ASSERT_EQ(cpu.samples_size(), 2);
  EXPECT_EQ(cpu.samples(0).values(0) + cpu.samples(1).values(0), 8);
  EXPECT_EQ(leaf_function(dictionary, cpu.samples(0)), "hot");

  const pb::Profile& off_cpu = scope.profiles(1);
  EXPECT_EQ(text(dictionary, off_cpu.sample_type().type_strindex()), "off_cpu");
  EXPECT_EQ(text(dictionary, off_cpu.sample_type().unit_strindex()), "nanoseconds");
  EXPECT_FALSE(off_cpu.has_period_type());
  ASSERT_EQ(off_cpu.samples_size(), 1);
  EXPECT_EQ(off_cpu.samples(0).values(0), 7'000'000);
  EXPECT_EQ(leaf_function(dictionary, off_cpu.samples(0)), "schedule");
}

TEST(OtlpWriter, LabelsBecomeTheSemanticConventionsAttributes) {
  request_message request = decode(otlp_request(two_event_profile(), {}));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  const pb::Profile& cpu = request.resource_profiles(0).scope_profiles(0).profiles(0);
  std::map<std::string, std::string> expected{{"process.pid", "42"},
                                              {"thread.id", "43"},
                                              {"thread.name", "app-worker"},
                                              {"cpu.logical_number", "1"},
                                              {"container.id", "c0ffee"}};
  EXPECT_EQ(attributes(dictionary, cpu.samples(0).attribute_indices()), expected);
  const auto& first = dictionary.attribute_table(cpu.samples(0).attribute_indices(0));
  EXPECT_TRUE(first.value().has_int_value());  // process.pid is an int, as the conventions say
  std::map<std::string, std::string> other{
      {"process.pid", "44"}, {"thread.id", "44"}, {"thread.name", "main"}};
  EXPECT_EQ(attributes(dictionary, cpu.samples(1).attribute_indices()), other);
}

TEST(OtlpWriter, MappingsCarryTheirBuildIdAndKernelFramesTheirType) {
  request_message request = decode(otlp_request(two_event_profile(), {}));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  const pb::Mapping& program = dictionary.mapping_table(1);
  EXPECT_EQ(text(dictionary, program.filename_strindex()), "/usr/bin/app");
  EXPECT_EQ(program.memory_start(), 0x400000u);
  std::map<std::string, std::string> build_id{{"process.executable.build_id.gnu", "abc123"}};
  EXPECT_EQ(attributes(dictionary, program.attribute_indices()), build_id);
  EXPECT_EQ(dictionary.mapping_table(2).attribute_indices_size(), 0);
  std::map<std::string, std::string> kernel{{"profile.frame.type", "kernel"}};
  EXPECT_EQ(attributes(dictionary, dictionary.location_table(2).attribute_indices()), kernel);
  EXPECT_EQ(dictionary.location_table(1).attribute_indices_size(), 0);
  EXPECT_EQ(dictionary.location_table(1).mapping_index(), 1);
  EXPECT_EQ(dictionary.location_table(2).mapping_index(), 2);
}

TEST(OtlpWriter, TheResourceSaysWhereTheProfileComesFrom) {
  otlp_resource resource{{{"service.name", "checkout"}, {"host.name", "web-1"}}};
  request_message request = decode(otlp_request(two_event_profile(), resource));
  const auto& attributes = request.resource_profiles(0).resource().attributes();
  ASSERT_EQ(attributes.size(), 2);
  EXPECT_EQ(attributes[0].key(), "service.name");
  EXPECT_EQ(attributes[0].value().string_value(), "checkout");
  EXPECT_EQ(attributes[1].key(), "host.name");
  EXPECT_EQ(attributes[1].value().string_value(), "web-1");
}

TEST(OtlpWriter, AnEventCountedInEventsIsItsNameAndUnitWithItsMeanPeriod) {
  profile p;
  p.strings = {"",
               "cpu-clock_samples",
               "count",
               "cpu-clock",
               "nanoseconds",
               "page-faults_samples",
               "page-faults",
               "main"};
  p.sample_types = {{1, 2}, {3, 4}, {5, 2}, {6, 2}};
  p.period_type = {3, 4};
  p.period = 1000;
  p.functions = {{1, 7, 0}};
  p.locations = {{1, 0, 0x1000, 1}};
  p.samples = {{{1}, {0, 0, 2, 40}, {}}, {{1}, {0, 0, 1, 20}, {}}};
  request_message request = decode(otlp_request(p, {}));
  const auto& profiles = request.resource_profiles(0).scope_profiles(0).profiles();
  ASSERT_EQ(profiles.size(), 1);  // cpu-clock has no samples: no Profile for it
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  EXPECT_EQ(text(dictionary, profiles[0].sample_type().type_strindex()), "page-faults");
  EXPECT_EQ(text(dictionary, profiles[0].sample_type().unit_strindex()), "count");
  EXPECT_EQ(profiles[0].period(), 20);  // 60 faults in 3 samples
  ASSERT_EQ(profiles[0].samples_size(), 2);
  EXPECT_EQ(profiles[0].samples(0).values(0) + profiles[0].samples(1).values(0), 60);
  EXPECT_EQ(dictionary.location_table(1).mapping_index(), 0);  // no mapping: index 0
}

// A comm set to "\xff" with prctl, a path or a symbol that is not UTF-8: protobuf's parsers (Go's
// servers, and the generated code here) refuse a whole request for one such string, so every
// string arrives with U+FFFD in place of the bytes, and the request parses.
TEST(OtlpWriter, StringsThatAreNotUtf8ArriveRepairedAndTheRequestParses) {
  profile p = two_event_profile();
  p.strings[18] = "\xff";               // the comm of two samples
  p.strings[14] = "hot\xc0";            // a function name
  p.strings[12] = "/usr/bin/\xe2\x82";  // a mapping's file
  otlp_resource resource{{{"service.name", "shop\xff"}}};
  std::vector<std::byte> bytes = otlp_request(p, resource);
  request_message request;
  ASSERT_TRUE(request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  const pb::ProfilesDictionary& dictionary = request.dictionary();
  const pb::Profile& cpu = request.resource_profiles(0).scope_profiles(0).profiles(0);
  EXPECT_EQ(attributes(dictionary, cpu.samples(0).attribute_indices())["thread.name"],
            "\xef\xbf\xbd");
  EXPECT_EQ(leaf_function(dictionary, cpu.samples(0)), "hot\xef\xbf\xbd");
  EXPECT_EQ(text(dictionary, dictionary.mapping_table(1).filename_strindex()),
            "/usr/bin/\xef\xbf\xbd");
  EXPECT_EQ(request.resource_profiles(0).resource().attributes(0).value().string_value(),
            "shop\xef\xbf\xbd");
}

}  // namespace
}  // namespace arec::exporting
