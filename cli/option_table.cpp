#include "cli/option_table.hpp"

#include <array>

namespace arec::cli {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(option_group::count_)> group_titles{
    "Target selection",
    "Event selection and sampling",
    "Files",
    "Output",
    "Buffers and threads",
    "Run control",
    "Fleet push (Pyroscope, OpenTelemetry, Parca)",
    "Help"};

constexpr std::size_t help_column = 32;
constexpr std::size_t help_width = 100;

[[noreturn]] void throw_missing_value(std::string_view spelled) {
  throw base::usage_error("option " + base::quoted(spelled) + " requires a value");
}

// Appends `text` word-wrapped to help_width, continuation lines indented to help_column.
void append_wrapped(std::string& out, std::string_view text) {
  std::size_t column = help_column;
  while (!text.empty()) {
    std::size_t room = help_width - column;
    std::size_t cut = text.size();
    if (cut > room) {
      cut = text.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0) cut = text.find(' ');
      if (cut == std::string_view::npos) cut = text.size();
    }
    out += text.substr(0, cut);
    out += '\n';
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!text.empty()) out.append(help_column, ' ');
  }
}

// "  -C, --cpu LIST", the left column of a help line.
std::string synopsis(const option_info& row) {
  std::string left = "  ";
  left += row.short_name ? std::string{'-', row.short_name} : "  ";
  if (!row.long_name.empty()) {
    left += row.short_name ? ", --" : "  --";
    left += row.long_name;
  }
  if (row.argument == argument_kind::required) {
    left += ' ';
    left += row.argument_name;
  } else if (row.argument == argument_kind::optional) {
    left += "[=";
    left += row.argument_name;
    left += ']';
  }
  return left;
}

void append_option_line(std::string& out, const option_info& row) {
  std::string left = synopsis(row);
  std::string help{row.help};
  if (!row.default_text.empty()) {
    help += " (default: ";
    help += row.default_text;
    help += ')';
  }
  out += left;
  if (left.size() + 2 > help_column) {
    out += '\n';
    out.append(help_column, ' ');
  } else {
    out.append(help_column - left.size(), ' ');
  }
  append_wrapped(out, help);
}

}  // namespace

void reject(const option_use& use, std::string_view problem) {
  std::string message{use.spelled};
  message += use.with_equals ? '=' : ' ';
  message += use.value;
  message += ": ";
  message += problem;
  throw base::usage_error(message);
}

// An exact long name, else the only one that starts with `name` (as perf accepts).
std::size_t find_long_option(std::span<const option_info> options, std::string_view name,
                             std::string_view arg) {
  std::size_t match = options.size();
  int prefix_matches = 0;
  std::string candidates;
  for (std::size_t i = 0; i < options.size(); ++i) {
    std::string_view long_name = options[i].long_name;
    if (long_name.empty()) continue;
    if (long_name == name) return i;
    if (!name.empty() && long_name.starts_with(name)) {
      match = i;
      ++prefix_matches;
      candidates += (candidates.empty() ? "--" : ", --") + std::string(long_name);
    }
  }
  if (prefix_matches == 1) return match;
  if (prefix_matches > 1)
    throw base::usage_error("ambiguous option " + base::quoted(arg) + " (could be " + candidates +
                            ")");
  throw base::usage_error("unknown option " + base::quoted(arg));
}

std::size_t find_short_option(std::span<const option_info> options, char name,
                              std::string_view arg) {
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i].short_name == name) return i;
  std::string message = "unknown option '-" + std::string(1, name) + "'";
  if (arg.size() > 2) message += " in " + base::quoted(arg);
  throw base::usage_error(message);
}

bool option_scanner::next(parsed_option& out) {
  if (short_pos_ > 0) {  // more letters of "-agC0,1"
    next_short(args_[next_ - 1], out);
    return true;
  }
  if (next_ == args_.size()) return false;
  std::string_view arg = args_[next_];
  if (arg == "--") {
    ++next_;
    return false;
  }
  if (arg.size() < 2 || arg[0] != '-') return false;  // the workload starts here
  ++next_;
  if (arg[1] == '-') return next_long(arg, out);
  short_pos_ = 1;
  next_short(arg, out);
  return true;
}

bool option_scanner::next_long(std::string_view arg, parsed_option& out) {
  std::string_view body = arg.substr(2);
  auto equals = body.find('=');
  out.index = find_long_option(options_, body.substr(0, equals), arg);
  const option_info& name = options_[out.index];
  out.spelled = "--" + std::string(name.long_name);
  out.use = option_use{.spelled = out.spelled};
  if (equals != std::string_view::npos) {
    if (name.argument == argument_kind::none)
      throw base::usage_error("option " + base::quoted(out.spelled) + " takes no value");
    out.use.value = body.substr(equals + 1);
    out.use.with_equals = true;
  } else if (name.argument == argument_kind::required) {
    out.use.value = take_value(out.spelled);
  }
  return true;
}

// One letter of a short-option bundle; a letter that takes a value ends the bundle.
void option_scanner::next_short(std::string_view arg, parsed_option& out) {
  out.index = find_short_option(options_, arg[short_pos_], arg);
  const option_info& name = options_[out.index];
  out.spelled = std::string{'-', name.short_name};
  out.use = option_use{.spelled = out.spelled};
  ++short_pos_;
  if (name.argument != argument_kind::none) {
    out.use.value = arg.substr(short_pos_);
    short_pos_ = arg.size();
    if (out.use.value.empty() && name.argument == argument_kind::required)
      out.use.value = take_value(out.spelled);
  }
  if (short_pos_ >= arg.size()) short_pos_ = 0;
}

std::string_view option_scanner::take_value(std::string_view spelled) {
  if (next_ == args_.size()) throw_missing_value(spelled);
  return args_[next_++];
}

void append_option_help(std::string& out, std::span<const option_info> options) {
  for (std::size_t g = 0; g < group_titles.size(); ++g) {
    bool titled = false;
    for (const option_info& row : options) {
      if (static_cast<std::size_t>(row.group) != g) continue;
      if (!titled) {
        out += '\n';
        out += group_titles[g];
        out += ":\n";
        titled = true;
      }
      append_option_line(out, row);
    }
  }
}

std::vector<std::string> option_names(std::span<const option_info> options) {
  std::vector<std::string> spelled;
  for (const option_info& name : options) {
    if (name.short_name) spelled.push_back(std::string{'-', name.short_name});
    if (!name.long_name.empty()) spelled.push_back("--" + std::string(name.long_name));
  }
  return spelled;
}

}  // namespace arec::cli
