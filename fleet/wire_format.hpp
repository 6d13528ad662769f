// wire_format: the protobuf encodings fleet/ writes: Pyroscope's push.v1.PushRequest for one
// window, and the spool's own file format for a window waiting on disk. Only this file's .cpp
// includes the generated protobuf code.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fleet/push_window.hpp"

namespace arec::fleet {

// A PushRequest holding one series with `labels` and one sample: the window's profile.
std::string encode_push_request(std::span<const label> labels, const push_window& window);

// A window as a spool file, and back; nullopt when `bytes` is not a whole spool file.
std::string encode_spooled_window(const push_window& window);
std::optional<push_window> decode_spooled_window(std::string_view bytes);

}  // namespace arec::fleet
