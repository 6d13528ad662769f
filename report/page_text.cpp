#include "report/page_text.hpp"

#include "base/valid_utf8.hpp"

namespace arec::report {
namespace {

constexpr std::string_view replacement = "\xef\xbf\xbd";  // U+FFFD

void append_unicode_escape(std::string& out, unsigned code) {
  constexpr char digits[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += digits[(code >> shift) & 0xf];
}

// `text` as well-formed UTF-8; a copy is made only when it is not.
std::string_view repaired(std::string_view text, std::string& storage) {
  if (base::is_valid_utf8(text)) return text;
  storage = base::valid_utf8(text);
  return storage;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  std::string storage;
  text = repaired(text, storage);
  out += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '"' || byte == '\\') {
      out += '\\';
      out += text[i];
    } else if (byte < 0x20 || byte == '<' || byte == '>' || byte == '&') {
      append_unicode_escape(out, byte);
    } else if (byte == 0xe2 && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      append_unicode_escape(out, text[i + 2] == '\xa8' ? 0x2028 : 0x2029);
      i += 2;
    } else {
      out += text[i];
    }
  }
  out += '"';
}

void append_html_text(std::string& out, std::string_view text) {
  std::string storage;
  text = repaired(text, storage);
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((byte < 0x20 && c != '\t' && c != '\n') || byte == 0x7f)
          out += replacement;
        else
          out += c;
    }
  }
}

}  // namespace arec::report
