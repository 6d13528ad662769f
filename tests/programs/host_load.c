// host_load: the busy host the suite must pass beside (docs/testing.md, "Tests on a busy
// machine"), as production hosts are busy: two busy loops, a thread storm (threads created and
// joined without pause), a fork storm (children that exit at once), and processes whose names
// hold a newline, a ';' and invalid UTF-8, each busy a tenth of the time so that system-wide
// recordings sample them: a test parsing another tool's text by lines or names must survive. Every part is a child in the caller's process group; it runs
// until that group is killed (scripts/with-host-load does), or its parent dies.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void end_with_parent(void) {
  // The load must never outlive whoever started it.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1) _exit(1);
}

static void busy_loop(void) {
  for (volatile unsigned long i = 0;; ++i) {
  }
}

static void* nothing(void* unused) { return unused; }

static void thread_storm(void) {
  for (;;) {
    pthread_t threads[16];
    int started = 0;
    while (started < 16 && pthread_create(&threads[started], NULL, nothing, NULL) == 0) ++started;
    for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  }
}

static void fork_storm(void) {
  for (;;) {
    pid_t child = fork();
    if (child == 0) _exit(0);
    if (child > 0) waitpid(child, NULL, 0);
  }
}

static void named_sometimes_busy(const char* name) {
  prctl(PR_SET_NAME, name);
  for (;;) {
    for (volatile unsigned long i = 0; i < 1000000; ++i) {
    }
    usleep(10000);
  }
}

static void start(void (*part)(void)) {
  if (fork() != 0) return;
  end_with_parent();
  part();
}

static void start_named(const char* name) {
  if (fork() != 0) return;
  end_with_parent();
  named_sometimes_busy(name);
}

int main(void) {
  start(busy_loop);
  start(busy_loop);
  start(thread_storm);
  start(fork_storm);
  start_named("two\nlines 9");
  start_named("x 999;a;fake");
  start_named("bad\xff\xfe utf8");
  printf("loading\n");
  fflush(stdout);
  for (;;) pause();
}
