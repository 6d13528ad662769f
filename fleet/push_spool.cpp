#include "fleet/push_spool.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <system_error>

#include "base/sha1.hpp"
#include "fleet/wire_format.hpp"
#include "io/dir_reader.hpp"
#include "io/file_status.hpp"
#include "io/owned_files.hpp"
#include "io/published_file.hpp"

namespace arec::fleet {
namespace {

constexpr std::string_view file_prefix = "window-";
constexpr std::string_view file_suffix = ".pb";

// What a window costs in memory, roughly: its bytes and its labels.
std::uint64_t window_bytes(const push_window& window) {
  std::uint64_t bytes = window.profile.size() + sizeof(push_window);
  for (const label& pair : window.labels) bytes += pair.name.size() + pair.value.size();
  return bytes;
}

constexpr std::size_t key_digits = 16;

std::optional<std::uint64_t> number_of(std::string_view digits) {
  std::uint64_t number = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size())
    return std::nullopt;
  return number;
}

bool is_key(std::string_view text) {
  return text.size() == key_digits &&
         text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// 64 bits of the destination's SHA-1, in hex: a different destination gets different names.
std::string key_of(std::string_view destination) {
  base::sha1 hash;
  hash.add(std::as_bytes(std::span{destination.data(), destination.size()}));
  base::sha1::digest digest = hash.finish();
  static constexpr char hex[] = "0123456789abcdef";
  std::string key;
  for (std::size_t i = 0; i < key_digits / 2; ++i) {
    key += hex[digest[i] >> 4];
    key += hex[digest[i] & 15];
  }
  return key;
}

// A spooled window is one profile (at most 4 MiB before gzip) with its labels: a file much
// larger is not one of ours and is not read whole.
constexpr std::size_t max_window_file_bytes = 64 << 20;

std::span<const std::byte> as_bytes(const std::string& text) {
  return std::as_bytes(std::span{text.data(), text.size()});
}

// The entry of a tier that may leave it: the oldest one not in flight.
template <typename Tier>
auto oldest_idle(Tier& tier, const std::optional<std::uint64_t>& in_flight) {
  auto it = tier.begin();
  if (it != tier.end() && in_flight == it->sequence) ++it;
  return it;
}

}  // namespace

push_spool::push_spool(spool_bounds bounds, reporter report)
    : bounds_(std::move(bounds)), report_(std::move(report)), key_(key_of(bounds_.destination)) {
  if (!bounds_.dir.empty()) index_directory();
}

std::string push_spool::file_name(std::uint64_t sequence) const {
  char name[64];
  std::snprintf(name, sizeof name, "window-%s-%020" PRIu64 ".pb", key_.c_str(), sequence);
  return name;
}

// window-KEY-SEQUENCE.pb; window-SEQUENCE.pb is what arec wrote before windows named their
// destination.
push_spool::file_kind push_spool::kind_of(std::string_view name) const {
  if (!name.starts_with(file_prefix) || !name.ends_with(file_suffix)) return {};
  std::string_view middle = name.substr(file_prefix.size());
  middle.remove_suffix(file_suffix.size());
  std::size_t dash = middle.find('-');
  if (dash == std::string_view::npos) {
    auto sequence = number_of(middle);
    return sequence ? file_kind{file_kind::undirected, *sequence} : file_kind{};
  }
  std::string_view key = middle.substr(0, dash);
  auto sequence = number_of(middle.substr(dash + 1));
  if (!sequence || !is_key(key)) return {};
  return {key == key_ ? file_kind::own : file_kind::elsewhere, *sequence};
}

void push_spool::index_directory() {
  io::private_directory directory = io::open_private_directory(bounds_.dir);
  if (!directory.problem.empty()) {
    throw std::runtime_error(
        "push: the spool directory " + bounds_.dir + " " + directory.problem +
        ": whoever controls it could read the windows or plant windows sent with this run's "
        "credentials; remove it (arec makes it again, mode 0700), or make it yours alone (chown " +
        std::to_string(::geteuid()) + " " + bounds_.dir + " && chmod 700 " + bounds_.dir +
        "), or choose another with --push-spool");
  }
  made_directory_ = directory.created;
  dir_fd_ = std::move(directory.fd);
  std::size_t half_written = 0, foreign = 0;
  base::exclusive_lock lock{mutex_};
  io::dir_reader reader{
      io::unique_fd::open_at(dir_fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  while (auto listed = reader.next()) {
    std::string name(listed->name);
    // A kill between write and rename leaves a temporary (".window-N.pb.arec-XXXXXX.tmp"):
    // never sent, removed.
    if (io::is_publish_temporary(name)) {
      half_written += io::remove_file_at(dir_fd_.get(), name) ? 1 : 0;
      continue;
    }
    file_kind kind = kind_of(name);
    if (kind.kind == file_kind::none) continue;
    std::optional<struct stat> found = io::status_at(dir_fd_.get(), name, false);
    if (!found) continue;
    const struct stat& status = *found;
    // Only what this user wrote is sent: a link, a FIFO or a file someone else planted
    // (before the directory was made private) is left alone.
    if (!S_ISREG(status.st_mode) || status.st_uid != ::geteuid()) {
      ++foreign;
      continue;
    }
    // Another destination's windows wait for a run that pushes there: never sent here.
    if (kind.kind != file_kind::own) {
      ++(kind.kind == file_kind::elsewhere ? counts_.for_elsewhere : counts_.undirected);
      continue;
    }
    disk_.push_back(
        {kind.sequence, nullptr, shown_path(name), static_cast<std::uint64_t>(status.st_size)});
    disk_bytes_ += static_cast<std::uint64_t>(status.st_size);
    next_sequence_ = std::max(next_sequence_, kind.sequence + 1);
  }
  std::sort(disk_.begin(), disk_.end(),
            [](const spool_entry& a, const spool_entry& b) { return a.sequence < b.sequence; });
  if (half_written > 0) {
    report_("push: removed " + std::to_string(half_written) + " half-written window file(s) from " +
            bounds_.dir);
  }
  report_left_alone(foreign);
  if (!disk_.empty()) {
    report_("push: " + std::to_string(disk_.size()) + " window(s) left in " + bounds_.dir +
            " by an earlier run are sent first");
  }
  first_own_sequence_ = next_sequence_;
  enforce_bounds();
}

void push_spool::report_left_alone(std::size_t foreign) const {
  if (foreign > 0) {
    report_("push: skipped " + std::to_string(foreign) + " window file(s) in " + bounds_.dir +
            " that are not regular files owned by uid " + std::to_string(::geteuid()) +
            " (the user running arec): they are not sent; remove them");
  }
  if (counts_.for_elsewhere > 0) {
    report_("push: " + std::to_string(counts_.for_elsewhere) + " window(s) in " + bounds_.dir +
            " wait for another destination (another --push URL, --push-format, --push-tenant or "
            "user): not sent by this run, left for a run that pushes there");
  }
  if (counts_.undirected > 0) {
    report_("push: " + std::to_string(counts_.undirected) + " window(s) in " + bounds_.dir +
            " (window-NUMBER.pb) were spooled by an older arec, which did not keep where they "
            "go: never sent, left as they are; remove them when they are not needed");
  }
}

void push_spool::add(push_window window) {
  base::exclusive_lock lock{mutex_};
  std::uint64_t bytes = window_bytes(window);
  memory_.push_back(
      {next_sequence_++, std::make_shared<const push_window>(std::move(window)), {}, bytes});
  memory_bytes_ += bytes;
  enforce_bounds();
  changed_.notify_all();
}

void push_spool::enforce_bounds() {
  while (memory_bytes_ > bounds_.memory_bytes &&
         oldest_idle(memory_, in_flight_) != memory_.end()) {
    if (bounds_.dir.empty()) {
      drop_oldest(memory_, memory_bytes_);
    } else if (!spill_oldest()) {
      ++counts_.dropped_full;
      ++burst_dropped_;
    }
  }
  while (disk_bytes_ > bounds_.disk_bytes && oldest_idle(disk_, in_flight_) != disk_.end()) {
    drop_oldest(disk_, disk_bytes_);
  }
}

bool push_spool::spill_oldest() {
  auto it = oldest_idle(memory_, in_flight_);
  spool_entry entry = std::move(*it);
  memory_.erase(it);
  memory_bytes_ -= entry.bytes;
  std::string name = file_name(entry.sequence);
  try {
    std::string bytes = encode_spooled_window(*entry.window);
    io::write_file_atomically_at(dir_fd_.get(), bounds_.dir, name, as_bytes(bytes));
    // In order: a window kept in memory while in flight is older than what went to disk then.
    auto after = std::upper_bound(
        disk_.begin(), disk_.end(), entry.sequence,
        [](std::uint64_t sequence, const spool_entry& e) { return sequence < e.sequence; });
    disk_.insert(after, {entry.sequence, nullptr, shown_path(name), bytes.size()});
    disk_bytes_ += bytes.size();
    spill_failing_ = false;
    return true;
  } catch (const std::system_error& error) {
    // Once per streak: a full disk fails every write until space comes back.
    if (!spill_failing_) {
      report_("push: cannot keep a window in the spool: " + std::string(error.what()) +
              "; it is dropped, and so is every window that cannot be written until a write "
              "succeeds again (the spool full line counts them)");
    }
    spill_failing_ = true;
    return false;
  }
}

void push_spool::drop_oldest(std::deque<spool_entry>& tier, std::uint64_t& bytes) {
  auto it = oldest_idle(tier, in_flight_);
  if (!it->path.empty()) io::remove_file_at(dir_fd_.get(), name_of(*it));
  bytes -= it->bytes;
  tier.erase(it);
  ++counts_.dropped_full;
  ++burst_dropped_;
}

std::optional<spool_entry> push_spool::take_oldest() {
  base::exclusive_lock lock{mutex_};
  std::deque<spool_entry>* tier = nullptr;
  if (!disk_.empty()) tier = &disk_;
  if (!memory_.empty() && (tier == nullptr || memory_.front().sequence < disk_.front().sequence)) {
    tier = &memory_;
  }
  if (tier == nullptr) return std::nullopt;
  in_flight_ = tier->front().sequence;
  return tier->front();
}

std::optional<push_window> push_spool::load(const spool_entry& entry) const {
  if (entry.window) return *entry.window;
  try {
    // Checked on the open file, not at indexing: a file swapped since is never sent.
    auto file = io::read_bounded_regular_file(dir_fd_.get(), name_of(entry), max_window_file_bytes,
                                              O_NOFOLLOW);
    if (!file || !file->problem.empty() || file->status.st_uid != ::geteuid()) return std::nullopt;
    return decode_spooled_window(file->text);
  } catch (const std::system_error&) {  // unreadable (EACCES, EIO): the caller drops it
    return std::nullopt;
  }
}

void push_spool::finish(const spool_entry& entry, spool_result result) {
  base::exclusive_lock lock{mutex_};
  in_flight_.reset();
  if (result == spool_result::kept) {
    enforce_bounds();  // what arrived during the flight may now be over the bound
    return;
  }
  for (auto* tier : {&disk_, &memory_}) {
    auto it = std::find_if(tier->begin(), tier->end(),
                           [&](const spool_entry& e) { return e.sequence == entry.sequence; });
    if (it == tier->end()) continue;
    if (!it->path.empty()) io::remove_file_at(dir_fd_.get(), name_of(*it));
    (tier == &disk_ ? disk_bytes_ : memory_bytes_) -= it->bytes;
    tier->erase(it);
  }
  if (result == spool_result::delivered) {
    ++(entry.sequence < first_own_sequence_ ? counts_.delivered_earlier : counts_.delivered);
    report_burst();
  } else {
    ++counts_.dropped_refused;
  }
  enforce_bounds();
}

std::uint64_t push_spool::generation() const {
  base::exclusive_lock lock{mutex_};
  return generation_;
}

void push_spool::wait(std::uint64_t generation, std::chrono::steady_clock::time_point until,
                      bool for_work) {
  base::exclusive_lock lock{mutex_};
  while (generation == generation_ && !(for_work && (!memory_.empty() || !disk_.empty()))) {
    if (until == std::chrono::steady_clock::time_point::max()) {
      changed_.wait(mutex_);
    } else if (changed_.wait_until(mutex_, until) == std::cv_status::timeout) {
      return;
    }
  }
}

void push_spool::wake_all() {
  base::exclusive_lock lock{mutex_};
  ++generation_;
  changed_.notify_all();
}

push_spool::leftover push_spool::persist_remaining() {
  base::exclusive_lock lock{mutex_};
  leftover result;
  if (bounds_.dir.empty()) {
    result.lost = memory_.size();
    memory_.clear();
    memory_bytes_ = 0;
  }
  while (!memory_.empty()) result.lost += spill_oldest() ? 0 : 1;
  report_burst();
  result.on_disk = disk_.size();
  return result;
}

void push_spool::end_drop_burst() {
  base::exclusive_lock lock{mutex_};
  report_burst();
}

void push_spool::report_burst() {
  if (burst_dropped_ == 0) return;
  report_("push: spool full: dropped the " + std::to_string(burst_dropped_) +
          " oldest window(s) (bounds: " + std::to_string(bounds_.memory_bytes) +
          " bytes in memory" +
          (bounds_.dir.empty()
               ? std::string()
               : ", " + std::to_string(bounds_.disk_bytes) + " on disk in " + bounds_.dir) +
          ")");
  burst_dropped_ = 0;
}

spool_counts push_spool::counts() const {
  base::exclusive_lock lock{mutex_};
  spool_counts counts = counts_;
  counts.in_memory = memory_.size();
  counts.on_disk = disk_.size();
  return counts;
}

}  // namespace arec::fleet
