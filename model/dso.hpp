// dso: one mapped object (an executable, a library, the kernel, a module) as the recording saw
// it: its name, how the kernel identified it, and its build-id once known.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/annotated_mutex.hpp"
#include "host/mapped_file.hpp"
#include "perf_data/build_id.hpp"

namespace arec::model {

enum class dso_kind : std::uint8_t {
  user,           // a file mapped by a process, or a pseudo-mapping such as [vdso]
  kernel,         // [kernel.kallsyms]
  kernel_module,  // a loaded module, named by its path (or "[name]")
};

// How the kernel identified the mapped file: device and inode (MMAP2 without build_id), or the
// build-id itself (MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID). All zero when neither is known.
struct dso_id {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t inode = 0;
  std::uint64_t inode_generation = 0;
  perf_data::build_id build_id;
  friend auto operator<=>(const dso_id&, const dso_id&) = default;
};

class dso {
 public:
  // A build-id in `id` is also the dso's build-id.
  dso(std::string name, const dso_id& id, dso_kind kind);

  const std::string& name() const noexcept { return name_; }
  const dso_id& id() const noexcept { return id_; }
  dso_kind kind() const noexcept { return kind_; }

  // The build-id, or an empty one when not (yet) known.
  perf_data::build_id build_id() const AREC_EXCLUDES(mutex_);
  // Records the build-id read for this dso; the first one set wins.
  void set_build_id(const perf_data::build_id& id) AREC_EXCLUDES(mutex_);
  // True once per dso, for the caller that should try to read the build-id from the file: so
  // each file is opened with libelf at most once, however many threads ask; again (up to
  // max_read_retries times) after a read found the file unreachable.
  bool claim_build_id_read() AREC_EXCLUDES(mutex_);
  // True exactly once per dso: for the first sample that fell in it (perf's dso->hit). Only
  // sampled objects go into the build-id cache, as in perf.
  bool mark_sampled() noexcept { return !sampled_.exchange(true, std::memory_order_relaxed); }
  bool sampled() const noexcept { return sampled_.load(std::memory_order_relaxed); }
  // Where the file was last seen mapped (or first sampled): its file is opened through that
  // process (host::open_mapped_file), so a process in a container, or a file replaced since, is
  // read as the process sees it.
  std::optional<host::mapping_place> place() const AREC_EXCLUDES(mutex_);
  void set_place(const host::mapping_place& where) AREC_EXCLUDES(mutex_);
  // Set when the mapped file could not be opened as the mapping holds it (its process ended
  // before it was read) and its path may lead to another file: its build-id stays unknown, and
  // the BUILD_ID feature says so (perf_data::build_id::of_unread_file). Such a file may be claimed
  // for reading again (claim_build_id_read) when a process maps it again, max_read_retries times.
  void mark_file_unreachable() AREC_EXCLUDES(mutex_);
  bool file_unreachable() const AREC_EXCLUDES(mutex_);
  // A process maps this dso again: true when its file was unreachable and may be read through
  // that mapping, once until that read is claimed (many mappings in one drain make one read,
  // through the newest of them).
  bool offer_read_again() AREC_EXCLUDES(mutex_);
  // After a read that found the file unreachable: true (once) when a process mapped it again
  // while that read ran, which offer_read_again could not offer then; the newer mapping may
  // still be there to read through.
  bool take_read_again() AREC_EXCLUDES(mutex_);
  static constexpr unsigned max_read_retries = 64;
  // The device, inode and generation the kernel gave the file (zero when unknown).
  host::file_identity identity() const noexcept {
    return {id_.major, id_.minor, id_.inode, id_.inode_generation};
  }

 private:
  const std::string name_;
  const dso_id id_;
  const dso_kind kind_;
  mutable base::mutex mutex_;
  perf_data::build_id build_id_ AREC_GUARDED_BY(mutex_);
  bool read_claimed_ AREC_GUARDED_BY(mutex_) = false;
  bool unreachable_ AREC_GUARDED_BY(mutex_) = false;
  unsigned read_retries_ AREC_GUARDED_BY(mutex_) = 0;
  bool retry_offered_ AREC_GUARDED_BY(mutex_) = false;
  bool mapped_while_reading_ AREC_GUARDED_BY(mutex_) = false;
  std::optional<host::mapping_place> place_ AREC_GUARDED_BY(mutex_);
  std::atomic<bool> sampled_{false};
};

}  // namespace arec::model
