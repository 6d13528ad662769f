// annotated_mutex: std::mutex and std::shared_mutex as Clang thread-safety capabilities, and
// the scoped locks that hold them, so that -Wthread-safety checks every GUARDED_BY member.
// Under other compilers the annotations vanish and these are thin wrappers.
#pragma once

#include <mutex>
#include <shared_mutex>

#if defined(__clang__)
#define AREC_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define AREC_THREAD_ANNOTATION(x)
#endif

#define AREC_CAPABILITY(x) AREC_THREAD_ANNOTATION(capability(x))
#define AREC_SCOPED_CAPABILITY AREC_THREAD_ANNOTATION(scoped_lockable)
#define AREC_GUARDED_BY(x) AREC_THREAD_ANNOTATION(guarded_by(x))
#define AREC_ACQUIRED_AFTER(...) AREC_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define AREC_REQUIRES(...) AREC_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define AREC_REQUIRES_SHARED(...) AREC_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define AREC_ACQUIRE(...) AREC_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define AREC_ACQUIRE_SHARED(...) AREC_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define AREC_RELEASE(...) AREC_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define AREC_RELEASE_SHARED(...) AREC_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define AREC_EXCLUDES(...) AREC_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

namespace arec::base {

// An exclusive lock for small, rarely contended state (one thread's comm).
class AREC_CAPABILITY("mutex") mutex {
 public:
  void lock() AREC_ACQUIRE() { mutex_.lock(); }
  void unlock() AREC_RELEASE() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

// A readers-writer lock: lookups share it, inserts and removals take it alone.
class AREC_CAPABILITY("shared_mutex") shared_mutex {
 public:
  void lock() AREC_ACQUIRE() { mutex_.lock(); }
  void unlock() AREC_RELEASE() { mutex_.unlock(); }
  void lock_shared() AREC_ACQUIRE_SHARED() { mutex_.lock_shared(); }
  void unlock_shared() AREC_RELEASE_SHARED() { mutex_.unlock_shared(); }

 private:
  std::shared_mutex mutex_;
};

// Holds `Mutex` exclusively for the scope.
template <typename Mutex>
class AREC_SCOPED_CAPABILITY exclusive_lock {
 public:
  explicit exclusive_lock(Mutex& mutex) AREC_ACQUIRE(mutex) : mutex_(mutex) { mutex_.lock(); }
  ~exclusive_lock() AREC_RELEASE() { mutex_.unlock(); }
  exclusive_lock(const exclusive_lock&) = delete;
  exclusive_lock& operator=(const exclusive_lock&) = delete;

 private:
  Mutex& mutex_;
};

// Holds a shared_mutex in shared mode for the scope.
class AREC_SCOPED_CAPABILITY reader_lock {
 public:
  explicit reader_lock(shared_mutex& mutex) AREC_ACQUIRE_SHARED(mutex) : mutex_(mutex) {
    mutex_.lock_shared();
  }
  ~reader_lock() AREC_RELEASE() { mutex_.unlock_shared(); }
  reader_lock(const reader_lock&) = delete;
  reader_lock& operator=(const reader_lock&) = delete;

 private:
  shared_mutex& mutex_;
};

}  // namespace arec::base
