// rotated_outputs: the files (or --threads directories) that --switch-output and --overwrite
// snapshots leave, found by perf's names PATH.YYYYmmddHHMMSScc, and what each must be: whole
// on its own.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "perf_script.hpp"

namespace arec::e2e {

// The outputs named `base`.<16 digits> in `dir`, oldest first (the names sort by time).
inline std::vector<std::string> rotated_outputs(const std::string& dir, const std::string& base) {
  constexpr std::size_t timestamp_digits = 16;  // YYYYmmddHHMMSS and centiseconds
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(base + ".")) continue;
    std::string stamp = name.substr(base.size() + 1);
    if (stamp.size() == timestamp_digits &&
        std::all_of(stamp.begin(), stamp.end(), [](char c) { return c >= '0' && c <= '9'; }))
      found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// perf report and perf script read `data` alone, without warnings; returns its sample count.
// `program`'s samples all resolve: the file has the tasks and mmaps they need, although the
// records of the program's start are in an earlier file (or were overwritten long ago).
// perf report's "lost N chunks" is no complaint about the file: an --overwrite snapshot pauses
// the rings while it reads them, and on a busy machine a ring overflows; the kernel drops and
// counts (in a LOST record) what comes meanwhile, as with perf.
inline std::size_t expect_readable_alone(const std::string& data,
                                         const std::string& program = "hot_loop") {
  perf_report report = run_perf_report(data);
  EXPECT_EQ(report.run.exit_code, 0) << data << ": " << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << data << ": " << report.run.err;
  perf_script script = run_perf_script(data);
  EXPECT_EQ(script.run.exit_code, 0) << data << ": " << script.run.describe();
  // No sample of the program lacks its mapping (perf shows "[unknown]" for the dso then).
  std::size_t unresolved = 0;
  // A sample without a comm is of a task the file never describes: unresolved too.
  for (const script_sample& s : script.samples)
    if ((s.comm.empty() || program.starts_with(s.comm)) && !s.frames.empty() &&
        s.frames[0].dso == "[unknown]")
      ++unresolved;
  EXPECT_EQ(unresolved, 0u) << data << ": samples of " << program
                            << " (or of no known task) without a mapping:\n"
                            << excerpt(script.run.out);
  return sample_records(data);  // not script's lines: other tasks' names may split them
}

}  // namespace arec::e2e
