// live_push within the server's limits: a window with more samples or bytes than one profile
// may hold reaches the server as several profiles of the same time range that add up to the
// window, and stacks deeper than the server keeps are cut to their innermost frames, said once.
#include "push/live_push.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "export/profile.pb.h"
#include "io/unique_fd.hpp"
#include "perf_data/perf_file_writer.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/side_band_records.hpp"
#include "support/temp_dir.hpp"

namespace arec::push {
namespace {

using namespace exporting::test_records;

constexpr std::uint64_t user_start = 0x400000;
// A window that ended now: the server refuses old ones.
const std::int64_t window_start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count() -
                                     15'000'000'000;

// A single-file perf.data of cpu_clock_event() holding `records`.
void write_recording(const std::string& path, const std::vector<std::vector<std::byte>>& records) {
  io::unique_fd fd{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
  ASSERT_TRUE(fd) << path;
  perf_data::perf_file_writer writer(fd.get(), path);
  std::vector<perf_data::event_entry> events{cpu_clock_event()};
  std::uint64_t offset = writer.write_prologue(events);
  std::uint64_t size = 0;
  for (const std::vector<std::byte>& record : records) {
    ASSERT_EQ(::pwrite(fd.get(), record.data(), record.size(), static_cast<off_t>(offset + size)),
              static_cast<ssize_t>(record.size()));
    size += record.size();
  }
  writer.write_epilogue(size, {});
}

// `count` samples of one thread, each with its own leaf under the same `depth - 1` callers.
std::vector<std::vector<std::byte>> distinct_stacks(int count, int depth) {
  std::vector<std::vector<std::byte>> records{
      mmap2(100, user_start, 0x100000, 0, "/nonexistent/app"), comm(100, 100, "app")};
  for (int i = 0; i < count; ++i) {
    std::vector<std::uint64_t> chain{PERF_CONTEXT_USER, user_start + 0x10 * (i + 1)};
    for (int caller = 1; caller < depth; ++caller) chain.push_back(user_start + 0x10000 + caller);
    records.push_back(sample(100, 100, 1000 + i, 0, PERF_RECORD_MISC_USER, chain));
  }
  return records;
}

perftools::profiles::Profile decoded(const std::string& gzipped) {
  std::string message(64 << 10, '\0');
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 16 + MAX_WBITS), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzipped.data()));
  stream.avail_in = static_cast<uInt>(gzipped.size());
  stream.next_out = reinterpret_cast<Bytef*>(message.data());
  stream.avail_out = static_cast<uInt>(message.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END) << "a profile over 64 KiB in this test";
  message.resize(stream.total_out);
  inflateEnd(&stream);
  perftools::profiles::Profile profile;
  EXPECT_TRUE(profile.ParseFromString(message));
  return profile;
}

struct pushed {
  std::vector<perftools::profiles::Profile> profiles;
  std::vector<std::size_t> sizes;  // uncompressed
  std::vector<std::string> reports;
  push_totals totals;
};

