#include "convert/convert_output.hpp"

#include <array>
#include <cmath>

#include "perf_data/perf_abi.hpp"

namespace arec::convert {
namespace {

constexpr perf_data::record_header finished_round{perf_data::record_finished_round, 0, 8};

std::span<const std::byte> round_bytes() {
  return std::as_bytes(std::span{&finished_round, 1});
}

}  // namespace

convert_output::convert_output(const std::string& path,
                               std::span<const perf_data::event_entry> events,
                               int compression_level)
    : file_(path, io::publish_policy::replace),
      header_(file_.fd(), path),
      data_offset_(header_.write_prologue(events)),
      writer_(file_.fd(), path, data_offset_, 1) {
  batch_.reserve(batch_bytes);
  if (compression_level > 0) {
    compressor_.emplace(compression_level);
    compressed_.resize(perf_data::compressor::bound(batch_bytes));
  }
}

void convert_output::write(std::span<const std::span<const std::byte>> pieces) {
  writer_.submit(pieces, 0);
  std::array<std::uint64_t, 1> done{};
  writer_.reap(done);  // the plain writer has finished; this throws its write error if any
}

void convert_output::write_batch() {
  if (batch_.empty()) return;
  std::span<const std::byte> plain{batch_};
  if (compressor_) {
    std::array<std::span<const std::byte>, 1> input{plain};
    std::size_t size = compressor_->compress(input, compressed_);
    std::array<std::span<const std::byte>, 2> pieces{
        std::span<const std::byte>{compressed_.data(), size}, round_bytes()};
    write(pieces);
  } else {
    std::array<std::span<const std::byte>, 2> pieces{plain, round_bytes()};
    write(pieces);
  }
  batch_.clear();
}

void convert_output::append(std::span<const std::byte> record) {
  if (batch_.size() + record.size() > batch_bytes) write_batch();
  batch_.insert(batch_.end(), record.begin(), record.end());
  record_bytes_ += record.size();
}

void convert_output::commit(perf_data::feature_set features) {
  write_batch();
  if (data_bytes() == 0) {
    // perf refuses a data size of 0 ("not properly terminated?"); a lone round marker says
    // "nothing was recorded" in a file it reads, e.g. after salvaging a recording killed early.
    std::array<std::span<const std::byte>, 1> pieces{round_bytes()};
    write(pieces);
  }
  if (compressor_) {
    double ratio = compressor_->bytes_out() ? static_cast<double>(compressor_->bytes_in()) /
                                                  static_cast<double>(compressor_->bytes_out())
                                            : 1.0;
    features.set(perf_data::feature_compressed,
                 perf_data::compressed_payload(static_cast<std::uint32_t>(compressor_->level()),
                                               static_cast<std::uint32_t>(std::lround(ratio)),
                                               decompression_buffer));
  }
  header_.write_epilogue(data_bytes(), features);
  file_.commit();
}

}  // namespace arec::convert
