#include "fleet/connect_error.hpp"

#include <array>
#include <cctype>
#include <cstddef>
#include <optional>

namespace arec::fleet {
namespace {

// A reader of the little JSON a Connect error body holds: one object whose string members are
// kept and whose other members (numbers, "details" arrays) are skipped.
class json_scanner {
 public:
  explicit json_scanner(std::string_view text) : text_(text) {}

  std::optional<connect_status> object() {
    connect_status status;
    if (!consume('{')) return std::nullopt;
    if (consume('}')) return status;
    do {
      auto key = string();
      if (!key || !consume(':')) return std::nullopt;
      skip_space();
      if (peek() == '"') {
        auto value = string();
        if (!value) return std::nullopt;
        if (*key == "code") status.code = *value;
        if (*key == "message") status.message = *value;
      } else if (!skip_value()) {
        return std::nullopt;
      }
    } while (consume(','));
    if (!consume('}')) return std::nullopt;
    return status;
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool consume(char c) {
    skip_space();
    if (peek() != c) return false;
    ++at_;
    return true;
  }

  // A JSON string; \uXXXX escapes outside ASCII become '?': a message is only shown.
  std::optional<std::string> string() {
    if (!consume('"')) return std::nullopt;
    std::string out;
    while (at_ < text_.size()) {
      char c = text_[at_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) return std::nullopt;
      char escaped = text_[at_++];
      static constexpr std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
      if (auto where = from.find(escaped); where != std::string_view::npos) {
        out += to[where];
      } else if (escaped == 'u' && at_ + 4 <= text_.size()) {
        unsigned code = std::stoul(std::string(text_.substr(at_, 4)), nullptr, 16);
        out += code < 0x80 ? static_cast<char>(code) : '?';
        at_ += 4;
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // Any value other than a string at the top level: nested objects and arrays by depth.
  bool skip_value() {
    int depth = 0;
    while (at_ < text_.size()) {
      char c = peek();
      if (c == '"') {
        if (!string()) return false;
        if (depth == 0) return true;
        continue;
      }
      if (depth == 0 && (c == ',' || c == '}')) return true;
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++at_;
      if (depth == 0 && (c == '}' || c == ']')) return true;
    }
    return false;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

// Connect's codes and their HTTP statuses: the verdict when a body carries no code.
bool retryable_status(long status) {
  return status == 408 || status == 429 || status >= 500;
}

}  // namespace

connect_status parse_connect_error(std::string_view body) {
  try {
    auto status = json_scanner{body}.object();
    return status ? *status : connect_status{};
  } catch (const std::exception&) {  // a \u escape without hex digits
    return {};
  }
}

bool retryable_code(std::string_view code) {
  // The server is overloaded, restarting or timed out: the same window may pass later.
  // "unknown" and "internal" are what a crashing or misconfigured proxy answers, too.
  static constexpr std::array<std::string_view, 7> retryable = {
      "unavailable", "resource_exhausted", "deadline_exceeded", "aborted", "canceled", "unknown",
      "internal"};
  for (std::string_view candidate : retryable) {
    if (code == candidate) return true;
  }
  return false;
}

push_outcome classify_response(long status, std::string_view body, std::string_view location) {
  if (status == 200) return {push_verdict::delivered, {}};
  if (status >= 300 && status < 400) {
    return {push_verdict::retry,
            "HTTP " + std::to_string(status) + ", redirected to " +
                (location.empty() ? std::string("(no Location)") : std::string(location)) +
                ": arec does not follow redirects (the token and the profiles would go where an "
                "answer says); give --push the URL the server expects"};
  }
  connect_status error = parse_connect_error(body);
  std::string reason = "HTTP " + std::to_string(status);
  if (!error.code.empty()) reason += ", " + error.code;
  if (!error.message.empty()) reason += ": " + error.message;
  bool retry = error.code.empty() ? retryable_status(status) : retryable_code(error.code);
  return {retry ? push_verdict::retry : push_verdict::drop, std::move(reason)};
}

}  // namespace arec::fleet
