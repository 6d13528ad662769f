// option_table: the one command-line parser and help-text generator of every arec command.
// A command is a table of option_spec rows over its own State; the same table drives parsing,
// --help and the list of names the manual page and bash completion are checked against.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/usage_error.hpp"

namespace arec::cli {

enum class argument_kind {
  none,      // a flag
  required,  // "-C LIST", "-CLIST", "--cpu LIST", "--cpu=LIST"
  optional,  // only attached: "--threads=SPEC", "--threads"
};

// The groups of the help text, in the order printed.
enum class option_group { target, events, files, output, buffers, control, push, help, count_ };

// One option as the user spelled it, for the handler and its error messages.
struct option_use {
  std::string_view spelled;  // "-C" or "--cpu", whichever was used
  std::string_view value;    // empty for flags and a bare optional value
  bool with_equals = false;  // "--cpu=0-3" rather than "--cpu 0-3"
};

// Throws usage_error "SPELLED VALUE: PROBLEM", the form of every bad-value message.
[[noreturn]] void reject(const option_use& use, std::string_view problem);

// What a command's parse state must offer: finished() stops parsing (--help, --version).
template <typename State>
concept option_state = requires(const State& state) {
  { state.finished() } -> std::convertible_to<bool>;
};

// What the parser and the help text know of an option: everything but its handler.
struct option_info {
  std::string_view long_name;  // without "--"; empty when there is none
  char short_name;             // 0 when there is none
  argument_kind argument;
  std::string_view argument_name;  // "LIST"
  std::string_view help;
  std::string_view default_text;  // empty when there is nothing to say
  option_group group;
};

// A row of a command's table: {"cpu", 'C', required, "LIST", help, default, group, handler}.
template <typename State>
struct option_spec {
  option_info info;
  void (*apply)(State&, const option_use&);
};

// The index of the option named `name` (a long name or a unique prefix of one); `arg` is the
// whole argument, for the message. Throws usage_error for an unknown or ambiguous name.
std::size_t find_long_option(std::span<const option_info> options, std::string_view name,
                             std::string_view arg);
// The index of the option with short name `name`; throws usage_error naming `arg` otherwise.
std::size_t find_short_option(std::span<const option_info> options, char name,
                              std::string_view arg);

// One option as found in the arguments: its index in the table and how it was used.
struct parsed_option {
  std::size_t index = 0;
  std::string spelled;  // owns the "--name" or "-x" that use.spelled points into
  option_use use;
};

// Walks the arguments one option at a time; a bundle of short options ("-agC0,1") yields one
// option per letter, and a letter that takes a value ends the bundle.
class option_scanner {
 public:
  option_scanner(std::span<const char* const> args, std::span<const option_info> options)
      : args_(args), options_(options) {}

  // Fills `out` with the next option; false once the options have ended ("--" or the first
  // argument that is not an option: the workload).
  bool next(parsed_option& out);
  // The index of the first argument after the options.
  std::size_t rest() const { return next_; }

 private:
  bool next_long(std::string_view arg, parsed_option& out);
  void next_short(std::string_view arg, parsed_option& out);
  std::string_view take_value(std::string_view spelled);

  std::span<const char* const> args_;
  std::span<const option_info> options_;
  std::size_t next_ = 0;       // the next argument to read
  std::size_t short_pos_ = 0;  // the next letter of args_[next_ - 1] while in a bundle; else 0
};

// Appends the grouped option lines of a help text.
void append_option_help(std::string& out, std::span<const option_info> options);

// Every option name, spelled with dashes ("-a", "--all-cpus").
std::vector<std::string> option_names(std::span<const option_info> options);

// The table without its handlers, for the parts written once for every command.
template <typename State, std::size_t N>
std::array<option_info, N> infos_of(const std::array<option_spec<State>, N>& table) {
  std::array<option_info, N> infos{};
  for (std::size_t i = 0; i < N; ++i) infos[i] = table[i].info;
  return infos;
}

// Applies the options in `args` to `state` and returns the index of the first argument after
// them: the workload, or args.size(). Stops early once a handler finishes the state.
template <option_state State, std::size_t N>
std::size_t parse_options(std::span<const char* const> args,
                          const std::array<option_spec<State>, N>& table, State& state) {
  const std::array<option_info, N> infos = infos_of(table);
  option_scanner scanner(args, infos);
  parsed_option option;
  while (!state.finished() && scanner.next(option)) table[option.index].apply(state, option.use);
  return scanner.rest();
}

template <typename State, std::size_t N>
void append_option_help(std::string& out, const std::array<option_spec<State>, N>& table) {
  const std::array<option_info, N> infos = infos_of(table);
  append_option_help(out, std::span<const option_info>(infos));
}

template <typename State, std::size_t N>
std::vector<std::string> option_names(const std::array<option_spec<State>, N>& table) {
  const std::array<option_info, N> infos = infos_of(table);
  return option_names(std::span<const option_info>(infos));
}

}  // namespace arec::cli
