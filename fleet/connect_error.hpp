// connect_error: what a Connect protocol answer means for a window: delivered, worth another
// try later, or refused for good. A unary Connect error is an HTTP status with a JSON body
// {"code": "unavailable", "message": "..."} (connectrpc.com/docs/protocol).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace arec::fleet {

enum class push_verdict {
  delivered,
  retry,  // the server or the network may recover: keep the window, try again later
  drop,   // the server refuses this window for good: drop it and say why
};

struct push_outcome {
  push_verdict verdict = push_verdict::delivered;
  std::string reason;  // empty when delivered: "HTTP 503, unavailable: ingester down"
  // How long the server asked us to wait before the next try (Retry-After on 429 or 503).
  std::optional<std::chrono::milliseconds> retry_after;
  // Delivered, with something to say: an OTLP partial success ("2 profile(s) rejected: ...").
  std::string note;
};

// The Connect error code and message of a JSON error body; empty strings for what is missing
// or when the body is not a JSON object.
struct connect_status {
  std::string code;
  std::string message;
};
connect_status parse_connect_error(std::string_view body);

// The outcome of an HTTP answer `status` with `body` to a unary Connect call. A redirect (3xx to
// `location`) is retried, never followed, and its reason names `location`, so the user can put
// that URL in --push; the windows wait in the spool meanwhile.
push_outcome classify_response(long status, std::string_view body, std::string_view location = {});

// Whether a Connect error code is worth retrying (unavailable, resource_exhausted, ...).
bool retryable_code(std::string_view code);

}  // namespace arec::fleet
