#include "record/synthesis/build_id_reader.hpp"

#include "async/thread_signals.hpp"

namespace arec::record {

build_id_reader::build_id_reader(build_id_sources sources,
                                 std::unique_ptr<symbols::build_id_cache> cache, cache_scope scope)
    : sources_(sources), cache_(std::move(cache)), scope_(scope), thread_([this] { run(); }) {}

build_id_reader::~build_id_reader() {
  stop();
}

void build_id_reader::enqueue(const std::shared_ptr<model::dso>& object) {
  push({object, scope_ == cache_scope::mapped});
}

void build_id_reader::enqueue_sampled(const std::shared_ptr<model::dso>& object) {
  if (cache_ && scope_ == cache_scope::sampled) push({object, true});
}

void build_id_reader::push(job next) {
  {
    io::exclusive_lock lock{mutex_};
    if (stopping_) return;
    queue_.push_back(std::move(next));
  }
  queued_.notify_one();
}

void build_id_reader::stop() {
  {
    io::exclusive_lock lock{mutex_};
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
      io::exclusive_lock lock{mutex_};
      while (queue_.empty() && !stopping_) queued_.wait(mutex_);
      if (must_end()) return;
      batch.swap(queue_);
    }
    for (const job& next : batch) {
      handle(next);
      io::exclusive_lock lock{mutex_};  // without a cache a stop need not wait for the rest
      if (stopping_ && !cache_) return;
    }
    batch.clear();
  }
}

void build_id_reader::handle(const job& next) {
  io::unique_fd file = read_build_id_once(*next.object, sources_);
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

}  // namespace arec::record
