// model_feed: applies the side-band records arec writes or drains (COMM, FORK, EXIT, MMAP,
// MMAP2) to the shared machine model as they pass, so the model is current at stop without a
// second pass over the data.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "io/record_sink.hpp"
#include "model/machine.hpp"
#include "record/streaming/ring_reader.hpp"

namespace arec::record {

class model_feed {
 public:
  explicit model_feed(model::machine& machine);

  // Applies one complete record; other record types and malformed records are ignored.
  // Allocates nothing when the record names a known thread and dso.
  void apply(std::span<const std::byte> record);
  // Applies every record of a drained ring chunk (records may straddle the ring's wrap: those
  // are copied into a buffer owned here, sized once for the largest record).
  void scan(const ring_chunk& chunk);

 private:
  model::machine& machine_;
  std::unique_ptr<std::byte[]> straddling_;  // 64 KiB: a record's size is a u16
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
