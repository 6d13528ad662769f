// dsos: every dso the recording saw, in one array sorted by (name, id) and searched by binary
// search, shared by the synthesis workers and the streaming threads.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "model/dso.hpp"

namespace arec::model {

class dsos {
 public:
  using listener = std::function<void(const std::shared_ptr<dso>&)>;
  // Called on the creating thread, outside mutex_, with every dso created from now on (arec
  // reads its build-id in the background). Set it before the dsos are shared between threads.
  void on_created(listener notify) { on_created_ = std::move(notify); }
  // Called on the sampling thread with each dso the first time a sample falls in it
  // (note_sampled); set it before the dsos are shared between threads.
  void on_sampled(listener notify) { on_sampled_ = std::move(notify); }
  // Called on the mapping thread with a dso whose file could not be read
  // (dso::file_unreachable) when a process maps it again (dso::offer_read_again): the file may
  // be read through the new mapping (a job that runs again). Set it before the dsos are shared
  // between threads.
  void on_mapped_again(listener notify) { on_mapped_again_ = std::move(notify); }
  // Marks `object` sampled, telling the on_sampled listener if it is the first time.
  void note_sampled(const std::shared_ptr<dso>& object) const;

  // The dso named `name` with identity `id`, created with `kind` when there is none. A hit
  // allocates nothing and takes mutex_ shared only.
  // `place`, when given, is where the file is mapped: a dso created here has it before any
  // listener hears of it (the build-id reader opens the file through it at once).
  std::shared_ptr<dso> find_or_add(std::string_view name, const dso_id& id, dso_kind kind,
                                   const std::optional<host::mapping_place>& place = std::nullopt)
      AREC_EXCLUDES(mutex_);
  // The dso with exactly this name and id, or nullptr.
  std::shared_ptr<dso> find(std::string_view name, const dso_id& id) const AREC_EXCLUDES(mutex_);
  // Every dso, in (name, id) order.
  std::vector<std::shared_ptr<dso>> all() const AREC_EXCLUDES(mutex_);
  std::size_t size() const AREC_EXCLUDES(mutex_);

 private:
  std::vector<std::shared_ptr<dso>>::const_iterator lower_bound(std::string_view name,
                                                                const dso_id& id) const
      AREC_REQUIRES_SHARED(mutex_);

  listener on_created_;       // set before any concurrent use, constant after
  listener on_sampled_;       // likewise
  listener on_mapped_again_;  // likewise
  mutable base::shared_mutex mutex_;
  std::vector<std::shared_ptr<dso>> sorted_ AREC_GUARDED_BY(mutex_);
};

}  // namespace arec::model
