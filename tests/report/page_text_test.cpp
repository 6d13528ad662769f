// page_text: every hostile name stays text in the JSON block and in the summary.
#include "report/page_text.hpp"

#include <gtest/gtest.h>

namespace arec::report {
namespace {

std::string json(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

std::string html(std::string_view text) {
  std::string out;
  append_html_text(out, text);
  return out;
}

TEST(PageText, JsonEscapesWhatCouldEndTheScriptElement) {
  // Go's json.Marshal gives "\u003c/script\u003e\ufffd": the same text once parsed.
  EXPECT_EQ(json("</script>\xff"), "\"\\u003c/script\\u003e\xef\xbf\xbd\"");
  EXPECT_EQ(json("<!--"), "\"\\u003c!--\"");
  EXPECT_EQ(json("a&b"), "\"a\\u0026b\"");
}

TEST(PageText, JsonEscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(json(std::string_view("\n\t\x01\0", 4)), "\"\\u000a\\u0009\\u0001\\u0000\"");
  EXPECT_EQ(json("'"), "\"'\"");
  EXPECT_EQ(json(""), "\"\"");
}

TEST(PageText, JsonEscapesLineAndParagraphSeparators) {
  EXPECT_EQ(json("a\u2028b\u2029c"), "\"a\\u2028b\\u2029c\"");
  // Other characters of that block are left as they are.
  EXPECT_EQ(json("\u2027\u202a"), "\"\u2027\u202a\"");
}

TEST(PageText, JsonReplacesInvalidUtf8AndKeepsValidText) {
  EXPECT_EQ(json("Gr\xc3\xb6\xc3\x9f" "e"), "\"Größe\"");
  EXPECT_EQ(json("a\xc3"), "\"a\xef\xbf\xbd\"");
  EXPECT_EQ(json("\xe2\x80"), "\"\xef\xbf\xbd\"");  // a cut U+2028 is no separator
}

TEST(PageText, HtmlTextHoldsNoMarkup) {
  EXPECT_EQ(html("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(html("a&b \"c\" 'd'"), "a&amp;b &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(html("</script><!--"), "&lt;/script&gt;&lt;!--");
  EXPECT_EQ(html("x\xff"), "x\xef\xbf\xbd");
  EXPECT_EQ(html("a\x01\tb\n"), "a\xef\xbf\xbd\tb\n");
}

}  // namespace
}  // namespace arec::report
