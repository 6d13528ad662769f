#include "fleet/pusher.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace arec::fleet
