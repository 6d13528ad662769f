// off_cpu_pair [SLEEP_MS WAIT_MS ROUNDS]: blocks ROUNDS times in each of two functions of its
// own, sleeping SLEEP_MS in sleep_in_nanosleep and waiting WAIT_MS on a pipe (a child writes
// to it that late) in wait_on_pipe; each makes its system call itself, so the stack it blocks
// in has the function as its leaf (libc's wrappers keep no frame pointer). Prints the time it
// measured blocked in each: "sleep_ns=N wait_ns=M". The --off-cpu tests compare those.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline __attribute__((always_inline)) long syscall3(long number, long a, long b, long c) {
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return result;
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void sleep_in_nanosleep(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  syscall3(SYS_nanosleep, (long)&ts, 0, 0);
}

__attribute__((noinline)) void wait_on_pipe(int fd) {
  char byte;
  syscall3(SYS_read, fd, (long)&byte, 1);
}

int main(int argc, char** argv) {
  long sleep_ms = argc > 1 ? atol(argv[1]) : 50;
  long wait_ms = argc > 2 ? atol(argv[2]) : 30;
  int rounds = argc > 3 ? atoi(argv[3]) : 10;
  int go[2], done[2];
  if (pipe(go) != 0 || pipe(done) != 0) return 1;
  if (fork() == 0) {
    char byte;
    for (int i = 0; i < rounds; ++i) {
      if (read(go[0], &byte, 1) != 1) _exit(1);
      struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      if (write(done[1], "x", 1) != 1) _exit(1);
    }
    _exit(0);
  }
  long long slept = 0, waited = 0;
  for (int i = 0; i < rounds; ++i) {
    long long start = now_ns();
    sleep_in_nanosleep(sleep_ms);
    long long woke = now_ns();
    if (write(go[1], "x", 1) != 1) return 1;
    wait_on_pipe(done[0]);
    slept += woke - start;
    waited += now_ns() - woke;
  }
  printf("sleep_ns=%lld wait_ns=%lld\n", slept, waited);
  return 0;
}
