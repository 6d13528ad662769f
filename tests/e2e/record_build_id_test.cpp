// Build-ids: a process that dlopen()ed a library before arec attached is recorded; perf
// attributes its samples to the library's function and finds the library's build-id (as
// readelf -n shows it) in the BUILD_ID feature.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "perf_report.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr const char* library_source = R"(
volatile unsigned long accumulator;
__attribute__((noinline)) void library_spin(unsigned long milliseconds_hint) {
  for (;;)
    for (unsigned long i = 0; i < 1000000 + milliseconds_hint; ++i) accumulator += i;
}
)";

constexpr const char* loader_source = R"(
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* library = dlopen(argv[1], RTLD_NOW);
  if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  void (*spin)(unsigned long) = (void (*)(unsigned long))dlsym(library, "library_spin");
  if (!spin) return 1;
  printf("ready\n");
  fflush(stdout);
  spin(0);
  return 0;
}
)";

void write_file(const std::string& path, const char* text) { std::ofstream(path) << text; }

// The "Build ID: <hex>" readelf -n prints for `path`, or "" when it prints none.
std::string readelf_build_id(const std::string& path) {
  test::command_result run = test::run_command({"readelf", "-n", path});
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (auto at = line.find("Build ID: "); at != std::string::npos) return line.substr(at + 10);
  return {};
}

TEST(RecordBuildId, AttachedProcessLibraryIsResolvedAndListedWithItsBuildId) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string library = dir.file("libspin_e2e.so");
  const std::string loader = dir.file("loader");
  write_file(dir.file("library.c"), library_source);
  write_file(dir.file("loader.c"), loader_source);
  test::command_result built =
      test::run_command({"cc", "-O1", "-g", "-shared", "-fPIC", "-Wl,--build-id", "-o", library,
                         dir.file("library.c")});
  ASSERT_EQ(built.exit_code, 0) << built.describe();
  built = test::run_command({"cc", "-O1", "-o", loader, dir.file("loader.c"), "-ldl"});
  ASSERT_EQ(built.exit_code, 0) << built.describe();
  const std::string expected_id = readelf_build_id(library);
  ASSERT_EQ(expected_id.size(), 40u) << "readelf -n shows no 20-byte build-id";

  test::child_process spinner = test::child_process::spawn({loader, library});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "the loader did not report ready";
  ASSERT_EQ(*ready, "ready\n");

  const std::string data = dir.file("build_id.data");
  std::vector<std::string> args{"-p", std::to_string(spinner.pid()), "-o", data};
  for (std::string& arg : rec.duration_args("1")) args.push_back(std::move(arg));
  test::command_result run = test::run_command(rec.command(args), 30s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  double in_library = 0;
  for (const report_row& row : report.rows)
    if (row.dso == "libspin_e2e.so" && row.symbol == "library_spin") in_library += row.percent;
  EXPECT_GE(in_library, 90.0) << report.run.out;

  test::command_result listed = test::run_command({"perf", "buildid-list", "-i", data});
  ASSERT_EQ(listed.exit_code, 0) << listed.describe();
  EXPECT_NE(listed.out.find(expected_id + " " + library + "\n"), std::string::npos)
      << "perf buildid-list:\n" << listed.out << "expected " << expected_id << " " << library;
  std::istringstream lines(listed.out);
  std::string first;
  std::getline(lines, first);
  EXPECT_TRUE(first.ends_with(" [kernel.kallsyms]")) << "the kernel comes first:\n" << listed.out;
}

}  // namespace
}  // namespace arec::e2e
