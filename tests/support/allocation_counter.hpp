// allocation_counter: the test binaries' replacement of the global allocation functions, so a
// test can prove that a hot path allocates nothing. Counts are per thread, so gtest's own
// threads or a helper thread do not disturb a measurement.
#pragma once

#include <cstdint>

// Sanitizers own malloc, so under them only operator new is counted; clang's static TSan
// runtime owns operator new as well, so under TSan nothing is counted (the allocation proofs
// run in the other configurations, and counting_works() keeps them from passing vacuously).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AREC_TEST_SANITIZED_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define AREC_TEST_SANITIZED_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define AREC_TEST_NO_ALLOCATION_COUNTING 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AREC_TEST_NO_ALLOCATION_COUNTING 1
#endif
#endif

namespace arec::test {

// operator new calls (all forms) made by the calling thread so far.
std::uint64_t operator_new_calls();
// malloc/calloc/realloc calls made by the calling thread so far (0 under sanitizers): zstd and
// other C libraries allocate with malloc.
std::uint64_t malloc_calls();
inline std::uint64_t allocations() { return operator_new_calls() + malloc_calls(); }
// True when an allocation made right now is counted; assert it before proving "nothing".
bool counting_works();

}  // namespace arec::test
