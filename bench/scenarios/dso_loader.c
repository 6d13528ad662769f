// dso_loader: a workload for bench/buildid_cache, run INSIDE the recorder. It dlopen()s every
// library named on its command line (so the recorder sees their mmaps and caches them), spins
// for a while, then writes to FILE: "start_ns end_ns user_s sys_s" (CLOCK_MONOTONIC times and
// its own CPU), so the harness can tell the recorder's CPU and exit tail from the workload's.
//   dso_loader FILE [--spin SECONDS] [LIBRARY...]
// A library that fails to load is an error (exit 3): the harness picks ones that load.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double seconds(struct timeval t) {
  return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

// Busy until `spin_s` of wall time passed; volatile so the loop is not optimised away.
static void spin(double spin_s) {
  long long until = now_ns() + (long long)(spin_s * 1e9);
  volatile unsigned long sink = 0;
  while (now_ns() < until) {
    for (int i = 0; i < 10000; ++i) sink += (unsigned long)i;
  }
}

int main(int argc, char** argv) {
  long long start = now_ns();
  if (argc < 2) {
    fprintf(stderr, "usage: dso_loader FILE [--spin SECONDS] [LIBRARY...]\n");
    return 2;
  }
  int first = 2;
  double spin_s = 0;
  if (argc > 3 && strcmp(argv[2], "--spin") == 0) {
    spin_s = atof(argv[3]);
    first = 4;
  }
  for (int i = first; i < argc; ++i) {
    // Kept open to the end: the mapping must exist while the recorder looks at it.
    if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
      fprintf(stderr, "dso_loader: %s\n", dlerror());
      return 3;
    }
  }
  if (spin_s > 0) spin(spin_s);
  struct rusage self;
  getrusage(RUSAGE_SELF, &self);
  long long end = now_ns();
  FILE* out = fopen(argv[1], "w");
  if (!out) {
    perror("dso_loader: output");
    return 1;
  }
  fprintf(out, "%lld %lld %.6f %.6f\n", start, end, seconds(self.ru_utime), seconds(self.ru_stime));
  return fclose(out) == 0 ? 0 : 1;
}
