// work_c: a C workload for bench/symbol_bytes. Spends ~1 s in a few named functions of its
// own and in libc (qsort, memcpy), so its recording has samples in both objects.
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long mix_words(const unsigned long* words, size_t n) {
  unsigned long h = 1469598103934665603UL;
  for (size_t i = 0; i < n; ++i) h = (h ^ words[i]) * 1099511628211UL;
  return h;
}

static int compare_words(const void* a, const void* b) {
  unsigned long x = *(const unsigned long*)a, y = *(const unsigned long*)b;
  return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_round(unsigned long* words, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) words[i] = (i * 2654435761UL) ^ seed;
  qsort(words, n, sizeof *words, compare_words);
}

int main(void) {
  enum { n = 1 << 16 };
  unsigned long* words = malloc(n * sizeof *words);
  unsigned long* copy = malloc(n * sizeof *copy);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned seed = 0;
  do {
    sort_round(words, n, ++seed);
    memcpy(copy, words, n * sizeof *words);
    sink += mix_words(copy, n);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec - start.tv_sec < 1);
  free(copy);
  free(words);
  return 0;
}
