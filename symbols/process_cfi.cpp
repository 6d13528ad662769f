#include "symbols/process_cfi.hpp"

namespace arec::symbols {

object_cfi* cfi_objects::of(const model::map& where) {
  if (!where.object || where.object->kind() != model::dso_kind::user) return nullptr;
  auto known = objects_.find(where.object.get());
  if (known != objects_.end()) return known->second.cfi.get();
  const std::string& name = where.object->name();
  std::string file = !name.empty() && name.front() == '/' ? locate_(where) : std::string{};
  entry added{where.object, file.empty() ? nullptr : object_cfi::open(file)};
  return objects_.emplace(where.object.get(), std::move(added)).first->second.cfi.get();
}

frame_rule process_rules::rule_for(std::uint64_t pc) {
  std::optional<model::map> where = space_.find(pc);
  if (!where) return {};
  object_cfi* cfi = objects_.of(*where);
  if (!cfi) return {};
  std::optional<std::uint64_t> vaddr = cfi->vaddr_of_offset(pc - where->start + where->pgoff);
  return vaddr ? cfi->rule_at(*vaddr) : frame_rule{};
}

}  // namespace arec::symbols
