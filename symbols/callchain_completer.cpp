#include "symbols/callchain_completer.hpp"

#include <stdexcept>

#include "model/side_band.hpp"

namespace arec::symbols {

callchain_completer::callchain_completer()
    : objects_([](const model::map& where) { return where.object->name(); }) {}

void callchain_completer::side_band(std::span<const std::byte> record) {
  model::apply_side_band(machine_, record);
}

std::span<const std::uint64_t> callchain_completer::complete(pid_t pid, pid_t tid,
                                                             std::span<const std::uint64_t> chain,
                                                             std::span<const std::byte> stack) {
  std::shared_ptr<model::thread> task = machine_.tasks().find(tid);
  if (!task && pid >= 0) task = machine_.find_or_add_thread(pid, tid);
  if (!task) return chain;
  std::optional<completion> outcome = completion::no_cfi;
  if (!libdw_missing_) {
    try {
      process_rules rules(objects_, *task->address_space());
      outcome = complete_callchain(chain, stack, rules, user_, out_);
    } catch (const std::runtime_error&) {  // no libdw: every chain stays as recorded, counted
      libdw_missing_ = true;
    }
  }
  if (!outcome) return chain;
  if (symbols::not_completed(*outcome)) {
    ++not_completed_;
    return chain;
  }
  if (*outcome == completion::unchanged) return chain;
  ++completed_;
  if (*outcome == completion::bp_unverified) ++unverified_;
  return out_;
}

}  // namespace arec::symbols
