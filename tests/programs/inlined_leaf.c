// inlined_leaf [MILLISECONDS]: spends ~MILLISECONDS (default 1000) of CPU time in inlined_work,
// which the compiler inlines into outer_function (always_inline beats the tests' -fno-inline),
// so the hot instructions belong to outer_function's symbol and to inlined_work's DWARF
// inlined-subroutine entry: the inline frame an export shows from the program's -g DWARF.
#include <stdio.h>
#include <stdlib.h>

#include "programs/hot_function.h"

static inline __attribute__((always_inline)) void inlined_work(unsigned long iterations) {
  for (unsigned long i = 0; i < iterations; ++i) accumulator += i;
}

__attribute__((noinline)) void outer_function(double milliseconds) {
  const double deadline = now_ms() + milliseconds;  // the thread's CPU time (hot_function.h)
  while (now_ms() < deadline) inlined_work(1000000);
}

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 1000.0;
  if (milliseconds < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  outer_function(milliseconds);
  return 0;
}
