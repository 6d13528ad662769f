#include "model/maps.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <optional>

namespace arec::model {
namespace {

// The first map that ends after `address`: the first one that can contain or follow it.
template <typename Iterator>
Iterator first_ending_after(Iterator begin, Iterator end, std::uint64_t address) {
  return std::upper_bound(begin, end, address,
                          [](std::uint64_t a, const map& entry) { return a < entry.end; });
}

}  // namespace

maps::maps(const maps& other) {
  base::reader_lock lock{other.mutex_};
  base::exclusive_lock own{mutex_};  // not yet shared: uncontended, taken for the analysis only
  sorted_ = other.sorted_;
}

void maps::insert(const map& entry) {
  if (entry.start >= entry.end) return;
  base::exclusive_lock lock{mutex_};
  auto first = first_ending_after(sorted_.begin(), sorted_.end(), entry.start);
  auto last = first;
  while (last != sorted_.end() && last->start < entry.end) ++last;
  if (first == last) {  // no overlap
    sorted_.insert(first, entry);
    return;
  }
  std::optional<map> left;
  std::optional<map> right;
  if (first->start < entry.start) {
    left = *first;
    left->end = entry.start;
  }
  const map& last_old = *std::prev(last);
  if (last_old.end > entry.end) {
    right = last_old;
    right->pgoff += entry.end - last_old.start;
    right->start = entry.end;
  }
  // Reuse the slots of the overlapped maps for the pieces, then fix up the count.
  map pieces[3];
  std::size_t count = 0;
  if (left) pieces[count++] = std::move(*left);
  pieces[count++] = entry;
  if (right) pieces[count++] = std::move(*right);
  auto removed = static_cast<std::size_t>(last - first);
  auto at = first - sorted_.begin();
  if (removed > count) {
    sorted_.erase(first + static_cast<std::ptrdiff_t>(count), last);
  } else if (removed < count) {
    sorted_.insert(last, count - removed, map{});
  }
  std::move(pieces, pieces + count, sorted_.begin() + at);
}

std::optional<map> maps::find(std::uint64_t address) const {
  base::reader_lock lock{mutex_};
  auto found = first_ending_after(sorted_.begin(), sorted_.end(), address);
  if (found == sorted_.end() || !found->contains(address)) return std::nullopt;
  return *found;
}

std::vector<map> maps::entries() const {
  base::reader_lock lock{mutex_};
  return sorted_;
}

std::size_t maps::size() const {
  base::reader_lock lock{mutex_};
  return sorted_.size();
}

void maps::check_invariants() const {
#ifndef NDEBUG
  base::reader_lock lock{mutex_};
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    assert(sorted_[i].start < sorted_[i].end);
    assert(i == 0 || sorted_[i - 1].end <= sorted_[i].start);
  }
#endif
}

}  // namespace arec::model
