// spin_until_killed [MILLISECONDS]: prints "ready <pid>" and then spins in hot_function until
// killed, or for MILLISECONDS (default 60000, so a forgotten one does not burn a CPU forever).
// Tests attach to it with -p PID.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

// The accumulator is volatile so the loop is real work the compiler cannot fold away.
static volatile unsigned long accumulator;
static void* volatile frame_anchor;

// Burns a fixed amount of CPU (~1 ms); all of this program's samples should land here. It is
// never instrumented, so sanitizer builds of the tests still see one hot symbol.
__attribute__((noinline, no_sanitize("address", "thread", "undefined"))) void hot_function(
    unsigned long iterations) {
  // Taking the frame address forces a frame-pointer prologue even in this leaf function
  // (Debian's gcc omits it in leaves), so fp call graphs show caller_function above us.
  frame_anchor = __builtin_frame_address(0);
  for (unsigned long i = 0; i < iterations; ++i) accumulator += i;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Calls hot_function in ~1 ms chunks until `milliseconds` of wall time have passed.
__attribute__((noinline)) void caller_function(double milliseconds) {
  const double deadline = now_ms() + milliseconds;
  while (now_ms() < deadline) hot_function(1000000);
}

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 60000.0;
  if (milliseconds < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  // The line is the handshake: once it is read, the pid is valid and the spinning has begun.
  printf("ready %ld\n", (long)getpid());
  fflush(stdout);
  caller_function(milliseconds);
  return 0;
}
