#include "fleet/push_options.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <system_error>

#include "base/trimmed.hpp"
#include "base/usage_error.hpp"
#include "fleet/otlp_environment.hpp"
#include "io/owned_files.hpp"

namespace arec::fleet {
namespace {

[[noreturn]] void bad_value(std::string_view option, std::string_view value,
                            std::string_view expected) {
  throw base::usage_error(std::string(option) + ": " + std::string(expected) + ", got '" +
                          std::string(value) + "'");
}

// Enough for any bearer token (a JWT is a few hundred bytes); reading stops there, so a device
// or a huge file given by mistake costs nothing.
constexpr std::size_t max_token_bytes = 16 * 1024;

// A bearer token or a password comes from a file, never the command line, where `ps` (and
// /proc/PID/cmdline) shows it to every user. As ssh does for a key, a file others may read or
// that another user controls is refused: the secret would already be theirs, or be theirs to
// replace. `option` names the option, `what` the secret ("token", "password").
std::string read_secret(std::string_view path_text, std::string_view option,
                        std::string_view what) {
  std::string path(path_text);
  const std::string one = "expected a regular file holding one " + std::string(what);
  std::optional<io::bounded_file> file;
  try {
    file = io::read_bounded_regular_file(AT_FDCWD, path, max_token_bytes);
  } catch (const std::system_error& error) {
    throw base::usage_error(std::string(option) + ": cannot read the " + std::string(what) + ": " +
                            error.what());
  }
  if (!file) bad_value(option, path, "expected a file holding the " + std::string(what));
  if (!file->problem.empty())
    throw base::usage_error(std::string(option) + ": " + path + " " + file->problem + "; " + one);
  if (std::string problem = io::ownership_problem(file->status, true, true); !problem.empty()) {
    throw base::usage_error(std::string(option) + ": " + path + " " + problem + "; make it the " +
                            std::string(what) + "'s alone: chown $(id -u) " + path +
                            " && chmod 600 " + path);
  }
  std::string secret = std::move(file->text);
  while (!secret.empty() && std::isspace(static_cast<unsigned char>(secret.back())))
    secret.pop_back();
  if (secret.empty() || secret.find_first_of(" \t\r\n") != std::string::npos)
    bad_value(option, path, "expected a file holding one " + std::string(what));
  check_header_value(option, secret, "the " + std::string(what));
  return secret;
}

// A port: 1 to 65535 in decimal.
bool is_port(std::string_view text) {
  unsigned port = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  return error == std::errc{} && end == text.data() + text.size() && port >= 1 && port <= 65535;
}

// What is wrong with a URL's host[:port] (no credentials), or "" when nothing is: a host libcurl
// cannot resolve or a port no socket has would be retried until the spool fills, never sent.
std::string authority_problem(std::string_view authority) {
  std::string_view host = authority, port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return "an IPv6 address without its ']'";
    host = authority.substr(1, close - 1);
    std::string address(host.substr(0, host.find('%')));  // a zone: [fe80::1%25eth0]
    in6_addr parsed{};
    if (::inet_pton(AF_INET6, address.c_str(), &parsed) != 1)
      return base::quoted(host) + " is not an IPv6 address";
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return "text after the IPv6 address's ']'";
    has_port = !after.empty();
    if (has_port) port = after.substr(1);
  } else {
    std::size_t colon = authority.rfind(':');
    has_port = colon != std::string_view::npos;
    if (has_port) host = authority.substr(0, colon), port = authority.substr(colon + 1);
    if (host.empty()) return "no host";
    for (char c : host) {
      bool fits = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
                  c == '~' || c == '%' || static_cast<unsigned char>(c) >= 0x80;
      if (!fits)
        return "the host " + base::quoted(host) + " holds " + base::quoted(std::string(1, c));
    }
  }
  if (has_port && !is_port(port)) return "the port " + base::quoted(port) + " is not 1 to 65535";
  return {};
}

}  // namespace

void add_or_replace(std::vector<label>& labels, label pair) {
  auto same = std::find_if(labels.begin(), labels.end(),
                           [&](const label& other) { return other.name == pair.name; });
  if (same != labels.end()) {
    same->value = std::move(pair.value);
  } else {
    labels.push_back(std::move(pair));
  }
}

