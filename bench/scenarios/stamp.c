// stamp: the workload bench/compare runs inside a recorder. It writes the CLOCK_MONOTONIC times
// at which it started and ended to a file, so the recorder's start-up (launch to workload start)
// and tail (workload end to recorder exit) can be told apart from the recording period.
//   stamp FILE [--release FIFO]... [--wait-pid PID] [--sleep SECONDS]
// --release writes one byte to FIFO (lets a workload that runs OUTSIDE the recorder begin once
// the recorder's events are enabled, or tells the harness the recording runs); it may be given
// up to four times. --wait-pid waits for that process to exit (pidfd), and --sleep sleeps; in
// that order. With no option it behaves like `true`.
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  long long start = now_ns();
  if (argc < 2) {
    fprintf(stderr, "usage: stamp FILE [--release FIFO]... [--wait-pid PID] [--sleep SECONDS]\n");
    return 2;
  }
  const char* release[4];
  int releases = 0;
  int wait_pid = 0;
  double sleep_s = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--release") == 0 && releases < 4) release[releases++] = argv[i + 1];
    else if (strcmp(argv[i], "--wait-pid") == 0) wait_pid = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--sleep") == 0) sleep_s = atof(argv[i + 1]);
    else { fprintf(stderr, "stamp: unknown option %s\n", argv[i]); return 2; }
  }
  for (int r = 0; r < releases; ++r) {
    int fd = open(release[r], O_WRONLY);
    if (fd < 0 || write(fd, "g", 1) != 1) { perror("stamp: release"); return 1; }
    close(fd);
  }
  if (wait_pid > 0) {
    int fd = (int)syscall(SYS_pidfd_open, wait_pid, 0);
    if (fd >= 0) {  // a pidfd turns readable when the process exits
      struct pollfd p = {fd, POLLIN, 0};
      while (poll(&p, 1, -1) < 0) {}
      close(fd);
    }
  }
  if (sleep_s > 0) {
    struct timespec t = {(time_t)sleep_s, (long)((sleep_s - (time_t)sleep_s) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) != 0) {}
  }
  long long end = now_ns();
  FILE* out = fopen(argv[1], "w");
  if (!out) { perror("stamp: output"); return 1; }
  fprintf(out, "%lld %lld\n", start, end);
  return fclose(out) == 0 ? 0 : 1;
}
