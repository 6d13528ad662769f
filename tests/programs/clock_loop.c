// clock_loop [MILLISECONDS]: reads the clock in a loop for ~MILLISECONDS (default 1000) of
// CPU time, so most of its samples land in the vdso (libc's clock_gettime calls the vdso's
// __vdso_clock_gettime, which reads the clock without a system call).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 1000.0;
  if (milliseconds < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  struct timespec start, now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
  double spent = 0;
  unsigned long reads = 0;
  while (spent < milliseconds) {
    for (int i = 0; i < 1000; ++i, ++reads) clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    spent = (double)(now.tv_sec - start.tv_sec) * 1e3 + (double)(now.tv_nsec - start.tv_nsec) / 1e6;
  }
  printf("%lu clock reads\n", reads);
  return 0;
}
