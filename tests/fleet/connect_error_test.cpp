#include "fleet/connect_error.hpp"

#include <gtest/gtest.h>

namespace arec::fleet {
namespace {

TEST(FleetConnectError, ParsesCodeAndMessage) {
  auto status = parse_connect_error(
      R"({"code": "unavailable", "message": "ingester \"a\" down\n", "details": [{"type": "x",
          "value": "eyJ9"}], "n": 3})");
  EXPECT_EQ(status.code, "unavailable");
  EXPECT_EQ(status.message, "ingester \"a\" down\n");
  EXPECT_EQ(parse_connect_error("<html>bad gateway</html>").code, "");
  EXPECT_EQ(parse_connect_error(R"({"code": "unava)").code, "");
  EXPECT_EQ(parse_connect_error(R"({"message": "\u00e9\u0041"})").message, "?A");
}

TEST(FleetConnectError, RetriesWhatMayPassLaterAndDropsTheRest) {
  EXPECT_EQ(classify_response(200, "").verdict, push_verdict::delivered);
  for (const char* code : {"unavailable", "resource_exhausted", "deadline_exceeded", "aborted"}) {
    EXPECT_EQ(classify_response(503, std::string(R"({"code":")") + code + "\"}").verdict,
              push_verdict::retry)
        << code;
  }
  for (const char* code : {"invalid_argument", "unauthenticated", "permission_denied",
                           "failed_precondition", "unimplemented", "not_found"}) {
    EXPECT_EQ(classify_response(400, std::string(R"({"code":")") + code + "\"}").verdict,
              push_verdict::drop)
        << code;
  }
  push_outcome refused =
      classify_response(400, R"({"code":"invalid_argument","message":"profile too big"})");
  EXPECT_EQ(refused.reason, "HTTP 400, invalid_argument: profile too big");
}

TEST(FleetConnectError, WithoutACodeTheHttpStatusDecides) {
  EXPECT_EQ(classify_response(502, "<html/>").verdict, push_verdict::retry);
  EXPECT_EQ(classify_response(429, "").verdict, push_verdict::retry);
  EXPECT_EQ(classify_response(408, "").verdict, push_verdict::retry);
  EXPECT_EQ(classify_response(404, "").verdict, push_verdict::drop);
  EXPECT_EQ(classify_response(413, "").reason, "HTTP 413");
}

}  // namespace
}  // namespace arec::fleet
