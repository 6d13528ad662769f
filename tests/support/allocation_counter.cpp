#include "support/allocation_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local std::uint64_t new_calls = 0;
thread_local std::uint64_t c_calls = 0;
}  // namespace

namespace arec::test {
std::uint64_t operator_new_calls() { return new_calls; }
std::uint64_t malloc_calls() { return c_calls; }
bool counting_works() {
  std::uint64_t before = new_calls;
  void* probe = ::operator new(16);  // a direct call: the compiler may not elide it
  ::operator delete(probe);
  return new_calls == before + 1;
}
}  // namespace arec::test

#ifndef AREC_TEST_NO_ALLOCATION_COUNTING
namespace {

void* counted(std::size_t size) {
  ++new_calls;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* counted_aligned(std::size_t size, std::align_val_t alignment) {
  ++new_calls;
  auto align = static_cast<std::size_t>(alignment);
  std::size_t rounded = ((size == 0 ? 1 : size) + align - 1) / align * align;
  if (void* p = std::aligned_alloc(align, rounded)) return p;
  throw std::bad_alloc();
}
}  // namespace


#ifndef AREC_TEST_SANITIZED_MALLOC
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void __libc_free(void* pointer);

void* malloc(std::size_t size) {
  ++c_calls;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  ++c_calls;
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  ++c_calls;
  return __libc_realloc(pointer, size);
}
void free(void* pointer) { __libc_free(pointer); }
}
#endif

void* operator new(std::size_t size) { return counted(size); }
void* operator new[](std::size_t size) { return counted(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void* operator new(std::size_t size, std::align_val_t a) { return counted_aligned(size, a); }
void* operator new[](std::size_t size, std::align_val_t a) { return counted_aligned(size, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#endif  // AREC_TEST_NO_ALLOCATION_COUNTING
