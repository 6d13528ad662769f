// page_writer: the page holds the summary as text, the data as inert JSON, and a script the CSP
// allows by hash; hostile names stay text, and node's decode.js reads back what C++ wrote.
#include "report/page_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "base/valid_utf8.hpp"
#include "report/page_text.hpp"
#include "report/recording_facts.hpp"
#include "report_fixture.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::report {
namespace {

// Names a process or a file may choose: each must reach the page as written, as text.
const std::vector<std::string> hostile = {
    "</script><script>alert(1)</script>", "<!--", "a'b\"c\\d", "x\u2028y\u2029z",
    "bad\xff\xfe utf8", "Gr\xc3\xb6\xc3\x9f" "e.a", "Gr\xc3\xb6\xc3\x9f" "e.b", "&amp;", "",
    "<img src=x onerror=alert(1)>"};

page_model hostile_model() {
  fixture::sample_profile built;
  for (std::size_t i = 0; i < hostile.size(); ++i)
    built.add({"main", hostile[i]}, static_cast<std::int64_t>(10 + i), 1,
              i == 0 ? "</script>comm" : "worker");
  return build_page_model(built.result);
}

recording_facts hostile_facts() {
  recording_facts facts;
  facts.events = {"cpu-clock", "</script>"};
  facts.command_line = "arec -- ./app '</script><!--'";
  facts.host = "host<b>";
  facts.kernel = "6.1";
  facts.arec_version = "0.1.0";
  facts.samples = 100;
  facts.lost = 5;
  facts.inputs = {"perf.data"};
  return facts;
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

TEST(PageWriter, HostileNamesEndNoElementAndOpenNoComment) {
  std::string page = page_html(hostile_model(), hostile_facts());
  EXPECT_EQ(count(page, "</script"), 2u);  // the data block's and the script's own
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(count(page, "<!--"), 0u);
  EXPECT_EQ(count(page, "<img"), 0u);
  EXPECT_EQ(count(page, "<b>"), 0u);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_TRUE(base::is_valid_utf8(page));
}

TEST(PageWriter, TheCspAllowsNothingButItsOwnScriptAndStyle) {
  std::string page = page_html(hostile_model(), hostile_facts());
  auto csp = page.find("Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-");
  EXPECT_NE(csp, std::string::npos) << page.substr(0, 600);
  EXPECT_EQ(page.find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(page.find("http"), page.find("http-equiv"));  // no address anywhere
}

TEST(PageWriter, TheSummaryNamesTopFunctionsWithSharesAndWarnsOfLoss) {
  fixture::sample_profile built;
  built.add({"main", "hot"}, 75, 1);
  built.add({"main", "cold"}, 25, 1);
  recording_facts facts;
  facts.samples = 95;
  facts.lost = 5;
  std::string summary = page_summary_html(build_page_model(built.result), facts);
  EXPECT_NE(summary.find("\n 75.00%  75.00%  hot\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n  0.00% 100.00%  main\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("<tr class=\"warning\"><th>lost samples (warning)</th><td id=\"fact-lost\">5 (5.00% of all"),
            std::string::npos)
      << summary;
}

TEST(PageWriter, ShareTextHasTwoDecimals) {
  EXPECT_EQ(share_text(1, 3), "33.33%");
  EXPECT_EQ(share_text(0, 0), "0.00%");
  EXPECT_EQ(share_text(7, 7), "100.00%");
}

// The C++ model and what node's decode.js, run on the page as written, reads from it.
TEST(PageWriter, DecodeJsReadsBackEveryNameAndNode) {
  page_model model = hostile_model();
  arec::test::temp_dir dir;
  const std::string path = dir.file("page.html");
  std::ofstream(path) << page_html(model, hostile_facts());
  arec::test::command_result read = arec::test::run_command(
      {"node", std::string(AREC_TEST_SOURCE_DIR) + "/report/page/read_page.cjs", path});
  ASSERT_EQ(read.exit_code, 0) << read.describe() << read.out;
  // One line per string (sorted, as the page ships them), as JSON, then the node count and the
  // CSP check.
  std::vector<std::string> sorted;
  for (const std::string& name : model.strings) sorted.push_back(base::valid_utf8(name));
  std::sort(sorted.begin(), sorted.end());
  std::string expected;
  for (const std::string& name : sorted) {
    std::string line;
    append_json_string(line, name);
    expected += line + "\n";
  }
  expected += "nodes " + std::to_string(model.node_name.size()) + "\n";
  expected += "total " + std::to_string(model.total) + "\n";
  expected += "csp script hash ok\n";
  EXPECT_EQ(read.out, expected);
}

}  // namespace
}  // namespace arec::report
