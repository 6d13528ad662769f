// model_feed: applies the side-band records arec writes or drains (COMM, FORK, EXIT, MMAP,
// MMAP2) to the shared machine model as they pass, so the model is current at stop without a
// second pass over the data.
//
// Drained records are applied in time order, as perf applies them: the rings of different CPUs
// are drained in any order, and a FORK applied before its parent's own FORK (or before the
// MMAP its parent made just before it) would give the child an empty comm and address space,
// which a file after an output switch then describes (its tasks come from the model).
// Drained side-band records wait in a queue; at the end of a round (every ring drained after
// the round began) every record as old as the newest one queued before the round began has
// been drained, whichever ring it is in (perf's FINISHED_ROUND rule), so those are applied,
// sorted by time. A cut, a snapshot and the end apply the whole queue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "io/record_sink.hpp"
#include "model/machine.hpp"
#include "record/streaming/ring_reader.hpp"

namespace arec::record {

class model_feed {
 public:
  // `trailer_time_from_end`: where a side-band record keeps its time (sample_id_all), in bytes
  // before its end; 0 applies drained records as they are scanned, in drain order.
  explicit model_feed(model::machine& machine, std::size_t trailer_time_from_end = 0);

  // Applies one complete record now; other record types and malformed records are ignored.
  // Allocates nothing when the record names a known thread and dso.
  void apply(std::span<const std::byte> record);
  // Queues the side-band records of a drained ring chunk (or applies them, without a time
  // layout). The queue's storage grows to the largest round's side-band bytes and is reused.
  void scan(const ring_chunk& chunk);
  // The round protocol (streamer::run_rounds): call round_started() before the round asks its
  // rings to drain and round_finished() once every ring has.
  void round_started() noexcept { round_bound_ = newest_queued_; }
  void round_finished() { apply_queued_until(round_bound_); }
  // Applies everything queued, in time order.
  void apply_queued() { apply_queued_until(UINT64_MAX); }
  std::size_t queued() const noexcept { return queue_.size(); }

 private:
  struct queued_record {
    std::uint64_t time;
    std::uint64_t sequence;  // drain order, for records of the same time
    std::size_t offset;      // in queued_bytes_
    std::size_t size;
  };
  void enqueue(std::span<const std::byte> record);
  void apply_queued_until(std::uint64_t bound);

  model::machine& machine_;
  const std::size_t trailer_time_from_end_;
  std::unique_ptr<std::byte[]> straddling_;  // 64 KiB: a record's size is a u16
  std::vector<queued_record> queue_;
  std::vector<std::byte> queued_bytes_;
  std::vector<std::byte> kept_bytes_;  // the records left queued, while compacting
  std::uint64_t sequence_ = 0;
  std::uint64_t newest_queued_ = 0;
  std::uint64_t round_bound_ = 0;
};

// A record_sink that applies each record to the model and passes it on to `next`.
class model_feed_sink : public io::record_sink {
 public:
  model_feed_sink(model::machine& machine, io::record_sink& next) : feed_(machine), next_(next) {}
  void write(std::span<const std::byte> record) override;

 private:
  model_feed feed_;
  io::record_sink& next_;
};

}  // namespace arec::record
