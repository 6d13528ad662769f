// spin_until_killed [MILLISECONDS]: prints "ready <pid>" and then spins in hot_function until
// killed, or for MILLISECONDS (default 60000, so a forgotten one does not burn a CPU forever).
// Tests attach to it with -p PID.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "programs/hot_function.h"

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
