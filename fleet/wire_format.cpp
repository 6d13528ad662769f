#include "fleet/wire_format.hpp"

#include <algorithm>
#include <cstdint>

#include "base/valid_utf8.hpp"
#include "fleet/proto/otlp_response.pb.h"
#include "fleet/proto/push.pb.h"
#include "fleet/proto/spool.pb.h"

namespace arec::fleet {
namespace {

// Label pairs are proto3 strings: one that is not UTF-8 (a --push-label from a non-UTF-8
// terminal) would make the whole request unreadable, so it goes as base::valid_utf8 repairs it.
template <typename Pairs>
void copy_labels(std::span<const label> from, Pairs& to) {
  for (const label& pair : from) {
    types::v1::LabelPair* added = to.Add();
    added->set_name(base::valid_utf8(pair.name));
    added->set_value(base::valid_utf8(pair.value));
  }
}

// A JSON string literal: quotes, backslashes and control characters escaped, and UTF-8 as JSON
// must be (base::valid_utf8).
void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (char c : base::valid_utf8(text)) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

// Standard base64 with padding: how protobuf's JSON form writes a bytes field.
void append_base64(std::string& out, std::string_view data) {
  static constexpr char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    std::uint32_t bits = static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16 |
                         static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8 |
                         static_cast<unsigned char>(data[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += digits[(bits >> shift) & 63];
  }
  std::size_t left = data.size() - i;
  if (left == 0) return;
  std::uint32_t bits = static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16;
  if (left == 2) bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8;
  out += digits[(bits >> 18) & 63];
  out += digits[(bits >> 12) & 63];
  out += left == 2 ? digits[(bits >> 6) & 63] : '=';
  out += '=';
}

// Text fit for a message: printable ASCII, the first line, at most 300 characters.
std::string printable_text(std::string_view body) {
  body = body.substr(0, std::min(body.find('\n'), std::size_t{300}));
  while (!body.empty() && (body.back() == '\r' || body.back() == ' ')) body.remove_suffix(1);
  bool printable = std::all_of(body.begin(), body.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  return printable ? std::string(body) : std::string();
}

}  // namespace

std::string encode_parca_write_raw(std::span<const label> labels, const push_window& window) {
  std::string out = R"({"series":[{"labels":{"labels":[)";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out += i == 0 ? R"({"name":)" : R"(,{"name":)";
    append_json_string(out, labels[i].name);
    out += R"(,"value":)";
    append_json_string(out, labels[i].value);
    out += '}';
  }
  out += R"(]},"samples":[{"rawProfile":")";
  append_base64(out, window.profile);
  out += R"("}]}]})";
  return out;
}

std::string otlp_partial_success(std::string_view body) {
  otlp::ExportResponse response;
  if (body.empty() || !response.ParseFromArray(body.data(), static_cast<int>(body.size())) ||
      !response.has_partial_success())
    return {};
  const otlp::PartialSuccess& partial = response.partial_success();
  if (partial.rejected_profiles() == 0 && partial.error_message().empty()) return {};
  std::string text = std::to_string(partial.rejected_profiles()) + " profile(s) rejected";
  if (std::string message = printable_text(partial.error_message()); !message.empty())
    text += ": " + message;
  return text;
}

std::string otlp_error_message(std::string_view body) {
  otlp::Status status;
  if (!body.empty() && status.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    if (std::string message = printable_text(status.message()); !message.empty()) return message;
  }
  return printable_text(body);
}

std::string encode_push_request(std::span<const label> labels, const push_window& window) {
  push::v1::PushRequest request;
  push::v1::RawProfileSeries* series = request.add_series();
  copy_labels(labels, *series->mutable_labels());
  series->add_samples()->set_raw_profile(window.profile);
  return request.SerializeAsString();
}

std::string encode_spooled_window(const push_window& window) {
  arec::fleet::spool::SpooledWindow spooled;
  spooled.set_start_ns(window.start_ns);
  spooled.set_end_ns(window.end_ns);
  copy_labels(window.labels, *spooled.mutable_labels());
  spooled.set_profile(window.profile);
  spooled.set_uncompressed_size(window.uncompressed_size);
  spooled.set_payload(static_cast<std::uint32_t>(window.payload));
  return spooled.SerializeAsString();
}

std::optional<push_window> decode_spooled_window(std::string_view bytes) {
  arec::fleet::spool::SpooledWindow spooled;
  if (!spooled.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  if (spooled.profile().empty()) return std::nullopt;  // a file cut short or not ours
  if (spooled.payload() > static_cast<std::uint32_t>(payload_kind::otlp)) return std::nullopt;
  push_window window;
  window.start_ns = spooled.start_ns();
  window.end_ns = spooled.end_ns();
  for (const auto& pair : spooled.labels()) window.labels.push_back({pair.name(), pair.value()});
  window.profile = spooled.profile();
  window.uncompressed_size = spooled.uncompressed_size();
  window.payload = static_cast<payload_kind>(spooled.payload());
  return window;
}

}  // namespace arec::fleet
