// measure: runs a command and writes what wait4() says about it, for bench/compare:
//   measure OUTFILE COMMAND [ARGS...]
// OUTFILE gets "start_ns end_ns user_s sys_s maxrss_kib exit_status voluntary_cs involuntary_cs"
// (CLOCK_MONOTONIC ns; the context switches of all its threads: bench/scale counts wake-ups).
// It exists because ru_maxrss is a high-water mark that survives exec: a recorder forked from
// Python would report Python's RSS as its floor. Forked from this small process, it does not.
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: measure OUTFILE COMMAND [ARGS...]\n");
    return 2;
  }
  long long start = now_ns();
  pid_t child = fork();
  if (child < 0) {
    perror("measure: fork");
    return 1;
  }
  if (child == 0) {
    execvp(argv[2], argv + 2);
    perror("measure: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  while (wait4(child, &status, 0, &usage) < 0) {}
  long long end = now_ns();
  FILE* out = fopen(argv[1], "w");
  if (!out) {
    perror("measure: output");
    return 1;
  }
  int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fprintf(out, "%lld %lld %ld.%06ld %ld.%06ld %ld %d %ld %ld\n", start, end,
          (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec, (long)usage.ru_stime.tv_sec,
          (long)usage.ru_stime.tv_usec, usage.ru_maxrss, exit_status, usage.ru_nvcsw,
          usage.ru_nivcsw);
  return fclose(out) == 0 ? 0 : 1;
}
