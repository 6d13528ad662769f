// otlp_environment: the OpenTelemetry exporter variables, read as every OpenTelemetry exporter
// reads them (the specification's protocol/exporter.md and resource/sdk.md), for
// `--push-format=otlp` and `arec export --format=otlp`: OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. An empty variable is an unset one.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/push_window.hpp"

namespace arec::fleet {

// Looks a variable up: std::getenv, or a table in tests; nullptr or "" when unset.
using environment = std::function<const char*(const char*)>;
const char* process_environment(const char* name);

// "key1=value1,key2=value2" with %XX escapes, blanks around keys and values ignored (the W3C
// Baggage form both variables use). Throws base::usage_error naming `variable` when the list is
// malformed: the whole variable is refused, as the specification asks, and the user told.
std::vector<label> parse_otel_list(std::string_view text, std::string_view variable);

// The profiles endpoint and where it came from: `push_url` (--push, a base URL:
// /v1development/profiles is appended unless it ends so), else
// OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT as it is (a URL without a path gets "/"), else
// OTEL_EXPORTER_OTLP_ENDPOINT + "/v1development/profiles", else the specification's default
// http://localhost:4318/v1development/profiles.
struct otlp_endpoint {
  std::string url;
  std::string source;  // for messages: "--push", the variable's name, or "the default"
};
otlp_endpoint otlp_profiles_endpoint(std::string_view push_url, const environment& env);

// OTEL_EXPORTER_OTLP_HEADERS as "Name: value" lines. Throws base::usage_error for a name that is
// not an HTTP token or a value with control characters.
std::vector<std::string> otlp_headers(const environment& env);

// The resource attributes of a request, later ones replacing earlier ones of the same key:
// service.name and host.name (the host name), OTEL_RESOURCE_ATTRIBUTES's, OTEL_SERVICE_NAME as
// service.name, then `labels` (--push-label; its service_name is service.name).
std::vector<label> otlp_resource_attributes(std::span<const label> labels, const environment& env);

}  // namespace arec::fleet
