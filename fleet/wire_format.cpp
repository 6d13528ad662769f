#include "fleet/wire_format.hpp"

#include "fleet/proto/push.pb.h"
#include "fleet/proto/spool.pb.h"

namespace arec::fleet {
namespace {

template <typename Pairs>
void copy_labels(std::span<const label> from, Pairs& to) {
  for (const label& pair : from) {
    types::v1::LabelPair* added = to.Add();
    added->set_name(pair.name);
    added->set_value(pair.value);
  }
}

}  // namespace

std::string encode_push_request(std::span<const label> labels, const push_window& window) {
  push::v1::PushRequest request;
  push::v1::RawProfileSeries* series = request.add_series();
  copy_labels(labels, *series->mutable_labels());
  series->add_samples()->set_raw_profile(window.profile);
  return request.SerializeAsString();
}

std::string encode_spooled_window(const push_window& window) {
  arec::fleet::spool::SpooledWindow spooled;
  spooled.set_start_ns(window.start_ns);
  spooled.set_end_ns(window.end_ns);
  copy_labels(window.labels, *spooled.mutable_labels());
  spooled.set_profile(window.profile);
  spooled.set_uncompressed_size(window.uncompressed_size);
  return spooled.SerializeAsString();
}

std::optional<push_window> decode_spooled_window(std::string_view bytes) {
  arec::fleet::spool::SpooledWindow spooled;
  if (!spooled.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  if (spooled.profile().empty()) return std::nullopt;  // a file cut short or not ours
  push_window window;
  window.start_ns = spooled.start_ns();
  window.end_ns = spooled.end_ns();
  for (const auto& pair : spooled.labels()) window.labels.push_back({pair.name(), pair.value()});
  window.profile = spooled.profile();
  window.uncompressed_size = spooled.uncompressed_size();
  return window;
}

}  // namespace arec::fleet
