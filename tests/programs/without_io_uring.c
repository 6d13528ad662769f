/* without_io_uring COMMAND [ARGS...]: runs COMMAND where io_uring_setup fails with EPERM, as in
 * a container whose seccomp profile blocks io_uring. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/io_uring_seccomp.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: without_io_uring COMMAND [ARGS...]\n");
    return 2;
  }
  int error = block_io_uring_setup();
  if (error != 0) {
    fprintf(stderr, "without_io_uring: seccomp: %s\n", strerror(error));
    return 126;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "without_io_uring: %s: %s\n", argv[1], strerror(errno));
  return 127;
}
