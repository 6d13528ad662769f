// The recording's status line and convert's progress bar: their text, and that they draw only
// on a terminal.
#include "record/status_line.hpp"

#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/unique_fd.hpp"
#include "record/progress_bar.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;

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

TEST(StatusLine, BytesUseDecimalUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1500), "1.5 kB");
  EXPECT_EQ(format_bytes(999'960), "1.0 MB");
  EXPECT_EQ(format_bytes(4'200'000'000), "4.2 GB");
}

// Everything the master side of a pty holds right now.
std::string drain(int master) {
  std::string text;
  char buffer[4096];
  for (;;) {
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(master, &readable);
    timeval timeout{0, 100'000};
    if (::select(master + 1, &readable, nullptr, nullptr, &timeout) <= 0) break;
    ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

struct pseudo_terminal {
  pseudo_terminal() {
    int m = -1;
    int s = -1;
    winsize size{};
    size.ws_col = 60;
    size.ws_row = 24;
    if (::openpty(&m, &s, nullptr, nullptr, &size) != 0) {
      error = std::strerror(errno);
      return;
    }
    master = io::unique_fd(m);
    slave = io::unique_fd(s);
  }
  std::string error;
  io::unique_fd master;
  io::unique_fd slave;
};

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

TEST(ProgressBar, ShowsBytesDoneOfTotalRateAndTimeLeft) {
  EXPECT_EQ(format_progress(10'000'000, 40'000'000, 2000ms, 200),
            "arec: converting [#####...............]  25% 10.0 MB of 40.0 MB, 5.0 MB/s, 0:06 left");
  EXPECT_EQ(format_progress(40'000'000, 40'000'000, 8000ms, 200),
            "arec: converting [####################] 100% 40.0 MB of 40.0 MB, 5.0 MB/s, 0:00 left");
}

TEST(ProgressBar, SaysNoRateBeforeAnythingIsDone) {
  EXPECT_EQ(format_progress(0, 1000, 0ms, 200),
            "arec: converting [....................]   0% 0 B of 1.0 kB");
  EXPECT_EQ(format_progress(0, 0, 0ms, 200),
            "arec: converting [####################] 100% 0 B of 0 B");
}

TEST(ProgressBar, IsCutToLessThanTheTerminalWidth) {
  EXPECT_EQ(format_progress(1, 2, 1000ms, 30).size(), 29u);
}

TEST(ProgressBar, DrawsOnATerminalAtMostTenTimesASecondAndErasesItself) {
  pseudo_terminal pty;
  if (!pty.error.empty()) GTEST_SKIP() << "openpty: " << pty.error;
  {
    progress_bar bar(pty.slave.get(), true);
    ASSERT_TRUE(bar.active());
    bar.update(1, 4);
    bar.update(2, 4);  // within 100 ms of the first: not drawn
    bar.update(4, 4);  // the end: drawn whenever it comes
  }
  std::string shown = drain(pty.master.get());
  EXPECT_TRUE(shown.starts_with("\rarec: converting [#####...............]  25% 1 B of 4 B"))
      << shown;
  EXPECT_EQ(shown.find(" 50%"), std::string::npos) << shown;
  EXPECT_NE(shown.find("] 100% 4 B of 4 B"), std::string::npos) << shown;
  EXPECT_TRUE(shown.ends_with("\x1b[K\r\x1b[K")) << "erased when destroyed";
}

}  // namespace
}  // namespace arec::record
