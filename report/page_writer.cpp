#include "report/page_writer.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <numeric>

#include "report/function_shares.hpp"
#include "report/page_pieces.hpp"  // generated from report/page/ (cmake/embed_page.cmake)
#include "base/valid_utf8.hpp"
#include "report/page_text.hpp"

namespace arec::report {
namespace {

template <typename Column, typename Value>
void append_column(std::string& out, std::string_view key, const Column& column, Value value) {
  out += '"';
  out += key;
  out += "\":[";
  bool first = true;
  for (const auto& item : column) {
    if (!first) out += ',';
    first = false;
    out += std::to_string(value(item));
  }
  out += ']';
}

void append_key(std::string& out, std::string_view key, std::string_view text) {
  append_json_string(out, key);
  out += ':';
  append_json_string(out, text);
  out += ',';
}

void append_key(std::string& out, std::string_view key, std::int64_t number) {
  append_json_string(out, key);
  out += ':' + std::to_string(number) + ',';
}

void append_facts(std::string& out, const recording_facts& facts) {
  out += "\"facts\":{";
  append_key(out, "command", facts.command_line);
  append_key(out, "host", facts.host);
  append_key(out, "kernel", facts.kernel);
  append_key(out, "recordedBy", facts.recorded_by);
  append_key(out, "arec", facts.arec_version);
  append_key(out, "periodUnit", facts.period_unit);
  append_key(out, "period", facts.period);
  append_key(out, "start", facts.start_ns);
  append_key(out, "duration", facts.duration_ns);
  append_key(out, "samples", static_cast<std::int64_t>(facts.samples));
  append_key(out, "lost", static_cast<std::int64_t>(facts.lost));
  append_key(out, "base", facts.base);
  for (auto [key, list] : {std::pair{"events", &facts.events}, std::pair{"inputs", &facts.inputs}}) {
    append_json_string(out, key);
    out += ":[";
    for (std::size_t i = 0; i < list->size(); ++i) {
      if (i) out += ',';
      append_json_string(out, (*list)[i]);
    }
    out += "],";
  }
  out.back() = '}';
}

// "1,234,567": digits in groups of three, as the page's scripts show counts.
std::string number_text(std::int64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  std::size_t sign = value < 0 ? 1 : 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string seconds_text(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::string utc_text(std::int64_t ns) {
  std::time_t seconds = ns / 1'000'000'000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts);
  return text;
}

std::string rate_text(const recording_facts& facts) {
  if (facts.period <= 0) return "unknown";
  if (facts.period_unit == "nanoseconds")
    return number_text(1'000'000'000 / facts.period) + " Hz (a sample every " +
           number_text(facts.period) + " ns)";
  std::string text = "a sample every ";
  text += number_text(facts.period);
  text += " events";
  return text;
}

void append_fact(std::string& out, std::string_view name, std::string_view value,
                 std::string_view id = {}, bool warning = false) {
  out += warning ? "<tr class=\"warning\"><th>" : "<tr><th>";
  append_html_text(out, name);
  out += "</th><td";
  if (!id.empty()) {
    out += " id=\"";
    out += id;
    out += '"';
  }
  out += '>';
  append_html_text(out, value);
  out += "</td></tr>\n";
}

void append_facts_table(std::string& out, const page_model& model, const recording_facts& facts) {
  std::string events;
  for (const std::string& event : facts.events) {
    if (!events.empty()) events += ", ";
    events += event;
  }
  out += "<table class=\"facts\">\n";
  append_fact(out, "events", events);
  append_fact(out, "weighed by", model.weight_type + " (" + model.weight_unit + ")");
  append_fact(out, "rate", rate_text(facts));
  append_fact(out, "start", utc_text(facts.start_ns));
  append_fact(out, "duration", seconds_text(facts.duration_ns));
  append_fact(out, "samples", number_text(static_cast<std::int64_t>(facts.samples)), "fact-samples");
  std::string lost = number_text(static_cast<std::int64_t>(facts.lost));
  if (facts.lost)
    lost.append(" (")
        .append(share_text(static_cast<std::int64_t>(facts.lost),
                           static_cast<std::int64_t>(facts.lost + facts.samples)))
        .append(" of all: the views miss them)");
  append_fact(out, facts.lost ? "lost samples (warning)" : "lost samples", lost, "fact-lost",
              facts.lost != 0);
  append_fact(out, "command line", facts.command_line);
  append_fact(out, "host", facts.host);
  append_fact(out, "kernel", facts.kernel);
  append_fact(out, "recorded by", facts.recorded_by);
  append_fact(out, "report by", std::string("arec ").append(facts.arec_version));
  if (!facts.base.empty())
    append_fact(out, "compared with",
                facts.base + " (" + number_text(static_cast<std::int64_t>(facts.base_samples)) +
                    " samples)");
  out += "</table>\n";
}

void append_top(std::string& out, const page_model& model, std::vector<function_share> shares,
                bool by_total, std::size_t top) {
  if (by_total)
    std::stable_sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) {
      return a.total > b.total;
    });
  out += by_total ? "<h3>Top functions by total</h3>\n<pre id=\"top-total\">"
                  : "<h3>Top functions by self</h3>\n<pre id=\"top-self\">";
  out += "   self   total  function\n";
  for (std::size_t i = 0; i < std::min(top, shares.size()); ++i) {
    char numbers[32];
    std::snprintf(numbers, sizeof numbers, "%7s %7s  ",
                  share_text(shares[i].self, model.total).c_str(),
                  share_text(shares[i].total, model.total).c_str());
    out += numbers;
    append_html_text(out, model.strings[shares[i].name]);
    out += '\n';
  }
  out += "</pre>\n";
}

}  // namespace

std::string share_text(std::int64_t part, std::int64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

namespace {

// The string table as the page gets it: repaired to UTF-8 and sorted, each entry given as the
// length of the prefix it shares with the one before and the rest (names share namespaces and
// classes). Prefixes stop at the first byte that is not ASCII, so that a length in bytes is
// one in UTF-16 units, as JavaScript's slice counts.
struct sorted_strings {
  std::vector<std::string> texts;
  std::vector<std::uint32_t> prefix;
  std::vector<std::uint32_t> rank;  // by model string id: the position in texts

  static sorted_strings of(const std::vector<std::string>& strings) {
    sorted_strings table;
    std::vector<std::uint32_t> order(strings.size());
    std::iota(order.begin(), order.end(), 0u);
    for (const std::string& text : strings) table.texts.push_back(base::valid_utf8(text));
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return table.texts[a] < table.texts[b]; });
    std::vector<std::string> sorted;
    table.rank.resize(strings.size());
    for (std::uint32_t position = 0; position < order.size(); ++position) {
      table.rank[order[position]] = position;
      sorted.push_back(std::move(table.texts[order[position]]));
    }
    table.texts = std::move(sorted);
    for (std::size_t i = 0; i < table.texts.size(); ++i)
      table.prefix.push_back(i == 0 ? 0 : shared_ascii(table.texts[i - 1], table.texts[i]));
    return table;
  }

  static std::uint32_t shared_ascii(std::string_view a, std::string_view b) {
    std::uint32_t length = 0;
    while (length < a.size() && length < b.size() && a[length] == b[length] &&
           static_cast<unsigned char>(a[length]) < 0x80)
      ++length;
    return length;
  }
};

}  // namespace

namespace {

constexpr auto as_number = [](auto value) { return static_cast<std::int64_t>(value); };

void append_events(std::string& out, const page_model& model) {
  out += ",\"defaultEvent\":" + std::to_string(model.default_event) + ",\"events\":[";
  for (std::size_t i = 0; i < model.events.size(); ++i) {
    out += i ? ",{\"name\":" : "{\"name\":";
    append_json_string(out, model.events[i].name);
    out += ",\"unit\":";
    append_json_string(out, model.events[i].unit);
    if (model.events[i].base) out += ",\"base\":true";
    out += '}';
  }
  out += ']';
}

void append_strings(std::string& out, const sorted_strings& table) {
  out += ",\"strings\":[";
  for (std::size_t i = 0; i < table.texts.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, std::string_view(table.texts[i]).substr(table.prefix[i]));
  }
  out += "],";
  append_column(out, "prefix", table.prefix, as_number);
}

void append_nodes(std::string& out, const page_model& model, const sorted_strings& table) {
  out += ",\"nodes\":{";
  append_column(out, "name", model.node_name, [&](std::uint32_t id) { return table.rank[id]; });
  out += ',';
  append_column(out, "depth", model.node_depth, as_number);
  out += "},";
  std::vector<std::uint32_t> kernel;  // few: a list, not a column of zeros
  for (std::uint32_t node = 0; node < model.node_kind.size(); ++node)
    if (model.node_kind[node] & kind_kernel) kernel.push_back(node);
  append_column(out, "kernel", kernel, as_number);
}

void append_threads(std::string& out, const page_model& model, const sorted_strings& table) {
  out += ",\"threads\":{";
  append_column(out, "name", model.threads, [&](const page_thread& t) { return table.rank[t.name]; });
  out += ',';
  append_column(out, "pid", model.threads, [](const page_thread& t) { return t.pid; });
  out += ',';
  append_column(out, "tid", model.threads, [](const page_thread& t) { return t.tid; });
  out += ',';
  // -1: not in a container (string 0 is the root's name, never a container's id).
  append_column(out, "container", model.threads, [&](const page_thread& t) {
    return t.container == 0 ? -1 : static_cast<std::int64_t>(table.rank[t.container]);
  });
  out += '}';
}

// Rows are sorted by node: each holds its node's distance from the previous row's. Weights are
// multiples of the sampling period: shipped divided by their greatest common divisor.
void append_rows(std::string& out, const page_model& model) {
  std::int64_t scale = 0;
  for (const page_row& row : model.rows) scale = std::gcd(scale, row.weight);
  if (scale == 0) scale = 1;
  out += ",\"scale\":" + std::to_string(scale) + ",\"rows\":{";
  std::uint32_t previous = 0;
  append_column(out, "node", model.rows, [&previous](const page_row& r) {
    std::uint32_t step = r.node - previous;
    previous = r.node;
    return step;
  });
  out += ',';
  append_column(out, "thread", model.rows, [](const page_row& r) { return r.thread; });
  if (model.events.size() > 1) {  // else every row's is 0, and the page knows it
    out += ',';
    append_column(out, "event", model.rows, [](const page_row& r) { return r.event; });
  }
  if (model.buckets > 1) {  // the same
    out += ',';
    append_column(out, "bucket", model.rows, [](const page_row& r) { return r.bucket; });
  }
  out += ',';
  append_column(out, "weight", model.rows, [scale](const page_row& r) { return r.weight / scale; });
  out += '}';
}

}  // namespace