class PushLimits : public ::testing::Test {
 protected:
  // Pushes one window holding `records` through live_push under `limits`.
  pushed push_window(const std::vector<std::vector<std::byte>>& records,
                     const fleet::ingest_limits& limits) {
    std::string path = dir_.file("window.data");
    write_recording(path, records);
    fleet::push_options options;
    options.url = server_.url();
    options.service_name = "limits-test";
    options.limits = limits;
    pushed out;
    std::size_t earlier = server_.received().size();
    {
      live_push live(options, true,
                     [&out](const std::string& line) { out.reports.push_back(line); });
      live.output_finished({path, window_start_ns, window_start_ns + 15'000'000'000});
      live.stop();
      out.totals = live.totals();
    }
    std::vector<test::received_push> received = server_.received();
    for (std::size_t i = earlier; i < received.size(); ++i)
      for (const std::string& raw : received[i].profiles) {
        out.profiles.push_back(decoded(raw));
        out.sizes.push_back(out.profiles.back().ByteSizeLong());
      }
    return out;
  }

  static std::int64_t sample_count(const perftools::profiles::Profile& profile) {
    std::int64_t count = 0;
    for (const auto& sample : profile.sample()) count += sample.value(0);  // "samples" first
    return count;
  }

  test::stand_in_server server_;
  test::temp_dir dir_;
};

TEST_F(PushLimits, AWindowOverTheSampleLimitArrivesAsSeveralProfilesOfTheSameRange) {
  fleet::ingest_limits limits;
  limits.max_samples_per_profile = 4;
  pushed out = push_window(distinct_stacks(10, 3), limits);
  ASSERT_EQ(out.profiles.size(), 3u);
  std::int64_t total = 0;
  for (const perftools::profiles::Profile& profile : out.profiles) {
    EXPECT_LE(profile.sample_size(), 4);
    EXPECT_EQ(profile.time_nanos(), window_start_ns);
    EXPECT_EQ(profile.duration_nanos(), 15'000'000'000);
    EXPECT_EQ(profile.location_size(), profile.sample_size() + 2) << "its leaves, 2 callers";
    total += sample_count(profile);
  }
  EXPECT_EQ(total, 10);
  EXPECT_EQ(out.totals.windows, 1u);
  EXPECT_EQ(out.totals.profiles, 3u);
  EXPECT_EQ(out.totals.delivered, 3u);
  EXPECT_EQ(out.totals.samples, 10u);
  ASSERT_EQ(out.reports.size(), 1u);
  EXPECT_NE(out.reports[0].find("sent as 3 profiles of the same time range"), std::string::npos)
      << out.reports[0];
}

TEST_F(PushLimits, AWindowOverTheSizeLimitIsHalvedUntilEachProfileFits) {
  fleet::ingest_limits limits;
  pushed whole = push_window(distinct_stacks(40, 6), limits);
  ASSERT_EQ(whole.profiles.size(), 1u);
  std::size_t whole_size = whole.sizes[0];

  limits.max_profile_size_bytes = whole_size / 3;
  pushed out = push_window(distinct_stacks(40, 6), limits);
  ASSERT_GE(out.profiles.size(), 4u) << "whole: " << whole_size << " bytes";
  std::int64_t total = 0;
  for (std::size_t i = 0; i < out.profiles.size(); ++i) {
    EXPECT_LE(out.sizes[i], limits.max_profile_size_bytes);
    total += sample_count(out.profiles[i]);
  }
  EXPECT_EQ(total, 40);
}

TEST_F(PushLimits, DeepStacksAreCutToTheirInnermostFramesAndSaidOnce) {
  fleet::ingest_limits limits;
  limits.max_stack_depth = 5;
  std::vector<std::vector<std::byte>> records = distinct_stacks(6, 9);
  records.push_back(sample(100, 100, 5000, 0, PERF_RECORD_MISC_USER,
                           {PERF_CONTEXT_USER, user_start + 0x800, user_start + 0x10001}));
  pushed out = push_window(records, limits);
  ASSERT_EQ(out.profiles.size(), 1u);
  const perftools::profiles::Profile& profile = out.profiles[0];
  ASSERT_EQ(profile.sample_size(), 7);
  std::vector<std::uint64_t> leaves;
  for (const auto& sample : profile.sample()) {
    EXPECT_LE(sample.location_id_size(), 5);
    leaves.push_back(profile.location(static_cast<int>(sample.location_id(0) - 1)).address());
  }
  for (int i = 0; i < 6; ++i)
    EXPECT_NE(std::find(leaves.begin(), leaves.end(), user_start + 0x10 * (i + 1)), leaves.end())
        << "the leaf of stack " << i << " is kept";
  EXPECT_EQ(out.totals.cut_stacks, 6u);
  ASSERT_EQ(out.reports.size(), 1u);
  EXPECT_NE(out.reports[0].find("deeper than the server's 5 frames"), std::string::npos)
      << out.reports[0];
  EXPECT_NE(out.reports[0].find("(6 in this window)"), std::string::npos) << out.reports[0];
}

}  // namespace
}  // namespace arec::push
