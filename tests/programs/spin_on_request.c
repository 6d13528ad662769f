// spin_on_request REQUESTS DONE: for each line "1", "2" or "3" read from the fifo REQUESTS,
// spends 100 ms of its own CPU time in window_one, window_two or window_three, then writes
// "done\n" to the fifo DONE. A test that switches a recorder's sampling between requests
// (--control) learns from each window's samples what was sampled while it ran.
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile unsigned long accumulator;

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// CPU time, not wall time: on a busy machine each window still runs long enough to be sampled.
#define WINDOW(name)                                                                         \
  __attribute__((noinline, no_sanitize("address", "thread", "undefined"))) void name(void) { \
    const double end = cpu_ms() + 100.0;                                                     \
    while (cpu_ms() < end)                                                                   \
      for (unsigned long i = 0; i < 100000; ++i) accumulator += i;                           \
  }
WINDOW(window_one)
WINDOW(window_two)
WINDOW(window_three)

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s REQUESTS DONE\n", argv[0]);
    return 2;
  }
  FILE* requests = fopen(argv[1], "r");
  FILE* done = fopen(argv[2], "w");
  if (!requests || !done) {
    perror("spin_on_request: fopen");
    return 1;
  }
  char line[16];
  while (fgets(line, sizeof line, requests)) {
    if (line[0] == '1') window_one();
    if (line[0] == '2') window_two();
    if (line[0] == '3') window_three();
    fputs("done\n", done);
    fflush(done);
  }
  return 0;
}
