// The machine-describing features perf record 6.1 writes from sysfs (PMU_MAPPINGS, CACHE,
// MEM_TOPOLOGY): `perf report --header-only` shows the same sections for arec's file as for
// perf record's, recorded one after the other on this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/pmu_order.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// `perf report --header-only` of `data`; with -I, also the details of CACHE and MEM_TOPOLOGY.
std::string header_of(const std::string& data, bool with_details) {
  std::vector<std::string> command{"perf", "report", "--header-only", "-i", data};
  if (with_details) command.push_back("-I");
  test::command_result header = test::run_command(command);
  EXPECT_EQ(header.exit_code, 0) << header.describe();
  return header.out;
}

// The line starting with `title` and the "#  ..." lines under it; empty when there is none.
std::string section(const std::string& header, const std::string& title) {
  std::size_t at = header.find("\n" + title);
  if (at == std::string::npos) return {};
  std::string out;
  for (std::size_t line = at + 1; line < header.size();) {
    std::size_t end = header.find('\n', line);
    if (end == std::string::npos) end = header.size();
    std::string text = header.substr(line, end - line);
    if (!out.empty() && !text.starts_with("#  ")) break;
    out += text + '\n';
    line = end + 1;
  }
  return out;
}

// "software = 1, uprobe = 8" -> its entries sorted, for comparing two lists as sets.
std::vector<std::string> sorted_entries(std::string line) {
  std::vector<std::string> entries;
  line = line.substr(line.find(':') + 1);
  for (std::size_t at = 0; at < line.size();) {
    std::size_t end = line.find(',', at);
    if (end == std::string::npos) end = line.size();
    entries.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  for (std::string& entry : entries) {
    entry.erase(0, entry.find_first_not_of(" \n"));
    entry.erase(entry.find_last_not_of(" \n") + 1);
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}


// The arguments of one recording of `true` with cpu-clock into `out`, for arec or perf record.
std::vector<std::string> record_args(const std::string& out) {
  return {"-q", "-e", "cpu-clock", "-o", out, "--", "true"};
}

TEST(RecordHeader, PmuMappingsCacheAndMemoryTopologyReadAsPerfRecords) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string ours = dir.file("rec.data");
  const std::string theirs = dir.file("perf.data");
  test::command_result our_run = test::run_command(rec.command(record_args(ours)), 60s);
  ASSERT_EQ(our_run.exit_code, 0) << our_run.describe();
  std::vector<std::string> perf_command{"perf", "record"};
  for (std::string& arg : record_args(theirs)) perf_command.push_back(std::move(arg));
  test::command_result perf_run = test::run_command(perf_command, 60s);
  ASSERT_EQ(perf_run.exit_code, 0) << perf_run.describe();

  for (bool details : {false, true}) {
    std::string our_header = header_of(ours, details);
    std::string perf_header = header_of(theirs, details);
    SCOPED_TRACE(std::string(details ? "with -I" : "without -I") + "; " + rec.describe() +
                 "\nperf's header:\n" + perf_header + "\nour header:\n" + our_header);

    std::string perf_pmus = section(perf_header, "# pmu mappings: ");
    ASSERT_FALSE(perf_pmus.empty()) << "perf wrote no PMU_MAPPINGS";
    if (test::perf_lists_intel_auxtrace_first())
      EXPECT_EQ(sorted_entries(section(our_header, "# pmu mappings: ")), sorted_entries(perf_pmus));
    else
      EXPECT_EQ(section(our_header, "# pmu mappings: "), perf_pmus);

    if (!details) {
      for (const char* summary : {"# CACHE info available", "# MEM_TOPOLOGY info available"}) {
        ASSERT_FALSE(section(perf_header, summary).empty()) << "perf: no " << summary;
        EXPECT_EQ(section(our_header, summary), section(perf_header, summary));
      }
      continue;
    }
    std::string perf_caches = section(perf_header, "# CPU cache info:");
    ASSERT_FALSE(perf_caches.empty()) << "perf wrote no CACHE";
    EXPECT_EQ(section(our_header, "# CPU cache info:"), perf_caches);
    std::string perf_memory = section(perf_header, "# memory nodes ");
    ASSERT_FALSE(perf_memory.empty()) << "perf wrote no MEM_TOPOLOGY";
    EXPECT_EQ(section(our_header, "# memory nodes "), perf_memory);
  }
}

}  // namespace
}  // namespace arec::e2e
