// spin: a CPU-bound process with a few frame-pointer call levels, so -g samples carry real
// stacks. Runs until killed. Built with -fno-omit-frame-pointer by bench/compare.
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf(uint64_t x) {
  for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
__attribute__((noinline)) static uint64_t middle(uint64_t x, int depth) {
  return depth == 0 ? leaf(x) : middle(x + 1, depth - 1) ^ (uint64_t)depth;
}
__attribute__((noinline)) static uint64_t top(uint64_t x) {
  return middle(x, (int)(x & 7)) + middle(x, 3);
}

int main(void) {
  uint64_t x = 1;
  for (;;) sink = x = top(x);
}
