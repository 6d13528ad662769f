// wire_format: the encodings fleet/ writes and reads: Pyroscope's push.v1.PushRequest for one
// window, Parca's WriteRawRequest as its HTTP gateway takes it (protobuf's JSON form), an OTLP
// server's answer, and the spool's own file format for a window waiting on disk. Only this
// file's .cpp includes the generated protobuf code.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fleet/push_window.hpp"

namespace arec::fleet {

// A PushRequest holding one series with `labels` and one sample: the window's profile.
std::string encode_push_request(std::span<const label> labels, const push_window& window);

// A WriteRawRequest holding one series with `labels` and the window's (gzipped) pprof, as the
// JSON body of POST /api/profiles/writeraw.
std::string encode_parca_write_raw(std::span<const label> labels, const push_window& window);

// What an OTLP server's answer says beyond its status: a 200's partial success ("2 profile(s)
// rejected: ..."), or a failure's message (a google.rpc.Status, or the plain text Pyroscope
// sends); empty when it says nothing.
std::string otlp_partial_success(std::string_view body);
std::string otlp_error_message(std::string_view body);

// A window as a spool file, and back; nullopt when `bytes` is not a whole spool file.
std::string encode_spooled_window(const push_window& window);
std::optional<push_window> decode_spooled_window(std::string_view bytes);

}  // namespace arec::fleet
