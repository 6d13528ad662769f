#include "fleet/wire_format.hpp"

#include <gtest/gtest.h>

#include "fleet/proto/otlp_response.pb.h"
#include "fleet/proto/push.pb.h"

namespace arec::fleet {
namespace {

TEST(FleetWireFormat, PushRequestHoldsOneSeriesWithItsLabelsAndProfile) {
  push_window window{std::string("\x1f\x8b\0binary", 9), 0, 1, 2, {}};
  std::vector<label> labels{{"__name__", "process_cpu"}, {"service_name", "h"}};
  push::v1::PushRequest request;
  ASSERT_TRUE(request.ParseFromString(encode_push_request(labels, window)));
  ASSERT_EQ(request.series_size(), 1);
  const auto& series = request.series(0);
  ASSERT_EQ(series.labels_size(), 2);
  EXPECT_EQ(series.labels(0).name(), "__name__");
  EXPECT_EQ(series.labels(1).value(), "h");
  ASSERT_EQ(series.samples_size(), 1);
  EXPECT_EQ(series.samples(0).raw_profile(), window.profile);
}

TEST(FleetWireFormat, SpoolFileRoundTrips) {
  push_window window{"gz-bytes", 77, 1'000, 2'000, {{"cpu", "1"}, {"comm", "x"}}};
  auto decoded = decode_spooled_window(encode_spooled_window(window));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->profile, window.profile);
  EXPECT_EQ(decoded->uncompressed_size, 77u);
  EXPECT_EQ(decoded->start_ns, 1'000);
  EXPECT_EQ(decoded->end_ns, 2'000);
  EXPECT_EQ(decoded->labels, window.labels);
}

TEST(FleetWireFormat, ACutSpoolFileIsRefused) {
  push_window window{std::string(1000, 'p'), 0, 1, 2, {}};
  std::string bytes = encode_spooled_window(window);
  EXPECT_FALSE(decode_spooled_window(bytes.substr(0, bytes.size() / 2)));
  EXPECT_FALSE(decode_spooled_window(""));
}

TEST(FleetWireFormat, ParcaWriteRawIsProtobufsJsonFormWithTheProfileInBase64) {
  push_window window{std::string("\x1f\x8b\0\xff\xfe", 5), 0, 1, 2, {}};
  std::vector<label> labels{{"__name__", "process_cpu"}, {"comm", "a\"b\\c\n"}};
  EXPECT_EQ(
      encode_parca_write_raw(labels, window),
      R"({"series":[{"labels":{"labels":[{"name":"__name__","value":"process_cpu"},)"
      R"({"name":"comm","value":"a\"b\\c\u000a"}]},"samples":[{"rawProfile":"H4sA//4="}]}]})");
  for (auto [bytes, base64] : {std::pair{"a", "YQ=="}, {"ab", "YWI="}, {"abc", "YWJj"}}) {
    window.profile = bytes;
    std::string body = encode_parca_write_raw({}, window);
    EXPECT_NE(body.find(std::string("\"rawProfile\":\"") + base64 + "\""), std::string::npos)
        << body;
  }
}

TEST(FleetWireFormat, AnOtlpAnswerSaysItsPartialSuccessOrItsError) {
  otlp::ExportResponse partial;
  partial.mutable_partial_success()->set_rejected_profiles(2);
  partial.mutable_partial_success()->set_error_message("too old");
  EXPECT_EQ(otlp_partial_success(partial.SerializeAsString()), "2 profile(s) rejected: too old");
  EXPECT_EQ(otlp_partial_success(""), "") << "an empty answer is a whole success";
  EXPECT_EQ(otlp_partial_success(otlp::ExportResponse().SerializeAsString()), "");

  otlp::Status status;
  status.set_code(3);
  status.set_message("profiles signal disabled");
  EXPECT_EQ(otlp_error_message(status.SerializeAsString()), "profiles signal disabled");
  EXPECT_EQ(otlp_error_message("missing profile metadata dictionary\n"),
            "missing profile metadata dictionary")
      << "Pyroscope answers in plain text";
  EXPECT_EQ(otlp_error_message(std::string("\x08\x03\x12\x02\x01\x02", 6)), "")
      << "nothing printable: nothing to show";
}

// A server's message that is not UTF-8 (written by hand: the field is a string in the
// specification) loses only itself: the answer parses and its "N rejected" is said.
TEST(FleetWireFormat, AnOtlpPartialSuccessWhoseMessageIsNotUtf8StillSaysHowManyWereRejected) {
  const std::string answer(
      "\x0a\x09\x08\x03\x12\x05"
      "bad \xff",
      11);
  EXPECT_EQ(otlp_partial_success(answer), "3 profile(s) rejected");
  const std::string status(
      "\x08\x03\x12\x05"
      "bad \xff",
      9);
  EXPECT_EQ(otlp_error_message(status), "");
}

// Label values are proto3 strings: one that is not UTF-8 would make the server refuse the whole
// request; it goes with U+FFFD in place of the bytes, and so does Parca's JSON.
TEST(FleetWireFormat, LabelsThatAreNotUtf8AreSentRepaired) {
  push_window window{"gz", 0, 1, 2, {}};
  std::vector<label> labels{{"__name__", "process_cpu"}, {"comm", "\xff"}};
  push::v1::PushRequest request;
  ASSERT_TRUE(request.ParseFromString(encode_push_request(labels, window)));
  EXPECT_EQ(request.series(0).labels(1).value(), "\xef\xbf\xbd");
  EXPECT_NE(encode_parca_write_raw(labels, window).find("\"value\":\"\xef\xbf\xbd\""),
            std::string::npos);
}

TEST(FleetWireFormat, TheSpoolKeepsAWindowsPayloadKind) {
  push_window window{"gz", 1, 1, 2, {}, payload_kind::otlp};
  auto decoded = decode_spooled_window(encode_spooled_window(window));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->payload, payload_kind::otlp);
  window.payload = payload_kind::pprof;
  EXPECT_EQ(decode_spooled_window(encode_spooled_window(window))->payload, payload_kind::pprof);
}

}  // namespace
}  // namespace arec::fleet
