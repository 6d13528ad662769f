// The generic option parser and help generator, on a small table of its own: what every
// command's table gets without writing it again.
#include "cli/option_table.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace arec::cli {
namespace {

// Each handler logs "SPELLED=VALUE", so a test sees the order and the spelling of what ran.
struct toy_state {
  std::vector<std::string> log;
  bool stop = false;
  bool finished() const { return stop; }
};

void log_use(toy_state& s, const option_use& use) {
  s.log.push_back(std::string(use.spelled) + (use.with_equals ? "=" : " ") +
                  std::string(use.value));
}

using toy_spec = option_spec<toy_state>;
using enum argument_kind;
using enum option_group;

constexpr std::array toy_table{
    toy_spec{"all", 'a', none, "", "a flag", "", target, log_use},
    toy_spec{"", 'g', none, "", "a short-only flag", "", events, log_use},
    toy_spec{"cpu", 'C', required, "LIST", "a value", "every cpu", target, log_use},
    toy_spec{"cpus-too", 0, none, "", "shares a prefix with --cpu", "", target, log_use},
    toy_spec{"threads", 0, optional, "SPEC", "an optional value", "", buffers, log_use},
    toy_spec{"help", 'h', none, "", "stops the parsing", "", help,
             [](toy_state& s, const option_use&) { s.stop = true; }},
};

struct parse_result {
  std::vector<std::string> log;
  std::size_t rest;
};

parse_result parse(std::initializer_list<const char*> args) {
  toy_state state;
  std::size_t rest =
      parse_options(std::span<const char* const>(args.begin(), args.size()), toy_table, state);
  return {state.log, rest};
}

std::string error_of(std::initializer_list<const char*> args) {
  try {
    parse(args);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted the arguments";
  return {};
}

using strings = std::vector<std::string>;

TEST(OptionTable, BundledShortOptionsRunInOrderAndAValueEndsTheBundle) {
  parse_result r = parse({"-agC0,1", "-gC", "2", "rest"});
  EXPECT_EQ(r.log, (strings{"-a ", "-g ", "-C 0,1", "-g ", "-C 2"}));
  EXPECT_EQ(r.rest, 3u);
}

TEST(OptionTable, LongValuesAttachedOrSeparate) {
  parse_result r = parse({"--cpu=1", "--cpu", "2", "--threads", "--threads=core"});
  EXPECT_EQ(r.log, (strings{"--cpu=1", "--cpu 2", "--threads ", "--threads=core"}));
  EXPECT_EQ(r.rest, 5u);
}

TEST(OptionTable, ExactNameWinsOverPrefixesAndUniquePrefixesAreExpanded) {
  EXPECT_EQ(parse({"--cpu", "3"}).log, strings{"--cpu 3"});
  EXPECT_EQ(parse({"--al"}).log, strings{"--all "});
  EXPECT_EQ(parse({"--cpus"}).log, strings{"--cpus-too "});
  EXPECT_EQ(error_of({"--cp"}), "ambiguous option '--cp' (could be --cpu, --cpus-too)");
}

TEST(OptionTable, OptionsEndAtDoubleDashOrTheFirstOperand) {
  EXPECT_EQ(parse({"-a", "--", "-g"}).rest, 2u);
  EXPECT_EQ(parse({"-a", "cmd", "-g"}).rest, 1u);
  EXPECT_EQ(parse({"-a", "-", "-g"}).rest, 1u);  // a lone dash is an operand, as in perf
  EXPECT_EQ(parse({}).rest, 0u);
}

TEST(OptionTable, AFinishingOptionStopsEvenInsideABundle) {
  parse_result r = parse({"-ahX", "--nonsense"});
  EXPECT_EQ(r.log, strings{"-a "});
}

TEST(OptionTable, MistakesAreNamed) {
  EXPECT_EQ(error_of({"--nope"}), "unknown option '--nope'");
  EXPECT_EQ(error_of({"-aX"}), "unknown option '-X' in '-aX'");
  EXPECT_EQ(error_of({"-X"}), "unknown option '-X'");
  EXPECT_EQ(error_of({"-C"}), "option '-C' requires a value");
  EXPECT_EQ(error_of({"--cpu"}), "option '--cpu' requires a value");
  EXPECT_EQ(error_of({"--all=1"}), "option '--all' takes no value");
}

TEST(OptionTable, RejectNamesTheOptionAsSpelled) {
  try {
    reject(option_use{.spelled = "--cpu", .value = "x", .with_equals = true}, "bad");
    FAIL() << "reject returned";
  } catch (const base::usage_error& error) {
    EXPECT_STREQ(error.what(), "--cpu=x: bad");
  }
}

TEST(OptionTable, HelpGroupsInTableGroupOrderWithDefaults) {
  std::string help;
  append_option_help(help, toy_table);
  EXPECT_EQ(help,
            "\nTarget selection:\n"
            "  -a, --all                     a flag\n"
            "  -C, --cpu LIST                a value (default: every cpu)\n"
            "      --cpus-too                shares a prefix with --cpu\n"
            "\nEvent selection and sampling:\n"
            "  -g                            a short-only flag\n"
            "\nBuffers and threads:\n"
            "      --threads[=SPEC]          an optional value\n"
            "\nHelp:\n"
            "  -h, --help                    stops the parsing\n");
}

TEST(OptionTable, NamesListEverySpelling) {
  EXPECT_EQ(option_names(toy_table), (strings{"-a", "--all", "-g", "-C", "--cpu", "--cpus-too",
                                              "--threads", "-h", "--help"}));
}

}  // namespace
}  // namespace arec::cli
