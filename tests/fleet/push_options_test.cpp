#include "fleet/push_options.hpp"

#include <gtest/gtest.h>

#include "io/usage_error.hpp"

namespace arec::fleet {
namespace {

std::string usage_error_of(std::string_view option, std::string_view value) {
  push_options options;
  try {
    apply_push_option(options, option, value);
  } catch (const io::usage_error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(FleetPushOptions, UrlCredentialsGoToBasicAuth) {
  push_options options;
  apply_push_option(options, "--push", "https://user:s3cret@profiles.example:4040/base/");
  EXPECT_EQ(options.url, "https://profiles.example:4040/base");
  EXPECT_EQ(options.basic_user, "user");
  EXPECT_EQ(options.basic_password, "s3cret");
  EXPECT_EQ(push_endpoint(options),
            "https://profiles.example:4040/base/push.v1.PusherService/Push");
  apply_push_option(options, "--push", "http://localhost:4040");
  EXPECT_EQ(options.url, "http://localhost:4040");
}

TEST(FleetPushOptions, RefusesWhatIsNotAUrl) {
  EXPECT_EQ(usage_error_of("--push", "localhost:4040"),
            "--push: expected an http:// or https:// URL, got 'localhost:4040'");
  EXPECT_NE(usage_error_of("--push", "http://"), "(accepted)");
}

TEST(FleetPushOptions, IntervalTakesUnits) {
  EXPECT_EQ(parse_push_interval("15s"), std::chrono::seconds(15));
  EXPECT_EQ(parse_push_interval("10"), std::chrono::seconds(10));
  EXPECT_EQ(parse_push_interval("1500ms"), std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_push_interval("2m"), std::chrono::minutes(2));
  EXPECT_EQ(usage_error_of("--push-interval", "5h"),
            "--push-interval: expected a duration such as 15s, 500ms or 1m, got '5h'");
  EXPECT_EQ(usage_error_of("--push-interval", "200ms"),
            "--push-interval: expected 1s or more, got '200ms'");
  EXPECT_NE(usage_error_of("--push-interval", "-3s"), "(accepted)");
}

TEST(FleetPushOptions, LabelsAreKeyValuePairsWithValidKeys) {
  EXPECT_EQ(parse_push_label("env=prod"), (label{"env", "prod"}));
  EXPECT_EQ(parse_push_label("k=a=b"), (label{"k", "a=b"}));
  EXPECT_EQ(usage_error_of("--push-label", "env"), "--push-label: expected key=value, got 'env'");
  EXPECT_NE(usage_error_of("--push-label", "=x"), "(accepted)");
  EXPECT_NE(usage_error_of("--push-label", "x="), "(accepted)");
  EXPECT_NE(usage_error_of("--push-label", "bad-key=x"), "(accepted)");
}

TEST(FleetPushOptions, SeriesLabelsDefaultToTheHostAndLaterOnesWin) {
  push_options options;
  apply_push_option(options, "--push-label", "env=prod");
  apply_push_option(options, "--push-label", "env=staging");
  push_window window;
  window.labels = {{"cpu", "3"}};
  std::vector<label> expected{
      {"__name__", "process_cpu"}, {"service_name", host_name()}, {"env", "staging"}, {"cpu", "3"}};
  EXPECT_EQ(series_labels(options, window), expected);
  apply_push_option(options, "--push-label", "service_name=db");
  EXPECT_EQ(series_labels(options, window)[1], (label{"service_name", "db"}));
  EXPECT_FALSE(host_name().empty());
}

}  // namespace
}  // namespace arec::fleet
