#include "model/dso.hpp"

#include <utility>

namespace arec::model {

dso::dso(std::string name, const dso_id& id, dso_kind kind)
    : name_(std::move(name)), id_(id), kind_(kind), build_id_(id.build_id) {}

io::build_id dso::build_id() const {
  io::exclusive_lock lock{mutex_};
  return build_id_;
}

void dso::set_build_id(const io::build_id& id) {
  io::exclusive_lock lock{mutex_};
  if (build_id_.empty()) build_id_ = id;
}

bool dso::claim_build_id_read() {
  io::exclusive_lock lock{mutex_};
  if (read_claimed_ || !build_id_.empty()) return false;
  read_claimed_ = true;
  return true;
}

std::optional<io::mapping_place> dso::place() const {
  io::exclusive_lock lock{mutex_};
  return place_;
}

void dso::set_place(const io::mapping_place& where) {
  io::exclusive_lock lock{mutex_};
  place_ = where;
}

}  // namespace arec::model
