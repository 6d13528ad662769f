// forked: runs a piece of a test in a forked child, for what must not touch the test process
// itself (a private mount namespace, dropped capabilities), and brings back its status and text.
#pragma once

#include <functional>
#include <string>

namespace arec::test {

// How the child's body ended: the status it returned (or -1 when it died) and what it reported.
struct forked_result {
  int status = -1;
  std::string text;
};

// A status the body returns when the machine cannot host the test (not a failure of the code
// under test); callers turn it into GTEST_SKIP, which CI counts as a failure.
inline constexpr int cannot_run_here = 77;

// Forks, runs body(report) in the child and _exits with its return value; an exception in the
// body is reported with status 1. Returns once the child is reaped.
forked_result run_forked(const std::function<int(std::string& report)>& body);

// In a child: a private mount namespace in which no tracefs is mounted (the host's mounts are
// untouched) and TRACEFS_PATH is unset. Returns an empty string, or why it could not.
std::string hide_tracefs();

// The calling process's mount table (/proc/self/mountinfo), to compare before and after.
std::string mount_table();

}  // namespace arec::test
