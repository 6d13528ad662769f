// hot_function.h: the one hot symbol every test program spends its time in, and its caller.
// Included once by each program (the symbols must keep these names for the tests to find them).
#pragma once

#include <time.h>

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

// The CPU time of the calling thread: what cpu-clock samples it, so a test's sample counts do
// not depend on how busy the machine is (a wall-clock deadline would give a thread that shares
// its CPU fewer samples, and could end it before a recorder attached on a loaded machine).
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Calls hot_function in ~1 ms chunks until `milliseconds` of this thread's CPU time have
// passed; the clock is read once per chunk so that time outside hot_function stays well under
// 1%.
__attribute__((noinline)) void caller_function(double milliseconds) {
  const double deadline = now_ms() + milliseconds;
  while (now_ms() < deadline) hot_function(1000000);
}
