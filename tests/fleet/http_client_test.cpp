#include "fleet/http_client.hpp"

#include <gtest/gtest.h>

#include "stand_in/stand_in_server.hpp"

namespace arec::fleet {
namespace {

using test::stand_in_server;

TEST(HttpClient, KeepsOnlyTheStartOfAHugeAnswer) {
  stand_in_server server;
  // A broken or hostile server: 8 MiB of error page; arec keeps what a message needs.
  std::string huge(8 << 20, 'x');
  server.reply_next(stand_in_server::raw_reply(500, "Content-Type: text/html\r\n", huge));
  std::atomic<bool> abort{false};
  http_client client{http_timeouts{}, abort};
  http_response response = client.post(server.url() + "/push.v1.PusherService/Push", {}, "body");
  const std::size_t kept = 64 * 1024;  // http_client::max_kept_body
  EXPECT_EQ(response.status, 500) << response.error;
  EXPECT_EQ(response.body.size(), kept);
  EXPECT_TRUE(response.body == huge.substr(0, kept)) << "the start of the body, unchanged";
}

TEST(HttpClient, ASmallAnswerIsKeptWhole) {
  stand_in_server server;
  server.reply_next(stand_in_server::raw_reply(503, "", "{\"code\":\"unavailable\"}"));
  std::atomic<bool> abort{false};
  http_client client{http_timeouts{}, abort};
  http_response response = client.post(server.url() + "/x", {}, "body");
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, "{\"code\":\"unavailable\"}");
}

}  // namespace
}  // namespace arec::fleet
