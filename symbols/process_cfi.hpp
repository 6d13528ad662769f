// process_cfi: the frame rules of one process's user addresses, from the objects its maps name
// (model::maps), each object's CFI opened once and kept for every process that maps it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "model/maps.hpp"
#include "symbols/chain_completion.hpp"

namespace arec::symbols {

class cfi_objects {
 public:
  // The ELF file to read for a mapping (the file on disk or its build-id cache copy), or "".
  using file_locator = std::function<std::string(const model::map&)>;
  explicit cfi_objects(file_locator locate) : locate_(std::move(locate)) {}

  // The CFI of the object `where` maps, nullptr when it has none (anonymous or JIT memory, no
  // file, no .eh_frame). Opened at the first call for that object, kept afterwards.
  object_cfi* of(const model::map& where);
  std::size_t size() const noexcept { return objects_.size(); }

 private:
  struct entry {
    std::shared_ptr<model::dso> object;  // kept alive: the key is its address
    std::unique_ptr<object_cfi> cfi;
  };
  file_locator locate_;
  std::unordered_map<const model::dso*, entry> objects_;
};

// The rules of the addresses of one address space, for one chain at a time.
class process_rules final : public frame_rule_source {
 public:
  process_rules(cfi_objects& objects, const model::maps& space) : objects_(objects), space_(space) {}
  frame_rule rule_for(std::uint64_t pc) override;

 private:
  cfi_objects& objects_;
  const model::maps& space_;
};

}  // namespace arec::symbols
