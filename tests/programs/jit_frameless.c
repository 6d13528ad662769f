// A JIT runtime in miniature whose code keeps no frame pointer (issue 43, item 3): it copies
// one function into anonymous executable memory and writes a jitdump (jit-PID.dump in the
// working directory, mapped as perf's marker) naming it, with an UNWINDING_INFO record whose
// .eh_frame describes its frame, as V8's --perf-prof-unwinding-info does, and a DEBUG_INFO
// record giving its source lines (a made-up /srv/jit/step.src). main calls the JIT
// function, which calls hot_leaf: a frame-pointer walk from hot_leaf skips main (the JIT frame
// leaves rbp as main set it); its call frame information finds main.
//
//   jit_frameless cfi|nocfi SECONDS   spin for SECONDS of wall time; nocfi leaves the
//                                     UNWINDING_INFO record out
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long hot_leaf(unsigned long x) {
  unsigned long sum = 0;
  for (unsigned long i = 0; i < 4000; ++i) sum += (x ^ i) * 2654435761u;
  return sum;
}

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

// sub $8,%rsp; movabs $hot_leaf,%rax; call *%rax; add $8,%rsp; ret
enum { code_size = 21, after_sub = 4, after_add = 20 };
static void write_code(unsigned char* code) {
  static const unsigned char head[] = {0x48, 0x83, 0xec, 0x08, 0x48, 0xb8};
  static const unsigned char tail[] = {0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3};
  uint64_t leaf = (uint64_t)(uintptr_t)&hot_leaf;
  memcpy(code, head, sizeof head);
  memcpy(code + sizeof head, &leaf, sizeof leaf);
  memcpy(code + sizeof head + sizeof leaf, tail, sizeof tail);
}

// The .eh_frame (a CIE, the function's FDE, a terminator) and .eh_frame_hdr of the code at
// `code`, laid out from code + size rounded up to 8, as the jitdump format places them.
enum { cie_size = 24, fde_size = 24, eh_frame_size = cie_size + fde_size + 4, hdr_size = 20 };
static void write_unwinding(unsigned char* out, uint64_t code) {
  uint64_t eh_frame = code + ((code_size + 7) & ~7u);
  uint64_t hdr = eh_frame + eh_frame_size;
  static const unsigned char cie[cie_size] = {
      20, 0, 0, 0, 0, 0, 0, 0,  // length, CIE id
      1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,  // version, "zR", code/data align, ra, pcrel|sdata4
      0x0c, 7, 8, 0x90, 1, 0, 0};            // def_cfa rsp+8, ra at cfa-8, nops
  unsigned char fde[fde_size] = {
      20, 0, 0, 0, cie_size + 4, 0, 0, 0,  // length, CIE pointer
      0, 0, 0, 0, code_size, 0, 0, 0, 0,   // pc_begin (below), pc_range, no augmentation data
      0x40 | after_sub, 0x0e, 16,          // after the sub: cfa = rsp+16
      0x40 | (after_add - after_sub), 0x0e, 8, 0};  // after the add: rsp+8; a nop
  int32_t begin = (int32_t)(code - (eh_frame + cie_size + 8));
  memcpy(fde + 8, &begin, 4);
  memcpy(out, cie, cie_size);
  memcpy(out + cie_size, fde, fde_size);
  memset(out + cie_size + fde_size, 0, 4);
  unsigned char* h = out + eh_frame_size;
  h[0] = 1, h[1] = 0x1b, h[2] = 0x03, h[3] = 0x3b;  // eh_frame_ptr, fde_count, table encodings
  int32_t fields[4] = {(int32_t)(eh_frame - (hdr + 4)), 1, (int32_t)(code - hdr),
                       (int32_t)(eh_frame + cie_size - hdr)};
  memcpy(h + 4, fields, sizeof fields);
}

static void put(int fd, const void* bytes, size_t size) {
  if (write(fd, bytes, size) != (ssize_t)size) exit(3);
}

static void write_jitdump(unsigned char* code, int with_cfi) {
  char path[64];
  snprintf(path, sizeof path, "jit-%d.dump", getpid());
  int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
  if (fd < 0) exit(3);
  uint32_t header[4] = {0x4A695444, 1, 40, EM_X86_64};  // magic, version, size, machine
  uint32_t pad_pid[2] = {0, (uint32_t)getpid()};
  uint64_t time_flags[2] = {monotonic_ns(), 0};
  put(fd, header, sizeof header);
  put(fd, pad_pid, sizeof pad_pid);
  put(fd, time_flags, sizeof time_flags);
  // perf's marker: the mapping that tells a recorder where the dump is.
  if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) exit(3);
  if (with_cfi) {
    enum { data = eh_frame_size + hdr_size, total = 16 + 24 + data };
    uint32_t prefix[2] = {4, total};  // JIT_CODE_UNWINDING_INFO
    uint64_t fields[4] = {monotonic_ns(), data, hdr_size, data};
    unsigned char unwinding[data];
    write_unwinding(unwinding, (uint64_t)(uintptr_t)code);
    put(fd, prefix, sizeof prefix);
    put(fd, fields, sizeof fields);
    put(fd, unwinding, sizeof unwinding);
  }
  // Its source lines, as a runtime's DEBUG_INFO gives them: the call at offset 14 is line 8.
  {
    static const char file[] = "/srv/jit/step.src";
    uint64_t at = (uint64_t)(uintptr_t)code;
    uint32_t prefix[2] = {2, 16 + 16 + 3 * 16 + sizeof file + 2 * 2};  // JIT_CODE_DEBUG_INFO
    uint64_t when = monotonic_ns(), head[2] = {at, 3};
    uint64_t first[2] = {at, 7}, second[2] = {at + 14, 8}, third[2] = {at + 16, 9};
    put(fd, prefix, sizeof prefix);
    put(fd, &when, sizeof when);
    put(fd, head, sizeof head);
    put(fd, first, sizeof first);  // address; line 7, discriminator 0
    put(fd, file, sizeof file);
    put(fd, second, sizeof second);
    put(fd, "\xff", 2);  // the previous entry's file
    put(fd, third, sizeof third);
    put(fd, "\xff", 2);
  }
  static const char name[] = "jit_frameless_step";
  uint32_t prefix[2] = {0, 16 + 40 + sizeof name + code_size};  // JIT_CODE_LOAD
  uint64_t when = monotonic_ns();
  uint32_t ids[2] = {(uint32_t)getpid(), (uint32_t)syscall(SYS_gettid)};
  uint64_t load[4] = {(uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)code, code_size, 1};
  put(fd, prefix, sizeof prefix);
  put(fd, &when, sizeof when);
  put(fd, ids, sizeof ids);
  put(fd, load, sizeof load);
  put(fd, name, sizeof name);
  put(fd, code, code_size);
  // Left open, as runtimes leave theirs: the recorder reads it through the marker mapping.
}

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[1], "cfi") != 0 && strcmp(argv[1], "nocfi") != 0)) {
    fprintf(stderr, "usage: jit_frameless cfi|nocfi SECONDS\n");
    return 2;
  }
  unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 3;
  write_code(code);
  write_jitdump(code, strcmp(argv[1], "cfi") == 0);
  unsigned long (*step)(unsigned long);
  memcpy(&step, &code, sizeof step);  // the code's address as a function's
  uint64_t end = monotonic_ns() + (uint64_t)(atof(argv[2]) * 1e9);
  for (unsigned long round = 0; monotonic_ns() < end; ++round) sink += step(round);
  return 0;
}
