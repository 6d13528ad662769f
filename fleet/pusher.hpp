// pusher: sends one window over HTTP/1.1 in the form --push-format names (Pyroscope's
// push.v1.PusherService/Push as a unary Connect call, an OTLP/HTTP profiles request, or Parca's
// WriteRaw through its gateway) and says what came of it. Runs on the sender's thread; blocks
// for the request.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleet/connect_error.hpp"
#include "fleet/http_client.hpp"
#include "fleet/push_options.hpp"
#include "fleet/push_window.hpp"

namespace arec::fleet {

class pusher {
 public:
  // `abort` ends a request in progress when it becomes true (shutdown past its deadline).
  pusher(const push_options& options, const std::atomic<bool>& abort);

  // Checks `window` against the server's limits at `now_ns`, then sends it. A window the server
  // would refuse is not sent: its outcome is drop, with the reason.
  push_outcome push(const push_window& window, std::int64_t now_ns);

 private:
  // Why the server would refuse `window` with `labels` at `now_ns`, or nullopt.
  std::optional<std::string> problem(const push_window& window, std::int64_t now_ns,
                                     std::span<const label> labels) const;
  std::string body(const push_window& window, std::span<const label> labels) const;

  const push_options& options_;
  std::string endpoint_;
  std::vector<std::string> headers_;
  http_client client_;
};

}  // namespace arec::fleet
