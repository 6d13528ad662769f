#include "fleet/pusher.hpp"

#include "fleet/backoff.hpp"
#include "fleet/ingest_limits.hpp"
#include "fleet/wire_format.hpp"

namespace arec::fleet {

pusher::pusher(const push_options& options, const std::atomic<bool>& abort)
    : options_(options),
      endpoint_(push_endpoint(options)),
      client_(http_timeouts{options.connect_timeout, options.request_timeout}, abort) {
  headers_ = {"Content-Type: application/proto", "Connect-Protocol-Version: 1",
              "Connect-Timeout-Ms: " + std::to_string(options.request_timeout.count()),
              "User-Agent: arec"};
  if (!options.bearer_token.empty())
    headers_.push_back("Authorization: Bearer " + options.bearer_token);
  if (!options.tenant_id.empty()) headers_.push_back("X-Scope-OrgID: " + options.tenant_id);
}

push_outcome pusher::push(const push_window& window, std::int64_t now_ns) {
  std::vector<label> labels = series_labels(options_, window);
  if (auto problem = label_problem(labels, options_.limits)) return {push_verdict::drop, *problem};
  if (auto problem = window_problem(window, now_ns, options_.limits)) {
    return {push_verdict::drop, *problem};
  }
  std::string body = encode_push_request(labels, window);
  http_response response =
      client_.post(endpoint_, headers_, body, options_.basic_user, options_.basic_password);
  if (response.status == 0) return {push_verdict::retry, response.error};
  push_outcome outcome = classify_response(response.status, response.body, response.location);
  if ((response.status == 429 || response.status == 503) && !response.retry_after.empty()) {
    outcome.retry_after = parse_retry_after(response.retry_after, std::chrono::system_clock::now());
    if (outcome.retry_after) {
      outcome.reason +=
          " (the server asks to wait " +
          std::to_string(std::chrono::ceil<std::chrono::seconds>(*outcome.retry_after).count()) +
          " s before the next try)";
    }
  }
  return outcome;
}

}  // namespace arec::fleet
