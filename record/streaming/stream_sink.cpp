#include "record/streaming/stream_sink.hpp"

namespace arec::record {
namespace {
constexpr std::size_t batch_bytes = 256 * 1024;
}

stream_sink::stream_sink(streamer& target) : target_(target) {
  for (auto& buffer : buffers_) buffer.reserve(batch_bytes);
}

// A batch may still be in flight when unwinding: its buffer must outlive the write.
stream_sink::~stream_sink() {
  for (auto& written : written_)
    if (written.valid()) written.wait();
}

void stream_sink::write(std::span<const std::byte> record) {
  std::vector<std::byte>& buffer = buffers_[filling_];
  if (buffer.size() + record.size() > batch_bytes) hand_over();
  buffers_[filling_].insert(buffers_[filling_].end(), record.begin(), record.end());
}

void stream_sink::hand_over() {
  std::vector<std::byte>& full = buffers_[filling_];
  if (full.empty()) return;
  written_[filling_] = target_.write_records(full);
  filling_ ^= 1;
  // The other buffer is reused only once its own batch is on the file.
  if (written_[filling_].valid()) written_[filling_].get();
  buffers_[filling_].clear();
}

void stream_sink::flush() {
  hand_over();
  for (auto& written : written_)
    if (written.valid()) written.get();
}

}  // namespace arec::record
