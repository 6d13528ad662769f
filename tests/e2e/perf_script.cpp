#include "perf_script.hpp"

#include <charconv>

#include "base/trimmed.hpp"

namespace arec::e2e {

namespace {

// "5632fa09b1b5 hot_function (/tmp/hot_loop)" -> {0x5632fa09b1b5, hot_function, /tmp/hot_loop}.
// Symbols may hold spaces (C++ signatures), so the DSO is the last parenthesised group.
bool parse_frame(std::string_view text, script_frame& frame) {
  text = base::trimmed(text);
  auto space = text.find(' ');
  if (space == std::string_view::npos || !text.ends_with(')')) return false;
  auto ip = text.substr(0, space);
  if (std::from_chars(ip.data(), ip.data() + ip.size(), frame.ip, 16).ptr != ip.data() + ip.size())
    return false;
  auto open = text.rfind(" (");
  if (open == std::string_view::npos || open < space) return false;
  frame.symbol = base::trimmed(text.substr(space + 1, open - space - 1));
  frame.dso = text.substr(open + 2, text.size() - open - 3);
  return true;
}

bool parse_tid(std::string_view text, int& tid) {
  auto parsed = std::from_chars(text.data(), text.data() + text.size(), tid);
  return !text.empty() && parsed.ec == std::errc{} && parsed.ptr == text.data() + text.size();
}

// Without call chains perf prints "%16s %5d" and the frame on the same line; a comm has at
// most 15 characters, so it fills exactly the first 16 columns and may contain spaces.
bool parse_one_line_sample(std::string_view line, script_sample& sample) {
  if (line.size() < 17) return false;
  sample.comm = base::trimmed(line.substr(0, 16));
  std::string_view rest = base::trimmed(line.substr(16));
  auto end = rest.find_first_of(" \t");
  if (end == std::string_view::npos || !parse_tid(rest.substr(0, end), sample.tid)) return false;
  script_frame frame;
  if (!parse_frame(rest.substr(end), frame)) return false;
  sample.frames.push_back(std::move(frame));
  return true;
}

// With call chains perf prints "%s %5d " unpadded, and the frames on the following lines.
bool parse_chain_header(std::string_view line, script_sample& sample) {
  line = base::trimmed(line);
  auto space = line.find_last_of(" \t");
  if (space == std::string_view::npos || !parse_tid(line.substr(space + 1), sample.tid)) {
    return false;
  }
  sample.comm = base::trimmed(line.substr(0, space));
  return true;
}

}  // namespace

std::vector<script_sample> parse_perf_script(std::string_view text) {
  std::vector<script_sample> samples;
  bool in_chain = false;  // the last header opened a sample whose frames follow
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (base::trimmed(line).empty()) {
      in_chain = false;
      continue;
    }
    if (line.starts_with('\t')) {
      script_frame frame;
      if (in_chain && parse_frame(line, frame)) samples.back().frames.push_back(std::move(frame));
      continue;
    }
    // A one-line sample ends with its DSO in parentheses; a chain header ends with the tid.
    script_sample sample;
    bool one_line = base::trimmed(line).ends_with(')');
    bool parsed = one_line ? parse_one_line_sample(line, sample) : parse_chain_header(line, sample);
    in_chain = parsed && !one_line;
    if (parsed) samples.push_back(std::move(sample));
  }
  return samples;
}

perf_script run_perf_script(const std::string& data_file) {
  perf_script script;
  script.run = test::run_command({"perf", "script", "-i", data_file, "-F", "comm,tid,ip,sym,dso"});
  script.samples = parse_perf_script(script.run.out);
  return script;
}

std::string_view file_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool sampled_in(const script_sample& sample, std::string_view symbol,
                std::string_view dso_file_name) {
  return !sample.frames.empty() && sample.frames[0].symbol == symbol &&
         file_name(sample.frames[0].dso) == dso_file_name;
}

std::string_view excerpt(std::string_view text, std::size_t limit) {
  return text.substr(0, limit);
}

}  // namespace arec::e2e
