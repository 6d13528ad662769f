// The manual page, --help and the bash completion name exactly the options the parsers accept.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/usage_error.hpp"
#include "cli/archive_command_line.hpp"
#include "cli/convert_command_line.hpp"
#include "cli/export_command_line.hpp"
#include "cli/record_command_line.hpp"
#include "cli/report_command_line.hpp"

namespace arec::cli {
namespace {

using name_set = std::set<std::string>;

std::string read_source_file(const std::string& relative) {
  std::string path = std::string(AREC_TEST_SOURCE_DIR) + "/../" + relative;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

name_set as_set(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

// Option names in `text`: "-a", "--all-cpus" (not the "-3" of "0-3" nor a word's hyphen).
name_set option_names_in(const std::string& text) {
  static const std::regex option(R"((^|[\s,\[(])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])(?=$|[\s,=\[]))");
  name_set names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), option);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[2]);
  return names;
}

// The option lines of a --help text: those of the groups, before the examples.
std::string help_option_lines(const std::string& help) {
  std::string lines;
  std::istringstream in(help.substr(0, help.find("\nExamples:")));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("  -") || line.starts_with("      --")) lines += line.substr(0, 32) + "\n";
  return lines;
}

// The names on the tag line after each .TP in the man page section `title`, "\-" as "-".
name_set manual_option_names(const std::string& manual, const std::string& title) {
  std::size_t start = manual.find("\n.SH " + title + "\n");
  EXPECT_NE(start, std::string::npos) << title;
  if (start == std::string::npos) return {};
  std::size_t end = manual.find("\n.SH ", start + 1);
  std::istringstream in(manual.substr(start, end - start));
  std::string tags;
  bool tag_next = false;
  for (std::string line; std::getline(in, line);) {
    if (tag_next) {
      for (std::size_t at = line.find("\\-"); at != std::string::npos; at = line.find("\\-", at))
        line.erase(at, 1);
      std::erase(line, '"');
      tags += line.substr(line.find(' ') + 1) + "\n";
    }
    tag_next = line == ".TP";
  }
  return option_names_in(tags);
}

// The words of the shell variable `name='...'` in the completion script.
name_set completion_names(const std::string& script, const std::string& name) {
  std::size_t start = script.find(name + "='");
  EXPECT_NE(start, std::string::npos) << name;
  if (start == std::string::npos) return {};
  start += name.size() + 2;
  return option_names_in(script.substr(start, script.find('\'', start) - start));
}

TEST(Manual, HelpListsExactlyTheOptionsTheRecordParserAccepts) {
  EXPECT_EQ(option_names_in(help_option_lines(record_help_text())), as_set(record_option_names()));
}

TEST(Manual, HelpListsExactlyTheOptionsTheConvertParserAccepts) {
  EXPECT_EQ(option_names_in(help_option_lines(convert_help_text())),
            as_set(convert_option_names()));
  for (const std::string& name : convert_option_names()) {
    std::vector<const char*> args{name.c_str(), "1"};
    try {
      parse_convert_command_line(args);
    } catch (const base::usage_error& error) {
      EXPECT_EQ(std::string(error.what()).find("unknown option"), std::string::npos) << name;
    }
  }
}

TEST(Manual, HelpListsExactlyTheOptionsTheArchiveParserAccepts) {
  EXPECT_EQ(option_names_in(help_option_lines(archive_help_text())),
            as_set(archive_option_names()));
}

TEST(Manual, PageListsTheSameArchiveOptionsAsHelp) {
  EXPECT_EQ(manual_option_names(read_source_file("docs/arec.1"), "ARCHIVE OPTIONS"),
            as_set(archive_option_names()));
}

TEST(Manual, HelpListsExactlyTheOptionsTheExportParserAccepts) {
  EXPECT_EQ(option_names_in(help_option_lines(export_help_text())), as_set(export_option_names()));
  for (const std::string& name : export_option_names()) {
    std::vector<const char*> args{name.c_str(), "pprof"};
    try {
      parse_export_command_line(args);
    } catch (const base::usage_error& error) {
      EXPECT_EQ(std::string(error.what()).find("unknown option"), std::string::npos) << name;
    }
  }
}

TEST(Manual, PageListsTheSameExportOptionsAsHelp) {
  EXPECT_EQ(manual_option_names(read_source_file("docs/arec.1"), "EXPORT OPTIONS"),
            as_set(export_option_names()));
}

TEST(Manual, HelpListsExactlyTheOptionsTheReportParserAccepts) {
  EXPECT_EQ(option_names_in(help_option_lines(report_help_text())), as_set(report_option_names()));
}

TEST(Manual, PageListsTheSameReportOptionsAsHelp) {
  EXPECT_EQ(manual_option_names(read_source_file("docs/arec.1"), "REPORT OPTIONS"),
            as_set(report_option_names()));
}

TEST(Manual, PageListsTheSameRecordOptionsAsHelp) {
  EXPECT_EQ(manual_option_names(read_source_file("docs/arec.1"), "RECORD OPTIONS"),
            as_set(record_option_names()));
}

TEST(Manual, PageListsTheSameConvertOptionsAsHelp) {
  EXPECT_EQ(manual_option_names(read_source_file("docs/arec.1"), "CONVERT OPTIONS"),
            as_set(convert_option_names()));
}

TEST(Manual, PageShowsTheDefaultsHelpShows) {
  std::string manual = read_source_file("docs/arec.1");
  for (const char* text :
       {"(default: 4000 Hz)", "(default: perf.data)", "(default: perf.converted.data)",
        "(default: 128 pages, 512K)", "arec \\-\\-threads=core \\-a",
        "arec \\-\\-threads=0\\-3/3:4\\-7/4 \\-\\- ./app"})
    EXPECT_NE(manual.find(text), std::string::npos) << text;
  // Help wraps its lines: compare with every run of blanks as one space.
  std::string help = std::regex_replace(record_help_text(), std::regex(R"(\s+)"), " ");
  EXPECT_NE(help.find("(default: 128 pages, 512K)"), std::string::npos);
}

TEST(Manual, BashCompletionOffersExactlyTheAcceptedOptions) {
  std::string script = read_source_file("completion/arec.bash");
  EXPECT_EQ(completion_names(script, "_arec_record_options"), as_set(record_option_names()));
  EXPECT_EQ(completion_names(script, "_arec_convert_options"), as_set(convert_option_names()));
  EXPECT_EQ(completion_names(script, "_arec_archive_options"), as_set(archive_option_names()));
  EXPECT_EQ(completion_names(script, "_arec_export_options"), as_set(export_option_names()));
  EXPECT_EQ(completion_names(script, "_arec_report_options"), as_set(report_option_names()));
  EXPECT_NE(script.find("complete -F _arec arec"), std::string::npos);
}

}  // namespace
}  // namespace arec::cli
