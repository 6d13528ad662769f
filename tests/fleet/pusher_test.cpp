#include "fleet/pusher.hpp"

#include <gtest/gtest.h>

#include "fleet/ingest_limits.hpp"
#include "fleet/proto/otlp_response.pb.h"
#include "fleet_test_support.hpp"
#include "stand_in/stand_in_server.hpp"

namespace arec::fleet {
namespace {

using test::numbered_window;
using test::stand_in_server;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(Pusher, RetryAfterOn429And503IsTheServersAsk) {
  stand_in_server server;
  server.reply_next(stand_in_server::raw_reply(429, "Retry-After: 7\r\n", ""));
  server.reply_next(stand_in_server::raw_reply(
      503, "retry-after: Fri, 01 Jan 2100 00:00:00 GMT\r\n", "{\"code\":\"unavailable\"}"));
  server.reply_next(stand_in_server::raw_reply(500, "Retry-After: 7\r\n", ""));
  std::atomic<bool> abort{false};
  push_options options = test::stand_in_options(server.url());
  pusher client{options, abort};

  push_outcome limited = client.push(numbered_window(1), now_ns());
  EXPECT_EQ(limited.verdict, push_verdict::retry);
  EXPECT_EQ(limited.retry_after, std::chrono::milliseconds(7'000));
  EXPECT_EQ(limited.reason, "HTTP 429 (the server asks to wait 7 s before the next try)");

  push_outcome unavailable = client.push(numbered_window(2), now_ns());
  ASSERT_TRUE(unavailable.retry_after.has_value());
  EXPECT_GT(*unavailable.retry_after, std::chrono::hours(24 * 365));

  push_outcome other = client.push(numbered_window(3), now_ns());
  EXPECT_EQ(other.retry_after, std::nullopt) << "only 429 and 503 carry a Retry-After we use";
}

push_options format_options(const std::string& url, push_format format) {
  push_options options = test::stand_in_options(url);
  options.format = format;
  options.limits = ingest_limits_of(format);
  if (format == push_format::otlp) options.url += "/v1development/profiles";
  return options;
}

TEST(Pusher, AnOtlpServersAnswersDeliverRetryOrDropAsTheSpecificationSays) {
  stand_in_server server;
  otlp::ExportResponse partial;
  partial.mutable_partial_success()->set_rejected_profiles(1);
  partial.mutable_partial_success()->set_error_message("sample type unknown");
  server.reply_next(stand_in_server::raw_reply(200, "", partial.SerializeAsString()));
  server.reply_next(stand_in_server::raw_reply(400, "", "missing profile metadata dictionary"));
  server.reply_next(stand_in_server::raw_reply(503, "", ""));
  server.reply_next(stand_in_server::raw_reply(413, "", ""));
  std::atomic<bool> abort{false};
  push_options options = format_options(server.url(), push_format::otlp);
  pusher client{options, abort};
  push_window window = numbered_window(1);
  window.payload = payload_kind::otlp;

  push_outcome partly = client.push(window, now_ns());
  EXPECT_EQ(partly.verdict, push_verdict::delivered) << "a partial success is not retried";
  EXPECT_EQ(partly.note, "1 profile(s) rejected: sample type unknown");
  push_outcome refused = client.push(window, now_ns());
  EXPECT_EQ(refused.verdict, push_verdict::drop);
  EXPECT_EQ(refused.reason, "HTTP 400: missing profile metadata dictionary");
  EXPECT_EQ(client.push(window, now_ns()).verdict, push_verdict::retry);
  EXPECT_EQ(client.push(window, now_ns()).verdict, push_verdict::drop);

  std::vector<test::received_push> none = server.received();
  EXPECT_TRUE(none.empty()) << "scripted replies only";
}

TEST(Pusher, AWindowSpooledInAnotherFormatIsDroppedNotSent) {
  stand_in_server server;
  std::atomic<bool> abort{false};
  push_options options = format_options(server.url(), push_format::otlp);
  pusher client{options, abort};
  push_outcome outcome = client.push(numbered_window(1), now_ns());  // a pprof
  EXPECT_EQ(outcome.verdict, push_verdict::drop);
  EXPECT_NE(outcome.reason.find("spooled as a pprof by a run with another --push-format"),
            std::string::npos)
      << outcome.reason;
  EXPECT_EQ(server.requests(), 0u);
}

TEST(Pusher, ParcaGetsWriteRawAndItsJsonErrorsAreNamed) {
  stand_in_server server;
  std::atomic<bool> abort{false};
  push_options options = format_options(server.url(), push_format::parca);
  pusher client{options, abort};
  EXPECT_EQ(client.push(numbered_window(1), now_ns()).verdict, push_verdict::delivered);
  std::vector<test::received_push> received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, "POST /api/profiles/writeraw HTTP/1.1");
  ASSERT_EQ(received[0].profiles.size(), 1u);
  EXPECT_EQ(received[0].profiles[0], numbered_window(1).profile);

  server.reply_next(stand_in_server::raw_reply(
      400, "", R"({"code":3,"message":"invalid profile: mapping ids","details":[]})"));
  server.reply_next(stand_in_server::raw_reply(503, "", R"({"code":14,"message":"no store"})"));
  push_outcome refused = client.push(numbered_window(2), now_ns());
  EXPECT_EQ(refused.verdict, push_verdict::drop);
  EXPECT_EQ(refused.reason, "HTTP 400: invalid profile: mapping ids");
  EXPECT_EQ(client.push(numbered_window(3), now_ns()).verdict, push_verdict::retry);
}

}  // namespace
}  // namespace arec::fleet
