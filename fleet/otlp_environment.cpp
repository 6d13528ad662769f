#include "fleet/otlp_environment.hpp"

#include <cstdlib>

#include "base/trimmed.hpp"
#include "base/usage_error.hpp"
#include "fleet/push_options.hpp"

namespace arec::fleet {
namespace {

constexpr std::string_view profiles_path = "/v1development/profiles";

std::string_view variable(const environment& env, const char* name) {
  const char* value = env(name);
  return value ? std::string_view(value) : std::string_view();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX escapes decoded; false for a '%' without two hex digits after it.
bool percent_decode(std::string_view text, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    int high = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
    int low = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
    if (high < 0 || low < 0) return false;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

bool is_token(std::string_view name) {
  constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
  for (char c : name) {
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return !name.empty();
}

}  // namespace

const char* process_environment(const char* name) {
  return std::getenv(name);
}

std::vector<label> parse_otel_list(std::string_view text, std::string_view variable_name) {
  std::vector<label> pairs;
  auto refuse = [&](std::string_view why) {
    throw base::usage_error(std::string(variable_name) + ": " + std::string(why) + " in " +
                            base::quoted(text) +
                            "; expected key1=value1,key2=value2 (percent-encode ',', '=' and '%')");
  };
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (base::trimmed(item).empty()) continue;
    std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) refuse("no '=' in " + base::quoted(base::trimmed(item)));
    label pair;
    if (!percent_decode(base::trimmed(item.substr(0, equals)), pair.name) ||
        !percent_decode(base::trimmed(item.substr(equals + 1)), pair.value))
      refuse("a '%' not followed by two hex digits");
    if (pair.name.empty()) refuse("an empty key");
    add_or_replace(pairs, std::move(pair));
  }
  return pairs;
}

otlp_endpoint otlp_profiles_endpoint(std::string_view push_url, const environment& env) {
  if (!push_url.empty()) {
    std::string url(push_url);
    if (!url.ends_with(profiles_path)) url += profiles_path;
    return {url, "--push"};
  }
  constexpr const char* signal_variable = "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT";
  if (std::string_view signal = variable(env, signal_variable); !signal.empty()) {
    std::string url(signal);
    std::size_t host = url.find("://");
    if (host != std::string::npos && url.find('/', host + 3) == std::string::npos) url += '/';
    return {url, signal_variable};
  }
  constexpr const char* base_variable = "OTEL_EXPORTER_OTLP_ENDPOINT";
  std::string base(variable(env, base_variable));
  std::string source = base.empty() ? "the default" : base_variable;
  if (base.empty()) base = "http://localhost:4318";
  while (base.ends_with('/')) base.pop_back();
  return {base + std::string(profiles_path), source};
}

std::vector<std::string> otlp_headers(const environment& env) {
  constexpr std::string_view name = "OTEL_EXPORTER_OTLP_HEADERS";
  std::vector<std::string> headers;
  for (const label& pair : parse_otel_list(variable(env, name.data()), name)) {
    if (!is_token(pair.name))
      throw base::usage_error(std::string(name) + ": " + base::quoted(pair.name) +
                              " is not an HTTP header name");
    check_header_value(name, pair.value, "a header's value");
    headers.push_back(pair.name + ": " + pair.value);
  }
  return headers;
}

std::vector<label> otlp_resource_attributes(std::span<const label> labels, const environment& env) {
  std::string host = host_name();
  std::vector<label> attributes{{"service.name", host}, {"host.name", host}};
  constexpr std::string_view resource = "OTEL_RESOURCE_ATTRIBUTES";
  for (label& pair : parse_otel_list(variable(env, resource.data()), resource))
    add_or_replace(attributes, std::move(pair));
  if (std::string_view service = variable(env, "OTEL_SERVICE_NAME"); !service.empty())
    add_or_replace(attributes, {"service.name", std::string(service)});
  for (const label& pair : labels)
    add_or_replace(attributes,
                   {pair.name == "service_name" ? "service.name" : pair.name, pair.value});
  return attributes;
}

}  // namespace arec::fleet
