// jit_loop MILLISECONDS [append|none]: spends ~MILLISECONDS of CPU time in code it generated
// into anonymous executable memory, as a JIT does, and names that code "jit_spin" in
// /tmp/perf-PID.map (perf report's convention for JIT symbols): a new map, or with `append`
// one line added to the map already there, or with `none` no map written (the test provides
// whatever is at that path). Prints its pid once the code is mapped and named, so the caller
// knows the mapping exists and can remove the map file afterwards.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
// spin(n): dec %rdi; jnz spin; ret
static const unsigned char spin_code[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
#elif defined(__aarch64__)
// spin(n): subs x0, x0, #1; b.ne spin; ret
static const unsigned char spin_code[] = {0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff,
                                          0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6};
#else
#error "jit_loop knows x86_64 and aarch64 code only"
#endif

static double cpu_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  double milliseconds = argc > 1 ? strtod(argv[1], NULL) : 1000.0;
  size_t size = (size_t)sysconf(_SC_PAGESIZE);
  unsigned char* code =
      mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memcpy(code, spin_code, sizeof spin_code);
  __builtin___clear_cache((char*)code, (char*)code + sizeof spin_code);
  // Made executable now: the kernel records an exec mapping ("//anon") at this mprotect.
  if (mprotect(code, size, PROT_READ | PROT_EXEC) != 0) return 1;
  const char* mode = argc > 2 ? argv[2] : "";
  if (strcmp(mode, "none") != 0) {
    char map_path[64];
    snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", (int)getpid());
    FILE* map = fopen(map_path, strcmp(mode, "append") == 0 ? "a" : "w");
    if (!map) return 1;
    fprintf(map, "%lx %zx jit_spin\n", (unsigned long)(uintptr_t)code, sizeof spin_code);
    fclose(map);
  }
  printf("%d\n", (int)getpid());
  fflush(stdout);
  void (*spin)(uint64_t) = (void (*)(uint64_t))(uintptr_t)code;
  double end = cpu_ms() + milliseconds;
  while (cpu_ms() < end) spin(1000000);
  return 0;
}
