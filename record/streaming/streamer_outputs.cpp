// The streamer's outputs: making one, and --switch-output's cut from one data file to the next
// while the rings keep draining.
#include <algorithm>
#include <utility>

#include "record/streaming/streamer.hpp"
#include "record/streaming/streamer_parts.hpp"

namespace arec::record {

std::unique_ptr<streamer::output> streamer::make_output(std::unique_ptr<io::append_writer> writer) {
  auto executor = thread_.executor();
  auto out = std::make_unique<output>(executor);
  out->stream = std::make_unique<data_stream>(executor, std::move(writer), [this] {
    on_stop();
    if (on_failure_) on_failure_();
  });
  if (config_.compression_level > 0) {
    // A drain takes at most a ring's capacity: sealing at that much input bounds each record.
    std::size_t largest_ring = 0;
    for (const auto& ring : rings_)
      largest_ring = std::max(largest_ring, ring->ring.reader().capacity());
    output* target = out.get();
    out->compression.emplace(
        executor, config_.compression_level, largest_ring, rings_.size(),
        [this, target](std::span<const stream_stats> by_ring, std::uint64_t bytes) {
          count_segment(*target, by_ring, bytes);
        });
  }
  async::spawn(executor, pump(*out), thread_.completion());
  return out;
}

async::task<void> streamer::pump(output& out) {
  co_await out.stream->pump();
  out.pumping = false;
  out.idle.set();
  co_return;
}

std::uint64_t streamer::durable_offset() const {
  return published_.load(std::memory_order_acquire)->stream->durable_offset();
}

std::uint64_t streamer::durable_samples() const {
  return samples_in_cut_outputs_.load(std::memory_order_relaxed) +
         published_.load(std::memory_order_acquire)->stream->durable_samples();
}

output_cut streamer::last_output() const {
  output_cut result;
  result.data_end = current_->stream->durable_offset();
  result.stats = current_->stats;
  if (current_->compression) {
    result.compressed_in = current_->compression->totals().bytes_in();
    result.compressed_out = current_->compression->totals().bytes_out();
  }
  return result;
}

std::future<output_cut> streamer::switch_output(std::unique_ptr<io::append_writer> writer,
                                                std::function<std::vector<std::byte>()> prelude) {
  auto promise = std::make_shared<std::promise<output_cut>>();
  std::future<output_cut> result = promise->get_future();
  auto next = std::make_shared<std::unique_ptr<io::append_writer>>(std::move(writer));
  async::post(thread_.executor(), [this, next, promise, prelude = std::move(prelude)]() mutable {
    async::spawn(thread_.executor(),
                 switch_when_drained(std::move(*next), std::move(prelude), promise),
                 thread_.completion());
  });
  return result;
}

// Every ring is drained first, all in one pass: the old file then holds each ring up to about
// the same instant, so a sample there finds the MMAP or COMM another cpu's ring recorded just
// before it (a ring waiting for its watermark could otherwise hold such a record back, for the
// new file, for as long as a round).
async::task<void> streamer::switch_when_drained(std::unique_ptr<io::append_writer> writer,
                                                std::function<std::vector<std::byte>()> prelude,
                                                std::shared_ptr<std::promise<output_cut>> promise) {
  std::uint64_t round = ++round_;
  for (auto& ring : rings_) request_drain(*ring);
  co_await wait_for_round_acks(round);
  if (feed_) feed_->apply_queued();  // the old file's records, before the prelude reads the model
  if (config_.off_cpu) config_.off_cpu->thread_cut(config_.thread_index);
  if (config_.overwrite && !std::exchange(snapshot_written_early_, false)) {
    try {
      co_await write_snapshot();
    } catch (const std::system_error&) {
      // The old stream failed: cut() hands its error to the caller.
    }
  }
  // Taken before any drain into the new file: the model holds what the old file made.
  auto first = std::make_shared<std::vector<std::byte>>();
  if (prelude) *first = prelude();
  // The cut: a drain that chose the old output before this point writes there, every drain
  // after it goes to the new one. A ring's bytes are consumed only once written, so each
  // record lands in exactly one file.
  std::unique_ptr<output> old = std::move(current_);
  current_ = make_output(std::move(writer));
  published_.store(current_.get(), std::memory_order_release);
  rounds_held_ = true;
  bytes_since_round_ = 0;
  if (!first->empty()) async::spawn(thread_.executor(), write_owned(first), thread_.completion());
  // After the last ring's final drain nothing would close the new stream (finish_stream did).
  if (rings_running_ == 0) current_->stream->close();
  co_await cut(std::move(old), promise);
  co_return;
}

// Ends the old output once the writes that chose it finished; the rings meanwhile drain into
// the new one.
async::task<void> streamer::cut(std::unique_ptr<output> old,
                                std::shared_ptr<std::promise<output_cut>> promise) {
  std::exception_ptr failure;
  try {
    if (old->compression && !old->stream->failed()) {
      output_use use(*old);
      co_await old->compression->seal(*old->stream);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // Staged drains to it still count as active until written and reaped: write what is
  // filling, and reap the rest as it comes.
  co_await flush_staging();
  old->stream->expedite();
  while (old->active > 0) {
    old->idle.reset();
    co_await old->idle.wait();
  }
  old->stream->close();
  while (old->pumping) {
    old->idle.reset();
    co_await old->idle.wait();
  }
  output_cut result;
  result.data_end = old->stream->durable_offset();
  result.stats = old->stats;
  if (old->compression) {
    result.compressed_in = old->compression->totals().bytes_in();
    result.compressed_out = old->compression->totals().bytes_out();
    cut_compressed_in_ += result.compressed_in;
    cut_compressed_out_ += result.compressed_out;
  }
  samples_in_cut_outputs_.fetch_add(old->stream->durable_samples(), std::memory_order_relaxed);
  try {
    old->stream->throw_if_failed();
  } catch (...) {
    failure = std::current_exception();
  }
  result.failure = failure;
  promise->set_value(result);
  co_return;
}

}  // namespace arec::record