std::string page_data_json(const page_model& model, const recording_facts& facts) {
  std::string out = "{\"v\":1,";
  append_facts(out, facts);
  out += ",\"type\":";
  append_json_string(out, model.weight_type);
  out += ",\"unit\":";
  append_json_string(out, model.weight_unit);
  out += ",\"total\":" + std::to_string(model.total);
  out += ",\"buckets\":" + std::to_string(model.buckets);
  out += ",\"bucketNs\":" + std::to_string(model.bucket_ns);
  append_events(out, model);
  sorted_strings table = sorted_strings::of(model.strings);
  append_strings(out, table);
  append_nodes(out, model, table);
  append_threads(out, model, table);
  append_rows(out, model);
  out += '}';
  return out;
}

std::string page_summary_html(const page_model& model, const recording_facts& facts,
                              std::size_t top) {
  std::string out;
  append_facts_table(out, model, facts);
  std::vector<function_share> shares = function_shares(model);
  append_top(out, model, shares, false, top);
  append_top(out, model, std::move(shares), true, top);
  return out;
}

std::string page_html(const page_model& model, const recording_facts& facts) {
  std::string out(page::before_summary);
  out += page_summary_html(model, facts);
  out += page::before_data;
  out += page_data_json(model, facts);
  out += page::after_data;
  return out;
}

}  // namespace arec::report
