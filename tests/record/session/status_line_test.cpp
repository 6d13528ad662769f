// The recording's status line and convert's progress bar: their text, and that they draw only
// on a terminal.
#include "record/session/status_line.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/pseudo_terminal.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;
using test::drain;
using test::pseudo_terminal;

status_snapshot busy_recording() {
  status_snapshot status;
  status.elapsed = 12345ms;
  status.samples = 45678;
  status.bytes_written = 12'345'678;
  status.fullest_ring_permille = 374;
  return status;
}

TEST(StatusLine, ShowsTimeSamplesBytesLossesAndFullestRing) {
  EXPECT_EQ(format_status(busy_recording(), 200),
            "arec: 12.3 s | 45678 samples | 12.3 MB written | 0 lost | fullest ring 37%");
}

TEST(StatusLine, MarksLostSamplesAndShowsTheCompressionRatio) {
  status_snapshot status = busy_recording();
  status.lost = 17;
  status.compression_ratio = 4.06;
  EXPECT_EQ(format_status(status, 200),
            "arec: 12.3 s | 45678 samples | 12.3 MB written (x4.1) | 17 LOST | fullest ring 37%");
}

TEST(StatusLine, LongRecordingsShowMinutesAndHours) {
  status_snapshot status = busy_recording();
  status.elapsed = 125s;
  EXPECT_TRUE(format_status(status, 200).starts_with("arec: 2m05s | "))
      << format_status(status, 200);
  status.elapsed = 3h + 2min + 5s;
  EXPECT_TRUE(format_status(status, 200).starts_with("arec: 3h02m05s | "));
}

TEST(StatusLine, IsCutToLessThanTheTerminalWidth) {
  std::string line = format_status(busy_recording(), 40);
  EXPECT_EQ(line.size(), 39u) << "a full last column would wrap on some terminals";
  EXPECT_EQ(line, format_status(busy_recording(), 200).substr(0, 39));
}


TEST(StatusLine, RedrawsInPlaceOnATerminalAndErasesItselfWhenCleared) {
  pseudo_terminal pty;
  if (!pty.error.empty()) GTEST_SKIP() << "openpty: " << pty.error;
  status_line line(pty.slave.get(), true);
  ASSERT_TRUE(line.active());
  line.draw(busy_recording());
  line.clear();
  line.draw(busy_recording());  // after clear: nothing
  EXPECT_EQ(drain(pty.master.get()),
            "\r" + format_status(busy_recording(), 60) + "\x1b[K" + "\r\x1b[K");
}

TEST(StatusLine, DrawsNothingWhenDisabledOrNotATerminal) {
  pseudo_terminal pty;
  if (!pty.error.empty()) GTEST_SKIP() << "openpty: " << pty.error;
  {
    status_line quiet(pty.slave.get(), false);
    EXPECT_FALSE(quiet.active());
    quiet.draw(busy_recording());
  }
  EXPECT_EQ(drain(pty.master.get()), "");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  io::unique_fd read_end(pipe_fds[0]);
  io::unique_fd write_end(pipe_fds[1]);
  {
    status_line piped(write_end.get(), true);
    EXPECT_FALSE(piped.active());
    piped.draw(busy_recording());
  }
  write_end = io::unique_fd();
  char byte;
  EXPECT_EQ(::read(read_end.get(), &byte, 1), 0) << "a pipe must receive nothing";
}

}  // namespace
}  // namespace arec::record
