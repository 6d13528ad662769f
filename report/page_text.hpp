// page_text: the two ways a string enters the report page. Names come from processes and files
// others control (a comm set with prctl, a symbol, a path), so none may end an element, open a
// comment or break out of a script: every string of the page goes through one of these.
#pragma once

#include <string>
#include <string_view>

namespace arec::report {

// Appends `text` as a JSON string literal (quotes included) that is also inert inside an HTML
// <script> element: '"', '\' and control characters escaped, '<', '>' and '&' as \u003c,
// \u003e and \u0026 (no "</script>" or "<!--" can form), U+2028 and U+2029 as \u2028 and
// \u2029 (line ends to older JavaScript), and bytes that are not UTF-8 as U+FFFD (the character
// itself: Go's json.Marshal writes \ufffd, which parses to the same text).
void append_json_string(std::string& out, std::string_view text);

// Appends `text` as the text of an HTML element: '<', '>', '&', '"' and '\'' as character
// references, bytes that are not UTF-8 as U+FFFD, control characters other than tab and line
// feed as U+FFFD too (HTML forbids them in text).
void append_html_text(std::string& out, std::string_view text);

}  // namespace arec::report
