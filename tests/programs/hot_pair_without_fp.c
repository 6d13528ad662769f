// hot_pair_without_fp [MILLISECONDS]: hot_pair's call chains (main -> call_major -> hot_major,
// main -> call_minor -> hot_minor, hot_major twice as long per round) in code built without
// frame pointers (tests/CMakeLists.txt), so only DWARF call frame information (.eh_frame)
// can find the callers: the `--call-graph dwarf` export tests unwind it. MILLISECONDS are of its
// own CPU time, so a loaded machine delays its end but takes none of its samples.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long accumulator;

__attribute__((noinline)) void hot_major(void) {
  for (unsigned long i = 0; i < 1000000; ++i) accumulator += i;
}

__attribute__((noinline)) void hot_minor(void) {
  for (unsigned long i = 0; i < 500000; ++i) accumulator += i;
}

// The volatile store after each call keeps it a call (not a tail jump) at any optimization.
__attribute__((noinline)) void call_major(void) {
  hot_major();
  accumulator += 1;
}
__attribute__((noinline)) void call_minor(void) {
  hot_minor();
  accumulator += 1;
}

static double cpu_time_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 1000.0;
  if (milliseconds < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  const double deadline = cpu_time_ms() + milliseconds;
  while (cpu_time_ms() < deadline) {
    call_major();
    call_minor();
  }
  return 0;
}
