// push_options: where and how windows are pushed (--push URL, --push-interval, --push-label and
// the transport's settings), and the parser of those options' values, which the record command
// line (cli/) calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/ingest_limits.hpp"
#include "fleet/push_window.hpp"

namespace arec::fleet {

struct push_options {
  push_format format = push_format::pyroscope;
  // Without credentials or trailing '/': the server's base URL (Pyroscope, Parca), or the OTLP
  // profiles endpoint itself once settle_push_destination has resolved it.
  std::string url;
  std::chrono::milliseconds interval{15'000};
  std::string profile_name = "process_cpu";  // the __name__ label
  std::string service_name;                  // empty: the host name
  std::vector<label> labels;                 // --push-label key=value, in order
  std::string basic_user, basic_password;    // from user:password@ in the URL
  std::string bearer_token;                  // Authorization: Bearer
  std::string tenant_id;                     // X-Scope-OrgID, for multi-tenant servers
  std::vector<std::string> extra_headers;    // "Name: value" (OTLP: OTEL_EXPORTER_OTLP_HEADERS)
  // OTLP: the resource's attributes (service.name, host.name, OTEL_RESOURCE_ATTRIBUTES's, the
  // --push-label ones), set by settle_push_destination.
  std::vector<label> resource_attributes;
  std::string spool_dir;  // empty: windows wait in memory only
  bool inline_frames = true;  // --push-no-inline: no functions inlined at a location
  std::uint64_t memory_bound_bytes = 8 << 20;
  std::uint64_t disk_bound_bytes = 256 << 20;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds request_timeout{30'000};
  std::chrono::milliseconds flush_timeout{10'000};  // at shutdown, then the rest stays on disk
  std::chrono::milliseconds first_retry{1'000};     // back-off: doubles per failure ...
  std::chrono::milliseconds max_retry{60'000};      // ... up to this, with jitter
  ingest_limits limits;
};

// Applies one option ("--push", "--push-format", "--push-interval", "--push-label",
// "--push-tenant", "--push-token-file", "--push-password-file", "--push-spool", or the flag
// "--push-no-inline", whose value is ignored) with its value.
// The token and password files are read as ssh reads a key (the running user's alone).
// Throws base::usage_error naming the option for a bad value.
void apply_push_option(push_options& options, std::string_view option, std::string_view value);

// --push URL (or the OTLP endpoint from `source`, the variable that named it): http:// or
// https:// with a host and port that can be reached (an IPv6 address in [ ], a port from 1 to
// 65535); "user@" is taken out into basic auth. A password ("user:password@") is refused from
// --push, where every local user would read it in /proc/PID/cmdline: --push-password-file
// gives it; from a variable (readable by the user alone) it is taken. Errors name `source`.
void set_push_url(push_options& options, std::string_view url, std::string_view source = "--push");

// --push-interval: a number with s, ms, m or no unit (seconds), at least 1s.
std::chrono::milliseconds parse_push_interval(std::string_view text);

// --push-label key=value: a valid Pyroscope label name and a non-empty value.
label parse_push_label(std::string_view text);

// Checks and completes `options` once the command line is read: Pyroscope and Parca need --push
// URL; OTLP takes its endpoint, headers and resource attributes from --push and the
// OpenTelemetry variables (fleet/otlp_environment). Throws base::usage_error.
void settle_push_destination(push_options& options,
                             const std::function<const char*(const char*)>& env);

// --push-format: pyroscope, otlp or parca.
push_format parse_push_format(std::string_view text);
std::string_view format_name(push_format format);

// The URL a window is posted to: URL + "/push.v1.PusherService/Push" (Pyroscope),
// URL + "/api/profiles/writeraw" (Parca's gateway), URL itself (OTLP, already resolved).
std::string push_endpoint(const push_options& options);

// The labels of a window's series: __name__, service_name (the host name by default), the
// --push-label ones, then the window's own; a later name replaces an earlier one.
std::vector<label> series_labels(const push_options& options, const push_window& window);

// Sets `pair` in `labels`: replaces the value of a label of the same name, else appends it.
void add_or_replace(std::vector<label>& labels, label pair);

// Throws base::usage_error naming `option` when `value` (sent in an HTTP header) holds control
// characters: a CR or LF would start a header the user did not write.
void check_header_value(std::string_view option, std::string_view value, std::string_view what);

// What decides where a window goes, as the spool keeps it with each window: the format, the
// endpoint, the tenant (--push-tenant, or an X-Scope-OrgID header) and the basic-auth user. Never
// a token or a password.
std::string spool_destination(const push_options& options);

// This machine's host name (uname's nodename).
std::string host_name();

}  // namespace arec::fleet
