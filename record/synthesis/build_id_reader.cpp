#include "record/synthesis/build_id_reader.hpp"

#include "async/thread_signals.hpp"

namespace arec::record {

build_id_reader::build_id_reader(build_id_sources sources)
    : sources_(sources), thread_([this] { run(); }) {}

build_id_reader::~build_id_reader() {
  stop();
}

void build_id_reader::enqueue(const std::shared_ptr<model::dso>& object) {
  {
    model::exclusive_lock lock{mutex_};
    if (stopping_) return;
    queue_.push_back(object);
  }
  queued_.notify_one();
}

void build_id_reader::stop() {
  {
    model::exclusive_lock lock{mutex_};
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
      model::exclusive_lock lock{mutex_};
      while (queue_.empty() && !stopping_) queued_.wait(mutex_);
      if (stopping_) return;
      batch.swap(queue_);
    }
    for (const auto& object : batch) {
      read_build_id_once(*object, sources_);
      model::exclusive_lock lock{mutex_};  // a stop need not wait for the rest of a batch
      if (stopping_) return;
    }
    batch.clear();
  }
}

}  // namespace arec::record
