// spin_in_thread [MILLISECONDS]: a process whose main thread sleeps while a second thread spins
// in hot_function; prints "ready <pid> <tid of the spinning thread>" once it spins, and exits
// after MILLISECONDS (default 60000). Tests attach to it by a thread id that is not the pid.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "programs/hot_function.h"

static double run_ms;
static atomic_long spinner_tid;  // written by the spinning thread, read by main

static void* spin(void* unused) {
  (void)unused;
  atomic_store(&spinner_tid, syscall(SYS_gettid));
  caller_function(run_ms);
  return NULL;
}

int main(int argc, char** argv) {
  run_ms = argc > 1 ? strtod(argv[1], NULL) : 60000.0;
  if (run_ms < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, spin, NULL) != 0) return 1;
  while (atomic_load(&spinner_tid) == 0) usleep(100);
  printf("ready %ld %ld\n", (long)getpid(), atomic_load(&spinner_tid));
  fflush(stdout);
  pthread_join(thread, NULL);
  return 0;
}
