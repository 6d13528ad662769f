// hot_loop [MILLISECONDS]: spends ~MILLISECONDS (default 1000) of CPU time in hot_function,
// called only from caller_function, so a profile of it has one known hot symbol and caller.
#include <stdio.h>
#include <stdlib.h>

#include "programs/hot_function.h"

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 1000.0;
  if (milliseconds < 0) {
    fprintf(stderr, "usage: %s [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  caller_function(milliseconds);
  return 0;
}
