#include "record/events/event_list.hpp"

#include <span>
#include <string>

#include "base/usage_error.hpp"

namespace arec::record {
namespace {

[[noreturn]] void parser_error(std::string_view text) {
  throw base::usage_error("event syntax error: '" + std::string(text) + "': parser error");
}

// Where the item starting at `start` ends: the next comma outside "pmu/terms/" and "{...}".
std::size_t item_end(std::string_view text, std::size_t start) {
  bool in_terms = false;
  int depth = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/') in_terms = !in_terms;
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c == ',' && !in_terms && depth == 0) return i;
  }
  return text.size();
}

// The events of a comma-separated list without groups, wildcards expanded.
std::vector<event_spec> parse_plain_list(std::string_view list, std::string_view whole) {
  std::vector<event_spec> events;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = item_end(list, start);
    std::string_view item = list.substr(start, end - start);
    if (item.empty()) parser_error(whole);
    for (event_spec& event : parse_event_specs(item)) events.push_back(std::move(event));
    if (end == list.size()) return events;
    start = end + 1;
  }
}

// Makes `events` one group led by the first; `name` is the group's ("" when anonymous).
void make_group(std::span<event_spec> events, const std::string& name) {
  if (events.size() < 2) return;
  for (event_spec& event : events) {
    event.group_size = 0;
    event.group_member = true;
    event.group_name.clear();
  }
  events.front().group_member = false;
  events.front().group_size = static_cast<std::uint32_t>(events.size());
  events.front().group_name = name;
}

// "name{a,b}:mods" (name and modifiers optional).
std::vector<event_spec> parse_group(std::string_view item, std::size_t brace) {
  std::string_view name = item.substr(0, brace);
  auto close = item.rfind('}');
  if (close == std::string_view::npos || close < brace) parser_error(item);
  std::string_view inner = item.substr(brace + 1, close - brace - 1);
  if (inner.find_first_of("{}") != std::string_view::npos) parser_error(item);
  if (name.find_first_of("/:,") != std::string_view::npos) parser_error(item);
  std::vector<event_spec> members = parse_plain_list(inner, item);
  std::string_view after = item.substr(close + 1);
  if (!after.empty()) {
    if (after.front() != ':') parser_error(item);
    for (event_spec& member : members) apply_modifiers(member, after.substr(1), item, true);
  }
  make_group(members, std::string(name));
  return members;
}

}  // namespace

std::vector<event_spec> parse_event_list(std::string_view text) {
  std::vector<event_spec> events;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = item_end(text, start);
    std::string_view item = text.substr(start, end - start);
    if (item.empty() && !text.empty()) parser_error(text);
    auto brace = item.find('{');
    std::vector<event_spec> parsed =
        brace == std::string_view::npos ? parse_event_specs(item) : parse_group(item, brace);
    for (event_spec& event : parsed) events.push_back(std::move(event));
    if (end == text.size()) return events;
    start = end + 1;
  }
}

void group_all_events(std::vector<event_spec>& events) {
  if (events.size() < 2) return;
  std::string name = events.front().group_name;
  make_group(events, name);
}

}  // namespace arec::record
