#include "fleet/pusher.hpp"

#include "fleet/backoff.hpp"
#include "fleet/ingest_limits.hpp"
#include "fleet/wire_format.hpp"

namespace arec::fleet {
namespace {

std::vector<std::string> format_headers(const push_options& options) {
  switch (options.format) {
    case push_format::pyroscope:
      return {"Content-Type: application/proto", "Connect-Protocol-Version: 1",
              "Connect-Timeout-Ms: " + std::to_string(options.request_timeout.count())};
    case push_format::otlp:
      // Pyroscope compares the type as a whole string: no parameters after it.
      return {"Content-Type: application/x-protobuf", "Content-Encoding: gzip"};
    case push_format::parca:
      return {"Content-Type: application/json"};
  }
  return {};
}

// OTLP/HTTP's answers (the specification's "Failures"): 429, 502, 503 and 504 are worth another
// try. 408 and 500 are too, although the specification says not to retry 500: Pyroscope answers
// 500 when its ingesters cannot take the profiles, which passes, and a server that keeps
// answering it fills the spool, whose bound then drops the oldest (as for Connect's "internal").
push_outcome classify_otlp_response(long status, std::string_view body, std::string_view location) {
  if (status == 200) return {push_verdict::delivered, {}, {}, otlp_partial_success(body)};
  if (status >= 300 && status < 400) return classify_response(status, body, location);
  std::string reason = "HTTP " + std::to_string(status);
  if (std::string message = otlp_error_message(body); !message.empty()) reason += ": " + message;
  bool retry = status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
               status == 504;
  return {retry ? push_verdict::retry : push_verdict::drop, std::move(reason)};
}

}  // namespace

pusher::pusher(const push_options& options, const std::atomic<bool>& abort)
    : options_(options),
      endpoint_(push_endpoint(options)),
      client_(http_timeouts{options.connect_timeout, options.request_timeout}, abort) {
  headers_ = format_headers(options);
  headers_.push_back("User-Agent: arec");
  if (!options.bearer_token.empty())
    headers_.push_back("Authorization: Bearer " + options.bearer_token);
  if (!options.tenant_id.empty()) headers_.push_back("X-Scope-OrgID: " + options.tenant_id);
  headers_.insert(headers_.end(), options.extra_headers.begin(), options.extra_headers.end());
}

std::optional<std::string> pusher::problem(const push_window& window, std::int64_t now_ns,
                                           std::span<const label> labels) const {
  if (window.payload != payload_of(options_.format)) {
    return std::string("it was spooled as ") +
           (window.payload == payload_kind::otlp ? "an OTLP request" : "a pprof") +
           " by a run with another --push-format; --push-format=" +
           std::string(format_name(options_.format)) + " cannot send it";
  }
  if (options_.format != push_format::otlp) {
    if (auto problem = label_problem(labels, options_.limits)) return problem;
  }
  return window_problem(window, now_ns, options_.limits);
}

std::string pusher::body(const push_window& window, std::span<const label> labels) const {
  switch (options_.format) {
    case push_format::pyroscope:
      return encode_push_request(labels, window);
    case push_format::parca:
      return encode_parca_write_raw(labels, window);
    case push_format::otlp:
      break;
  }
  return window.profile;  // the gzipped request, sent with Content-Encoding: gzip
}

push_outcome pusher::push(const push_window& window, std::int64_t now_ns) {
  std::vector<label> labels = series_labels(options_, window);
  if (auto why = problem(window, now_ns, labels)) return {push_verdict::drop, *why};
  http_response response = client_.post(endpoint_, headers_, body(window, labels),
                                        options_.basic_user, options_.basic_password);
  if (response.status == 0) return {push_verdict::retry, response.error};
  push_outcome outcome =
      options_.format == push_format::otlp
          ? classify_otlp_response(response.status, response.body, response.location)
          : classify_response(response.status, response.body, response.location);
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