// A value sent in an HTTP header: a CR or LF would end the header and start another one the
// user did not write (header injection), a NUL cuts it; other control characters no server takes.
void check_header_value(std::string_view option, std::string_view value, std::string_view what) {
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      throw base::usage_error(std::string(option) + ": " + std::string(what) +
                              " must not hold control characters (CR, LF, NUL, ...): it is sent in "
                              "an HTTP header");
    }
  }
}

void set_push_url(push_options& options, std::string_view url, std::string_view source) {
  std::string_view scheme;
  for (std::string_view candidate : {"http://", "https://"}) {
    if (url.starts_with(candidate)) scheme = candidate;
  }
  std::string_view rest = url.substr(scheme.size());
  if (scheme.empty() || rest.empty() || rest.front() == '/') {
    bad_value(source, url, "expected an http:// or https:// URL");
  }
  // Credentials go to basic auth, so the URL can be shown in messages without them.
  std::size_t host_end = std::min(rest.find_first_of("/?#"), rest.size());
  if (std::size_t at = rest.substr(0, host_end).rfind('@'); at != std::string_view::npos) {
    std::string_view credentials = rest.substr(0, at);
    std::size_t colon = credentials.find(':');
    std::string user(credentials.substr(0, colon));
    check_header_value(source, user, "the URL's user");
    if (colon != std::string_view::npos) {
      std::string password(credentials.substr(colon + 1));
      check_header_value(source, password, "the URL's password");
      // The command line is world-readable (ps, /proc/PID/cmdline) for as long as arec runs.
      if (source == "--push" && !password.empty()) {
        throw base::usage_error(
            "--push: the URL holds a password, which every user of this machine could read in "
            "the command line (ps, /proc/PID/cmdline) while arec runs; keep the user in the URL "
            "(http://USER@HOST/...) and put the password alone in a file only you can read "
            "(chmod 600 FILE), given with --push-password-file FILE");
      }
      options.basic_password = std::move(password);
    }
    options.basic_user = std::move(user);
    rest = rest.substr(at + 1);
    host_end -= at + 1;
  }
  check_header_value(source, rest, "the URL");
  if (std::string problem = authority_problem(rest.substr(0, host_end)); !problem.empty())
    bad_value(source, std::string(scheme) + std::string(rest),
              "expected a URL whose host and "
              "port can be reached (" +
                  problem + ")");
  while (rest.ends_with('/')) rest.remove_suffix(1);
  options.url = std::string(scheme) + std::string(rest);
}

std::chrono::milliseconds parse_push_interval(std::string_view text) {
  double number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  double scale = unit == "ms" ? 1 : unit == "s" || unit.empty() ? 1e3 : unit == "m" ? 60e3 : -1;
  if (error != std::errc{} || scale < 0 || number <= 0) {
    bad_value("--push-interval", text, "expected a duration such as 15s, 500ms or 1m");
  }
  auto interval = std::chrono::milliseconds(static_cast<std::int64_t>(number * scale));
  if (interval < std::chrono::seconds(1)) bad_value("--push-interval", text, "expected 1s or more");
  return interval;
}

label parse_push_label(std::string_view text) {
  std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0 || equals + 1 == text.size()) {
    bad_value("--push-label", text, "expected key=value");
  }
  label pair{std::string(text.substr(0, equals)), std::string(text.substr(equals + 1))};
  // The service_name stands in so that only the name itself is judged here.
  std::vector<label> probe{pair, {"service_name", "x"}};
  if (pair.name == "service_name") probe.pop_back();
  if (auto problem = label_problem(probe, ingest_limits{})) {
    bad_value("--push-label", text, "expected key=value with a valid key (" + *problem + ")");
  }
  return pair;
}

push_format parse_push_format(std::string_view text) {
  for (push_format format : {push_format::pyroscope, push_format::otlp, push_format::parca}) {
    if (text == format_name(format)) return format;
  }
  bad_value("--push-format", text, "expected pyroscope, otlp or parca");
}

std::string_view format_name(push_format format) {
  switch (format) {
    case push_format::pyroscope:
      return "pyroscope";
    case push_format::otlp:
      return "otlp";
    case push_format::parca:
      return "parca";
  }
  return "?";
}

