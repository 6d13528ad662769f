// named_loop NAME [MILLISECONDS]: names itself NAME with prctl(PR_SET_NAME), as any process may
// without privilege, then spends ~MILLISECONDS (default 1000) of CPU time in hot_function. The
// tests give it names that are not UTF-8 or that look like folded-stack syntax.
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "programs/hot_function.h"

int main(int argc, char** argv) {
  double milliseconds = argc > 2 ? strtod(argv[2], NULL) : 1000.0;
  if (argc < 2 || milliseconds < 0) {
    fprintf(stderr, "usage: %s NAME [MILLISECONDS]\n", argv[0]);
    return 2;
  }
  if (prctl(PR_SET_NAME, argv[1], 0, 0, 0) != 0) {
    perror("prctl(PR_SET_NAME)");
    return 1;
  }
  caller_function(milliseconds);
  return 0;
}
