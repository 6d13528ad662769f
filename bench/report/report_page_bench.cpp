// report_page_bench OUT.html [--timed]: writes the report page of a synthetic profile the size of a big
// real one (1,020,000 samples in 100,000 distinct stacks, ~20,000 C++-like names of ~56
// characters, depth up to 78, Zipf-weighted, 8 threads; with --timed each stack's samples are
// spread at random over 100 time buckets as arec report asks the profile builder for them, the
// worst case for the timelines' rows; seeded, so every run is the same) and
// prints, as one JSON line, how long each step took: the page model, the HTML, the write.
// bench/report/run.sh runs it, then opens the page in headless Chromium.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "io/output_path.hpp"
#include "io/published_file.hpp"
#include "report/page_model.hpp"
#include "report/page_writer.hpp"
#include "report/recording_facts.hpp"
#include "report/reporter.hpp"

namespace {

using arec::exporting::profile;

constexpr std::size_t stacks = 100'000;
constexpr std::int64_t samples = 1'020'000;
constexpr std::size_t names = 20'000;
constexpr std::size_t max_depth = 78;
constexpr std::int64_t period_ns = 250'000;
std::size_t stack_count = 0;  // distinct stacks made (samples are per stack and bucket)
bool timed = false;           // --timed

std::int64_t intern(profile& result, std::string text) {
  result.strings.push_back(std::move(text));
  return static_cast<std::int64_t>(result.strings.size() - 1);
}

// One location and function per name: the page merges by name anyway.
void add_names(profile& result, std::mt19937_64& random) {
  std::int64_t file = intern(result, "/usr/bin/app");
  for (std::size_t i = 0; i < names; ++i) {
    static constexpr const char* arguments[] = {"()", "(int)", "(std::string const&)",
                                                "(void*, unsigned long)", "(Request&, bool)"};
    std::string name = "engine" + std::to_string(random() % 40) + "::Component" +
                       std::to_string(random() % 500) + "::method" + std::to_string(i) +
                       arguments[random() % 5];
    result.functions.push_back({i + 1, intern(result, std::move(name)), file});
    result.locations.push_back({i + 1, 1, 0x1000 + i * 16, i + 1});
  }
}

// Stacks grow from earlier ones (shared prefixes, as real call trees have), heavier first.
void add_stacks(profile& result, std::mt19937_64& random) {
  std::int64_t pid = intern(result, "pid"), tid = intern(result, "tid"), comm = intern(result, "comm");
  std::int64_t app = intern(result, "app");
  std::int64_t when = intern(result, "time_bucket");
  std::vector<std::vector<std::uint64_t>> root_first;
  root_first.reserve(stacks);
  double harmonic = 0;
  for (std::size_t i = 0; i < stacks; ++i) harmonic += 1.0 / std::pow(i + 1.0, 0.9);
  std::int64_t spread = samples - static_cast<std::int64_t>(stacks);
  for (std::size_t i = 0; i < stacks; ++i) {
    std::vector<std::uint64_t> stack;
    if (i > 0 && random() % 20 != 0) stack = root_first[random() % i];
    if (stack.size() >= max_depth) stack.resize(max_depth / 2);
    // Mostly one frame more than the stack it grows from: ~1.3 new nodes per stack, the
    // shape of a real profile of this size (100,000 stacks, ~130,000 nodes).
    std::size_t extra = random() % 4 == 0 ? 2 + random() % 2 : 1;
    for (; extra > 0; --extra) stack.push_back(1 + random() % names);
    root_first.push_back(stack);
    auto count = 1 + static_cast<std::int64_t>(spread / std::pow(i + 1.0, 0.9) / harmonic);
    std::int64_t thread = static_cast<std::int64_t>(i % 8);
    // A stack's samples fall in random buckets: as many rows as buckets it has samples in.
    std::map<std::int64_t, std::int64_t> per_bucket;
    for (std::int64_t n = 0; n < std::min<std::int64_t>(count, 400); ++n)
      ++per_bucket[timed ? static_cast<std::int64_t>(random() % arec::report::timeline_buckets) : 0];
    if (count > 400)
      for (auto& [bucket, n] : per_bucket) n = n * count / 400;
    for (auto [bucket, n] : per_bucket) {
      arec::exporting::profile_sample sample;
      sample.location_ids.assign(stack.rbegin(), stack.rend());
      sample.values = {n, n * period_ns};
      sample.labels = {{pid, 0, 1000}, {tid, 0, 1000 + thread}, {comm, app, 0}};
      if (timed) sample.labels.push_back({when, 0, bucket});
      result.samples.push_back(std::move(sample));
    }
  }
  // What rounding left out goes to the heaviest stack: exactly `samples` in all.
  std::int64_t counted = 0;
  for (const auto& sample : result.samples) counted += sample.values[0];
  result.samples.front().values[0] += samples - counted;
  result.samples.front().values[1] = result.samples.front().values[0] * period_ns;
  stack_count = root_first.size();
}

profile synthetic_profile() {
  std::mt19937_64 random(41);
  profile result;
  result.strings = {""};
  result.sample_types = {{intern(result, "cpu-clock_samples"), intern(result, "count")},
                         {intern(result, "cpu-clock"), intern(result, "nanoseconds")}};
  result.default_sample_type = result.sample_types[1].type;
  result.period_type = result.sample_types[1];
  result.period = period_ns;
  result.mappings.push_back({1, 0x1000, 0x100000, 0, intern(result, "/usr/bin/app"), 0, true, false});
  add_names(result, random);
  add_stacks(result, random);
  return result;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--timed")) {
    std::fprintf(stderr, "usage: %s OUT.html [--timed]\n", argv[0]);
    return 2;
  }
  timed = argc == 3;
  const std::string path = argv[1];
  profile source = synthetic_profile();
  std::int64_t total_samples = 0;
  for (const auto& sample : source.samples) total_samples += sample.values[0];

  auto start = std::chrono::steady_clock::now();
  arec::report::page_model model = arec::report::build_page_model(source);
  model.bucket_ns = 10'000'000;
  std::size_t timed_rows = model.rows.size();
  arec::report::coarsen_buckets(model, arec::report::timeline_rows);
  double model_ms = since(start);
  arec::report::recording_facts facts;
  facts.events = {"cpu-clock"};
  facts.samples = static_cast<std::uint64_t>(total_samples);
  facts.period = period_ns;
  facts.period_unit = "nanoseconds";
  facts.command_line = "report_page_bench (synthetic)";
  start = std::chrono::steady_clock::now();
  std::string html = arec::report::page_html(model, facts);
  double html_ms = since(start);
  start = std::chrono::steady_clock::now();
  arec::io::published_file file(path, arec::io::publish_policy::replace);
  arec::io::write_all_at(file.fd(), html.data(), html.size(), 0, path);
  file.commit();
  double write_ms = since(start);
  std::printf("{\"samples\":%lld,\"stacks\":%zu,\"nodes\":%zu,\"rows\":%zu,\"timed_rows\":%zu,"
              "\"buckets\":%u,\"bytes\":%zu,\"model_ms\":%.1f,\"html_ms\":%.1f,\"write_ms\":%.1f}\n",
              static_cast<long long>(total_samples), stack_count, model.node_name.size(),
              model.rows.size(), timed_rows, model.buckets, html.size(), model_ms, html_ms,
              write_ms);
  return 0;
}
