// map_and_wait FILE: maps FILE executable (it never runs it), says "mapped" on stdout, then
// waits until it is killed. As another user, it stands for someone who maps a file
// into a process that a system-wide recording then sees.
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_RDONLY);
  struct stat status;
  if (fd < 0 || fstat(fd, &status) != 0) return perror(argv[1]), 1;
  if (mmap(NULL, (size_t)status.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
    return perror("mmap"), 1;
  printf("mapped\n");
  fflush(stdout);
  for (;;) pause();
}
