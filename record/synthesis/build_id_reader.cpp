#include "record/synthesis/build_id_reader.hpp"

#include "async/thread_signals.hpp"

namespace arec::record {

build_id_reader::build_id_reader(build_id_sources sources, std::unique_ptr<build_id_cache> cache)
    : sources_(sources), cache_(std::move(cache)), thread_([this] { run(); }) {}

build_id_reader::~build_id_reader() {
  stop();
}

void build_id_reader::enqueue(const std::shared_ptr<model::dso>& object) {
  {
    io::exclusive_lock lock{mutex_};
    if (stopping_) return;
    queue_.push_back(object);
  }
  queued_.notify_one();
}

void build_id_reader::stop() {
  {
    io::exclusive_lock lock{mutex_};
    stopping_ = true;
  }
  queued_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void build_id_reader::run() {
  async::block_signals_in_this_thread();
  std::vector<std::shared_ptr<model::dso>> batch;
  for (;;) {
    {
      io::exclusive_lock lock{mutex_};
      while (queue_.empty() && !stopping_) queued_.wait(mutex_);
      if (must_end()) return;
      batch.swap(queue_);
    }
    for (const auto& object : batch) {
      handle(*object);
      io::exclusive_lock lock{mutex_};  // without a cache a stop need not wait for the rest
      if (stopping_ && !cache_) return;
    }
    batch.clear();
  }
}

void build_id_reader::handle(model::dso& object) {
  read_build_id_once(object, sources_);
  if (cache_) cache_->add(object);
}

}  // namespace arec::record
