// hot_pair [MILLISECONDS]: spends ~MILLISECONDS (default 1000) of CPU time in two hot functions,
// hot_major twice as long per round as hot_minor, each called from its own caller, so a profile
// has two hot symbols with distinct shares and stacks (the export tests compare those shares).
// Its own CPU time: a loaded machine delays its end but takes none of its samples.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long accumulator;
static void* volatile frame_anchor;

// The frame address keeps a frame-pointer prologue in these leaves, so -g shows their callers.
__attribute__((noinline)) void hot_major(void) {
  frame_anchor = __builtin_frame_address(0);
  for (unsigned long i = 0; i < 1000000; ++i) accumulator += i;
}

__attribute__((noinline)) void hot_minor(void) {
  frame_anchor = __builtin_frame_address(0);
  for (unsigned long i = 0; i < 500000; ++i) accumulator += i;
}

__attribute__((noinline)) void call_major(void) {
  hot_major();
}
__attribute__((noinline)) void call_minor(void) {
  hot_minor();
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
