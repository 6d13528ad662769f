#include "record/synthesis/build_id_reader.hpp"

#include <sys/stat.h>

#include <system_error>

#include "async/thread_signals.hpp"
#include "host/container_id.hpp"
#include "host/process_identity.hpp"
#include "host/process_perf_map.hpp"
#include "io/owned_files.hpp"

namespace arec::record {

build_id_reader::build_id_reader(build_id_sources sources,
                                 std::unique_ptr<symbols::build_id_cache> cache, cache_scope scope,
                                 message_sink say)
    : sources_(sources),
      cache_(std::move(cache)),
      scope_(scope),
      say_(std::move(say)),
      thread_([this] { run(); }) {}

build_id_reader::~build_id_reader() {
  stop();
}

void build_id_reader::enqueue(const std::shared_ptr<model::dso>& object) {
  push({object, scope_ == cache_scope::mapped});
}

void build_id_reader::enqueue_again(const std::shared_ptr<model::dso>& object) {
  push({object, cache_ != nullptr && (scope_ == cache_scope::mapped || object->sampled())});
}

void build_id_reader::enqueue_sampled(const std::shared_ptr<model::dso>& object) {
  if (cache_ && scope_ == cache_scope::sampled) push({object, true});
}

void build_id_reader::enqueue_perf_map(pid_t pid) {
  push({nullptr, false, pid, task::capture_perf_map});
}

void build_id_reader::enqueue_late_perf_map(pid_t pid) {
  push({nullptr, false, pid, task::late_perf_map});
}

void build_id_reader::enqueue_container_of(pid_t pid) {
  push({nullptr, false, pid, task::read_container});
}

void build_id_reader::enqueue_call(std::function<void()> call) {
  push({nullptr, false, 0, task::call, std::move(call)});
}

void build_id_reader::push(job next) {
  {
    base::exclusive_lock lock{mutex_};
    if (stopping_) return;
    queue_.push_back(std::move(next));
  }
  queued_.notify_one();
}

void build_id_reader::stop() {
  {
    base::exclusive_lock lock{mutex_};
    stopping_ = true;
  }
  queued_.notify_one();
  if (!thread_.joinable()) return;
  thread_.join();
  if (cache_) cache_->finish();
}

void build_id_reader::run() {
  async::block_signals_in_this_thread();
  std::vector<job> batch;
  for (;;) {
    {
      base::exclusive_lock lock{mutex_};
      while (queue_.empty() && !stopping_) queued_.wait(mutex_);
      if (must_end()) break;
      batch.swap(queue_);
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      handle(batch[i]);
      base::exclusive_lock lock{mutex_};  // without a cache a stop need not wait for the rest
      if (stopping_ && !cache_) {
        queue_.insert(queue_.begin(), batch.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                      batch.end());
        break;
      }
    }
    batch.clear();
  }
  finish_queued_process_jobs();
}

void build_id_reader::finish_queued_process_jobs() {
  std::vector<job> rest;
  {
    base::exclusive_lock lock{mutex_};
    rest.swap(queue_);
  }
  for (const job& next : rest)
    if (next.what != task::read_build_id) handle(next);
}

void build_id_reader::handle(const job& next) {
  if (next.what == task::capture_perf_map) return capture_perf_map(next.pid);
  if (next.what == task::late_perf_map) return look_for_late_perf_map(next.pid);
  if (next.what == task::read_container) return read_container(next.pid);
  if (next.what == task::call) return next.call();
  io::unique_fd file = read_build_id_once(*next.object, sources_);
  // A process that mapped the file while that read ran, and failed, may still be there.
  if (next.object->take_read_again()) enqueue_again(next.object);
  if (!cache_) return;
  auto kept = kept_files_.find(next.object.get());
  if (next.store) {
    int fd = file ? file.get() : kept != kept_files_.end() ? kept->second.get() : -1;
    cache_->add(*next.object, fd);
    if (kept != kept_files_.end()) kept_files_.erase(kept);
  } else if (file && kept_files_.size() < max_kept_files) {
    kept_files_.emplace(next.object.get(), std::move(file));
  }
}

void build_id_reader::capture_perf_map(pid_t pid) {
  {
    base::exclusive_lock lock{maps_mutex_};
    if (perf_maps_.size() >= max_perf_maps) {
      ++perf_maps_left_out_;
      return;
    }
  }
  std::optional<std::uint64_t> started = host::process_start_time(pid);
  if (!started) return;  // gone already
  std::optional<host::perf_map_place> place;
  try {
    place = host::find_perf_map_place(pid);
  } catch (const std::system_error& error) {
    say_refused(pid, "/tmp/perf-PID.map", error.what());
  }
  if (!place) return;  // gone, or no /tmp of its own
  kept_perf_map kept;
  kept.pid = pid;
  kept.path = place->path();
  kept.started = *started;
  kept.place = std::move(place);
  base::exclusive_lock lock{maps_mutex_};
  open_late(kept);  // none yet: looked for again at its exit and at each finished file
  perf_maps_.push_back(std::move(kept));
}

void build_id_reader::look_for_late_perf_map(pid_t pid) {
  base::exclusive_lock lock{maps_mutex_};
  for (kept_perf_map& map : perf_maps_)
    if (map.pid == pid && map.place) open_late(map);
}

void build_id_reader::say_refused(pid_t pid, const std::string& path,
                                  const std::string& problem) const {
  if (say_)
    say_("arec: warning: " + path + " of pid " + std::to_string(pid) + " " + problem +
         ": its JIT frames stay unnamed");
}

bool build_id_reader::open_late(kept_perf_map& map) {
  host::process_perf_map found;
  try {
    found = host::open_perf_map_at(*map.place);
  } catch (const std::system_error& error) {
    found.problem = error.what();
  }
  if (!found.fd && found.problem.empty()) return false;
  map.place.reset();  // its /tmp (a container's tmpfs) is no longer held
  if (!found.problem.empty()) say_refused(map.pid, map.path, found.problem);
  map.fd = std::move(found.fd);
  if (!map.fd) map.stored = perf_data::store_perf_map(map.pid, {});
  return true;
}

void build_id_reader::read_container(pid_t pid) {
  std::optional<std::uint64_t> started = host::process_start_time(pid);
  std::string id;
  try {
    id = host::container_id_of_process(pid);
  } catch (const std::system_error&) {
    return;  // an unreadable /proc/PID/cgroup: no label, as for a host process
  }
  if (id.empty() || !started) return;
  base::exclusive_lock lock{maps_mutex_};
  containers_.push_back({{pid, std::move(id)}, *started});
}

std::vector<perf_data::process_container> build_id_reader::containers() const {
  std::vector<perf_data::process_container> processes;
  base::exclusive_lock lock{maps_mutex_};
  for (const noted_container& noted : containers_) processes.push_back(noted.process);
  return processes;
}

void build_id_reader::forget_gone_processes() {
  auto gone = [](pid_t pid, std::uint64_t started) {
    return host::process_start_time(pid) != started;
  };
  base::exclusive_lock lock{maps_mutex_};
  std::erase_if(perf_maps_, [&](const kept_perf_map& map) { return gone(map.pid, map.started); });
  std::erase_if(containers_, [&](const noted_container& noted) {
    return gone(noted.process.pid, noted.started);
  });
}

std::optional<perf_data::stored_perf_map> build_id_reader::current(kept_perf_map& map) {
  if (!map.fd) return map.stored;  // refused: empty
  struct stat now {};
  if (::fstat(map.fd.get(), &now) == 0 && now.st_size == map.size &&
      now.st_mtim.tv_sec == map.modified.tv_sec && now.st_mtim.tv_nsec == map.modified.tv_nsec)
    return map.stored;
  std::string name = "pid " + std::to_string(map.pid) + "'s " + map.path;
  io::bounded_file read;
  try {
    read = io::read_bounded_open_file(map.fd.get(), name, perf_data::max_perf_map_bytes);
  } catch (const std::system_error& error) {
    read.problem = error.what();
  }
  if (!read.problem.empty()) {
    if (say_ && map.size != -2) say_("arec: warning: " + name + " " + read.problem + ": not kept");
    map.size = -2;  // said once
    return std::nullopt;
  }
  map.stored = perf_data::store_perf_map(map.pid, read.text);
  map.size = read.status.st_size;
  map.modified = read.status.st_mtim;
  return map.stored;
}

std::vector<perf_data::stored_perf_map> build_id_reader::perf_maps() {
  std::vector<perf_data::stored_perf_map> texts;
  perf_data::perf_maps_room room;
  std::size_t too_large = 0;
  base::exclusive_lock lock{maps_mutex_};
  for (kept_perf_map& map : perf_maps_) {
    if (map.place && !open_late(map)) continue;  // not written yet
    // A map that cannot fit is neither read nor held (compressed, it could still be 256 MiB).
    struct stat now {};
    bool fits = !map.fd || ::fstat(map.fd.get(), &now) != 0 ||
                room.has_text_room(static_cast<std::uint64_t>(now.st_size));
    std::optional<perf_data::stored_perf_map> stored;
    if (fits) stored = current(map);
    if (fits && !stored) continue;  // unreadable: said once
    if (fits && room.take(*stored)) {
      texts.push_back(std::move(*stored));
      continue;
    }
    ++too_large;
    map.stored = {};
    map.size = -1;  // read again when it may fit
  }
  if (too_large > perf_maps_too_large_ && say_)
    say_("arec: warning: the perf maps of " + std::to_string(too_large) +
         " processes are left out of this file: with them its maps would hold more than " +
         std::to_string(perf_data::max_perf_map_bytes) + " bytes, which no reader accepts");
  perf_maps_too_large_ = too_large;
  if (perf_maps_left_out_ > 0 && say_)
    say_("arec: warning: the perf maps of " + std::to_string(perf_maps_left_out_) +
         " more processes with JIT code are not kept (at most " + std::to_string(max_perf_maps) +
         ")");
  return texts;
}

}  // namespace arec::record
