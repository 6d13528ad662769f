#include "cli/convert_command_line.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "base/usage_error.hpp"

using namespace arec::cli;
using arec::base::usage_error;
using arec::convert::convert_options;

namespace {

std::variant<convert_options, help_request> parse_convert(std::initializer_list<const char*> args) {
  return parse_convert_command_line(std::span<const char* const>(args.begin(), args.size()));
}

// The usage_error message for `args`, or a test failure when they are accepted.
std::string convert_error_of(std::initializer_list<const char*> args) {
  try {
    parse_convert(args);
  } catch (const usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted the arguments";
  return {};
}

}  // namespace

TEST(ConvertOptions, Defaults) {
  auto result = parse_convert({});
  ASSERT_TRUE(std::holds_alternative<convert_options>(result));
  const convert_options& options = std::get<convert_options>(result);
  EXPECT_EQ(options.input, "perf.data");
  EXPECT_EQ(options.output, "perf.converted.data");
  EXPECT_FALSE(options.keep_compressed);
  EXPECT_EQ(options.compression_level, 0);
  EXPECT_FALSE(options.salvage);
}

TEST(ConvertOptions, EveryOptionIsParsed) {
  auto result = parse_convert({"-i", "in.data", "--output=out.data", "--keep-compressed",
                               "--compression-level", "9", "--salvage", "-qvv"});
  const convert_options& options = std::get<convert_options>(result);
  EXPECT_EQ(options.input, "in.data");
  EXPECT_EQ(options.output, "out.data");
  EXPECT_TRUE(options.keep_compressed);
  EXPECT_EQ(options.compression_level, 9);
  EXPECT_TRUE(options.salvage);
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(options.verbose, 2);
  EXPECT_EQ(std::get<convert_options>(parse_convert({"-z"})).compression_level, 1);
}

TEST(ConvertOptions, HelpIsGenerated) {
  auto result = parse_convert({"--help"});
  ASSERT_TRUE(std::holds_alternative<help_request>(result));
  const std::string& text = std::get<help_request>(result).text;
  EXPECT_EQ(text, convert_help_text());
  for (const char* name : {"--input", "--output", "--keep-compressed", "--compression-level",
                           "--salvage", "--quiet", "--verbose", "(default: perf.converted.data)"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
}

TEST(ConvertOptions, MistakesAreNamed) {
  EXPECT_EQ(convert_error_of({"in.data"}),
            "unexpected argument 'in.data' (name files with -i and -o)");
  EXPECT_EQ(convert_error_of({"--compression-level=30"}),
            "--compression-level=30: the compression level must be a whole number from 1 to 22");
  EXPECT_EQ(convert_error_of({"-a"}), "unknown option '-a'");
  EXPECT_EQ(convert_error_of({"-i"}), "option '-i' requires a value");
}
