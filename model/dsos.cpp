#include "model/dsos.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace arec::model {
namespace {

bool matches(const dso& entry, std::string_view name, const dso_id& id) {
  return entry.name() == name && entry.id() == id;
}

}  // namespace

std::vector<std::shared_ptr<dso>>::const_iterator dsos::lower_bound(std::string_view name,
                                                                    const dso_id& id) const {
  return std::lower_bound(sorted_.begin(), sorted_.end(), std::tie(name, id),
                          [](const std::shared_ptr<dso>& entry, const auto& key) {
                            auto [key_name, key_id] = key;
                            int order = std::string_view{entry->name()}.compare(key_name);
                            return order < 0 || (order == 0 && entry->id() < key_id);
                          });
}

std::shared_ptr<dso> dsos::find(std::string_view name, const dso_id& id) const {
  base::reader_lock lock{mutex_};
  auto found = lower_bound(name, id);
  return found != sorted_.end() && matches(**found, name, id) ? *found : nullptr;
}

std::shared_ptr<dso> dsos::find_or_add(std::string_view name, const dso_id& id, dso_kind kind,
                                       const std::optional<host::mapping_place>& place) {
  if (auto found = find(name, id)) {
    if (place) {
      found->set_place(*place);
      if (on_mapped_again_ && found->offer_read_again()) on_mapped_again_(found);
    }
    return found;
  }
  auto created = std::make_shared<dso>(std::string{name}, id, kind);
  if (place) created->set_place(*place);
  {
    base::exclusive_lock lock{mutex_};
    auto place = lower_bound(name, id);  // another thread may have added it since
    if (place != sorted_.end() && matches(**place, name, id)) return *place;
    sorted_.insert(place, created);
  }
  if (on_created_) on_created_(created);
  return created;
}

void dsos::note_sampled(const std::shared_ptr<dso>& object) const {
  if (object->mark_sampled() && on_sampled_) on_sampled_(object);
}

std::vector<std::shared_ptr<dso>> dsos::all() const {
  base::reader_lock lock{mutex_};
  return sorted_;
}

std::size_t dsos::size() const {
  base::reader_lock lock{mutex_};
  return sorted_.size();
}

}  // namespace arec::model
