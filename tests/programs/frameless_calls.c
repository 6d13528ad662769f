// The shapes frame pointers lose a caller in (issue 40), built as every test program is (-O1 -g
// -fno-omit-frame-pointer): main -> driver -> stage -> leaf, where gcc gives the leaf no frame,
// and stage -> memchr in Debian's libc, which has no frame pointers at all. `block` mode makes
// each blocking call from a function of its own, so an off-CPU stack can name it.
//
//   frameless_calls cpu SECONDS   spin in the loop above for SECONDS of wall time
//   frameless_calls block ROUNDS  ROUNDS times: usleep, nanosleep, a pipe read, a contended
//                                 mutex, a condition wait, epoll_wait and poll (~10 ms each)
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static char buffer[8192];
static volatile int wanted = 1;  // never in buffer: memchr scans all of it
static volatile unsigned long sink;

__attribute__((noinline)) unsigned long leaf(unsigned long x) {
  unsigned long sum = 0;
  for (unsigned long i = 0; i < 2000; ++i) sum += (x ^ i) * 2654435761u;
  return sum;
}

__attribute__((noinline)) void stage(unsigned long round) {
  sink += leaf(round);
  if (memchr(buffer, wanted, sizeof buffer)) sink++;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void driver(double seconds) {
  double end = now() + seconds;
  for (unsigned long round = 0; now() < end; ++round)
    for (int i = 0; i < 64; ++i) stage(round + (unsigned long)i);
}

static const long wait_ns = 10 * 1000 * 1000;

__attribute__((noinline)) void nap_spot(void) { usleep((useconds_t)(wait_ns / 1000)); }

__attribute__((noinline)) void sleep_spot(void) {
  struct timespec t = {0, wait_ns};
  nanosleep(&t, NULL);
}

static int pipe_ends[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int signalled;

__attribute__((noinline)) void pipe_wait_spot(void) {
  char byte;
  if (read(pipe_ends[0], &byte, 1) != 1) exit(3);
}

__attribute__((noinline)) void lock_spot(void) {
  pthread_mutex_lock(&held);
  pthread_mutex_unlock(&held);
}

__attribute__((noinline)) void cond_spot(void) {
  pthread_mutex_lock(&cond_lock);
  while (!signalled) pthread_cond_wait(&cond, &cond_lock);
  signalled = 0;
  pthread_mutex_unlock(&cond_lock);
}

__attribute__((noinline)) void epoll_spot(int epoll) {
  struct epoll_event event;
  epoll_wait(epoll, &event, 1, (int)(wait_ns / 1000000));
}

__attribute__((noinline)) void poll_spot(void) { poll(NULL, 0, (int)(wait_ns / 1000000)); }

// The other side of the pipe, mutex and condition: each released after wait_ns, while the main
// thread is blocked on it (it takes the mutex before telling the main thread to go on).
static void pause_a_while(void) {
  struct timespec t = {0, wait_ns};
  nanosleep(&t, NULL);
}

static int go[2];

static void* helper(void* unused) {
  (void)unused;
  char step;
  while (read(go[0], &step, 1) == 1) {
    if (step == 'p') {
      pause_a_while();
      if (write(pipe_ends[1], "x", 1) != 1) exit(3);
    } else if (step == 'm') {
      pthread_mutex_lock(&held);
      if (write(pipe_ends[1], "x", 1) != 1) exit(3);  // held now: the main thread may try
      pause_a_while();
      pthread_mutex_unlock(&held);
    } else if (step == 'c') {
      pause_a_while();
      pthread_mutex_lock(&cond_lock);
      signalled = 1;
      pthread_cond_signal(&cond);
      pthread_mutex_unlock(&cond_lock);
    }
  }
  return NULL;
}

static void tell(char step) {
  if (write(go[1], &step, 1) != 1) exit(3);
}

static void block(long rounds) {
  int epoll = epoll_create1(0);
  pthread_t thread;
  if (pipe(pipe_ends) != 0 || pipe(go) != 0 || epoll < 0 ||
      pthread_create(&thread, NULL, helper, NULL) != 0)
    exit(3);
  for (long i = 0; i < rounds; ++i) {
    nap_spot();
    sleep_spot();
    tell('p');
    pipe_wait_spot();
    tell('m');
    char byte;
    if (read(pipe_ends[0], &byte, 1) != 1) exit(3);  // the helper holds the mutex
    lock_spot();
    tell('c');
    cond_spot();
    epoll_spot(epoll);
    poll_spot();
  }
  close(go[1]);
  pthread_join(thread, NULL);
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "cpu") == 0) {
    driver(atof(argv[2]));
  } else if (argc == 3 && strcmp(argv[1], "block") == 0) {
    block(atol(argv[2]));
  } else {
    fprintf(stderr, "usage: %s cpu SECONDS | block ROUNDS\n", argv[0]);
    return 2;
  }
  return 0;
}
