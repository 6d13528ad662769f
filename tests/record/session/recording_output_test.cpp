// recording_output: a recording's files appear only once their prologue is in (an O_TMPFILE
// given its name at publish), an existing output is kept as PATH.old, and a directory gets its
// data.N files after its header file.
#include "record/session/recording_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "support/temp_dir.hpp"

namespace arec::record {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

TEST(RecordingOutput, AFileHasNoNameUntilPublishedThenHoldsWhatWasWritten) {
  test::temp_dir dir;
  std::string path = dir.file("perf.data");
  recording_output output = recording_output::create(path, false, 1);
  ASSERT_EQ(::write(output.header_fd(), "PERFILE2", 8), 8);
  EXPECT_FALSE(exists(path));
  output.publish();
  ASSERT_EQ(::write(output.stream_fd(0), "more", 4), 4);  // the same file, named now
  EXPECT_EQ(std::filesystem::file_size(path), 12u);
  EXPECT_EQ(std::filesystem::status(path).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST(RecordingOutput, NeverPublishedItLeavesNothingButThePreviousOutputKept) {
  test::temp_dir dir;
  std::string path = dir.file("perf.data");
  std::ofstream{path} << "old\n";
  { recording_output output = recording_output::create(path, false, 1); }
  EXPECT_FALSE(exists(path));
  EXPECT_TRUE(exists(path + ".old"));
}

TEST(RecordingOutput, PublishingOverAFilePlantedMeanwhileFailsNamingIt) {
  test::temp_dir dir;
  std::string path = dir.file("perf.data");
  recording_output output = recording_output::create(path, false, 1);
  ASSERT_EQ(::symlink("/etc/passwd", path.c_str()), 0);
  try {
    output.publish();
    ADD_FAILURE() << "published over a planted symlink";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()), "create " + path + ": File exists");
  }
}

TEST(RecordingOutput, ADirectoryGetsItsDataFilesAfterItsHeaderFile) {
  test::temp_dir dir;
  std::string path = dir.file("perf.data");
  recording_output output = recording_output::create(path, true, 2);
  EXPECT_TRUE(std::filesystem::is_empty(path)) << "a directory is empty or has `data`";
  output.publish();
  EXPECT_TRUE(exists(path + "/data"));
  EXPECT_TRUE(exists(path + "/data.0"));
  EXPECT_TRUE(exists(path + "/data.1"));
  EXPECT_EQ(output.stream_path(1), path + "/data.1");
}

}  // namespace
}  // namespace arec::record
