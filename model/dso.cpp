#include "model/dso.hpp"

#include <utility>

namespace arec::model {

dso::dso(std::string name, const dso_id& id, dso_kind kind)
    : name_(std::move(name)), id_(id), kind_(kind), build_id_(id.build_id) {}

perf_data::build_id dso::build_id() const {
  base::exclusive_lock lock{mutex_};
  return build_id_;
}

void dso::set_build_id(const perf_data::build_id& id) {
  base::exclusive_lock lock{mutex_};
  if (build_id_.empty()) build_id_ = id;
}

bool dso::claim_build_id_read() {
  base::exclusive_lock lock{mutex_};
  if (!build_id_.empty()) return false;
  if (read_claimed_) {
    if (!unreachable_ || read_retries_ >= max_read_retries) return false;
    ++read_retries_;
  }
  read_claimed_ = true;
  unreachable_ = false;
  retry_offered_ = false;
  mapped_while_reading_ = false;
  return true;
}

void dso::mark_file_unreachable() {
  base::exclusive_lock lock{mutex_};
  unreachable_ = true;
}

bool dso::file_unreachable() const {
  base::exclusive_lock lock{mutex_};
  return unreachable_;
}

bool dso::offer_read_again() {
  base::exclusive_lock lock{mutex_};
  if (!unreachable_) {
    // A read claimed and not yet known to have failed: if it fails, take_read_again says so.
    if (read_claimed_ && build_id_.empty()) mapped_while_reading_ = true;
    return false;
  }
  if (retry_offered_ || read_retries_ >= max_read_retries) return false;
  retry_offered_ = true;
  return true;
}

bool dso::take_read_again() {
  base::exclusive_lock lock{mutex_};
  bool again = std::exchange(mapped_while_reading_, false);
  if (!again || !unreachable_ || retry_offered_ || read_retries_ >= max_read_retries) return false;
  retry_offered_ = true;
  return true;
}

std::optional<host::mapping_place> dso::place() const {
  base::exclusive_lock lock{mutex_};
  return place_;
}

void dso::set_place(const host::mapping_place& where) {
  base::exclusive_lock lock{mutex_};
  place_ = where;
}

}  // namespace arec::model
