#include "fleet/wire_format.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace arec::fleet