void apply_push_option(push_options& options, std::string_view option, std::string_view value) {
  if (option == "--push") {
    set_push_url(options, value);
  } else if (option == "--push-format") {
    options.format = parse_push_format(value);
  } else if (option == "--push-interval") {
    options.interval = parse_push_interval(value);
  } else if (option == "--push-label") {
    add_or_replace(options.labels, parse_push_label(value));
  } else if (option == "--push-tenant") {
    if (value.empty()) bad_value(option, value, "expected a tenant id");
    check_header_value(option, value, "the tenant id");
    options.tenant_id = std::string(value);
  } else if (option == "--push-token-file") {
    options.bearer_token = read_secret(value, option, "token");
  } else if (option == "--push-password-file") {
    options.basic_password = read_secret(value, option, "password");
  } else if (option == "--push-spool") {
    if (value.empty()) bad_value(option, value, "expected a directory");
    options.spool_dir = std::string(value);
  } else if (option == "--push-no-inline") {
    options.inline_frames = false;
  } else {
    throw base::usage_error("unknown push option " + std::string(option));
  }
}

namespace {

// The destination of --push-format: Pyroscope and Parca need --push; OTLP resolves its endpoint.
void settle_format_destination(push_options& options, const environment& env) {
  if (options.format != push_format::otlp) {
    if (options.url.empty()) throw base::usage_error("--push-* options need --push URL");
    if (options.format == push_format::parca) {
      for (const label& pair : options.labels) {
        if (auto problem = parca_label_problem(pair.name))
          bad_value("--push-label", pair.name + "=" + pair.value, "a Parca label: " + *problem);
      }
    }
    return;
  }
  auto [endpoint, source] = otlp_profiles_endpoint(options.url, env);
  if (!endpoint.starts_with("http://") && !endpoint.starts_with("https://"))
    throw base::usage_error(source + ": expected an http:// or https:// URL, got " +
                            base::quoted(endpoint));
  options.url.clear();
  // Credentials out of the URL, control characters refused, naming where the endpoint came from.
  set_push_url(options, endpoint, source);
  if (endpoint.ends_with('/') && !options.url.ends_with('/')) options.url += '/';
  options.extra_headers = otlp_headers(env);
  options.resource_attributes = otlp_resource_attributes(options.labels, env);
}

}  // namespace

void settle_push_destination(push_options& options, const environment& env) {
  options.limits = ingest_limits_of(options.format);
  settle_format_destination(options, env);
  if (!options.basic_password.empty() && options.basic_user.empty())
    throw base::usage_error(
        "--push-password-file: a password needs its user: name it in the URL "
        "(http://USER@HOST/...)");
}

std::string push_endpoint(const push_options& options) {
  switch (options.format) {
    case push_format::pyroscope:
      return options.url + "/push.v1.PusherService/Push";
    case push_format::parca:
      return options.url + "/api/profiles/writeraw";
    case push_format::otlp:
      break;
  }
  return options.url;
}

std::vector<label> series_labels(const push_options& options, const push_window& window) {
  std::vector<label> labels{
      {"__name__", options.profile_name},
      {"service_name", options.service_name.empty() ? host_name() : options.service_name}};
  for (const label& pair : options.labels) add_or_replace(labels, pair);
  for (const label& pair : window.labels) add_or_replace(labels, pair);
  return labels;
}

std::string spool_destination(const push_options& options) {
  std::string tenant = options.tenant_id;
  for (const std::string& header : options.extra_headers) {
    constexpr std::string_view name = "x-scope-orgid:";
    bool same = header.size() > name.size() &&
                std::equal(name.begin(), name.end(), header.begin(), [](char a, char b) {
                  return a == std::tolower(static_cast<unsigned char>(b));
                });
    if (same) tenant = std::string(base::trimmed(std::string_view(header).substr(name.size())));
  }
  return std::string(format_name(options.format)) + " " + push_endpoint(options) +
         " tenant=" + tenant + " user=" + options.basic_user;
}

std::string host_name() {
  struct utsname names {};
  if (::uname(&names) != 0) return "unknown";
  return names.nodename;
}

}  // namespace arec::fleet
