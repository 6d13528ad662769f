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
//
// With a sample_position, each SAMPLE also tells the model which dso it fell in
// (machine::on_sample), in the same time order, so that a dso mapped and sampled in one round
// is known when its sample is applied. A sample is skipped, at the cost of a compare or two,
// when this feed has already resolved its range for the same process (the dso was marked then)
// or has queued a sample of the same page (that one will mark it). A MMAP, FORK or EXIT of a
// process forgets both for it as soon as it is scanned: its address space may have changed.
// (Samples drained from another CPU's ring before such a record still skip: a new mapping
// over an old range is marked by its samples from the next drain on.)
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "io/record_sink.hpp"
#include "model/machine.hpp"
#include "record/streaming/ring_reader.hpp"

namespace arec::record {

// Where a SAMPLE holds the fields that say where it fell, in bytes into its body
// (perf_data/sample_layout.hpp); the time is read only when records are applied in order.
struct sample_position {
  std::size_t ip = 0;
  std::size_t tid = 0;  // the (u32 pid, u32 tid) pair
  std::size_t time = 0;
};

class model_feed {
 public:
  // `trailer_time_from_end`: where a side-band record keeps its time (sample_id_all), in bytes
  // before its end; 0 applies drained records as they are scanned, in drain order. `samples`:
  // where samples keep their address and thread, to mark the dsos they fall in as sampled;
  // none leaves samples alone.
  explicit model_feed(model::machine& machine, std::size_t trailer_time_from_end = 0,
                      std::optional<sample_position> samples = std::nullopt);

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
    std::size_t offset;      // in queued_bytes_; a sample's address
    std::size_t size;        // 0 for a sample, which is queued without its bytes
    pid_t pid = 0;           // a sample's process (-1: the kernel) and thread
    pid_t tid = 0;
  };
  // A range of a process that later samples skip: resolved, or a page with a sample queued.
  struct sampled_range {
    pid_t pid = 0;
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    bool contains(pid_t of, std::uint64_t address) const noexcept {
      return pid == of && address >= start && address < end;
    }
  };
  using range_table = std::array<sampled_range, 256>;  // direct-mapped by process and address
  void enqueue(std::span<const std::byte> record);
  void apply_queued_until(std::uint64_t bound);
  void note_sample(const ring_chunk& chunk, std::size_t offset, std::uint16_t misc,
                   std::size_t size);
  void apply_sample(const queued_record& sample);
  static sampled_range& slot(range_table& table, pid_t pid, std::uint64_t address,
                             unsigned shift) noexcept;
  void forget_process(std::uint32_t type, pid_t pid) noexcept;

  model::machine& machine_;
  const std::size_t trailer_time_from_end_;
  const std::optional<sample_position> samples_;
  range_table resolved_{};                   // maps resolved, by 64 KiB
  range_table pending_{};                    // pages with a sample queued, by 4 KiB
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
