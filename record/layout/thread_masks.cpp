#include "record/layout/thread_masks.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "base/usage_error.hpp"
#include "host/cpu_list.hpp"

namespace arec::record {
namespace {

enum class unit_kind { cpu, core, package, numa };

struct spec_word {
  std::string_view word;
  unit_kind kind;
};

// Tried in this order, as perf does, so the ambiguous "c" means cpu. socket is arec's synonym.
constexpr spec_word spec_words[] = {{"cpu", unit_kind::cpu},
                                    {"core", unit_kind::core},
                                    {"package", unit_kind::package},
                                    {"socket", unit_kind::package},
                                    {"numa", unit_kind::numa}};

// One group of CPUs that gets a thread when any of them is monitored.
struct topology_unit {
  std::string name;       // for the -v note when it is dropped
  std::vector<int> cpus;  // its online CPUs, ascending; also the thread's affinity
};

// A user mask as written, validated.
struct user_mask {
  std::string_view text;
  std::vector<int> cpus;
  std::vector<int> affinity;
};

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("--threads: " + message);
}

bool is_prefix_ignoring_case(std::string_view spec, std::string_view word) {
  if (spec.size() > word.size()) return false;
  return std::equal(spec.begin(), spec.end(), word.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

// The unit kind a spec word names; nullopt for user masks (which start with a digit, or '/'
// when malformed). Throws for an unknown word.
std::optional<unit_kind> parse_spec_word(std::string_view spec) {
  if (spec.empty()) return unit_kind::cpu;
  for (const spec_word& candidate : spec_words)
    if (is_prefix_ignoring_case(spec, candidate.word)) return candidate.kind;
  if (std::isalpha(static_cast<unsigned char>(spec.front())))
    fail("unknown spec " + base::quoted(spec) +
         " (expected cpu, core, package, socket, numa or CPUS/AFFINITY[:CPUS/AFFINITY...])");
  return std::nullopt;
}

std::vector<int> intersection(std::span<const int> a, std::span<const int> b) {
  std::vector<int> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

// Throws unless every CPU exists and is online; `what` names the list in the message.
void require_online(std::span<const int> cpus, const cpu_topology& topology,
                    const std::string& what) {
  for (int cpu : cpus) {
    if (topology.is_online(cpu)) continue;
    fail(what + "cpu " + std::to_string(cpu) +
         (topology.is_present(cpu) ? " is offline" : " does not exist"));
  }
}

// The CPUs of `unit_cpus` that are online and not yet in an earlier unit, marking them taken.
// Taking them keeps units disjoint even if sysfs sibling lists disagree with each other.
std::vector<int> take_online(std::span<const int> unit_cpus, const cpu_topology& topology,
                             std::vector<bool>& taken) {
  std::vector<int> cpus;
  for (int cpu : unit_cpus) {
    if (!topology.is_online(cpu) || taken[cpu]) continue;
    taken[cpu] = true;
    cpus.push_back(cpu);
  }
  return cpus;
}

// Partitions the online CPUs into units of `kind` (numa: in node order). For cpu the units are
// the monitored CPUs only: unmonitored CPUs are not units that could be dropped.
std::vector<topology_unit> topology_units(unit_kind kind, std::span<const int> monitored,
                                          const cpu_topology& topology) {
  std::vector<topology_unit> units;
  std::vector<bool> taken(host::max_cpus, false);
  switch (kind) {
    case unit_kind::cpu:
      for (int cpu : monitored) units.push_back({"cpu " + std::to_string(cpu), {cpu}});
      break;
    case unit_kind::core:
    case unit_kind::package:
      for (int cpu : topology.online) {
        if (taken[cpu]) continue;
        const cpu_siblings& siblings = topology.siblings_of(cpu);
        auto& list = kind == unit_kind::core ? siblings.core : siblings.package;
        taken[cpu] = true;  // a CPU always belongs to its own unit, whatever its list says
        std::vector<int> cpus = take_online(list, topology, taken);
        cpus.insert(std::lower_bound(cpus.begin(), cpus.end(), cpu), cpu);
        std::string name = kind == unit_kind::core ? "core " : "package ";
        units.push_back({name + host::format_cpu_list(cpus), std::move(cpus)});
      }
      break;
    case unit_kind::numa: {
      for (std::size_t node = 0; node < topology.numa_nodes.size(); ++node) {
        std::vector<int> cpus = take_online(topology.numa_nodes[node], topology, taken);
        // Memory-only nodes (and gaps in the numbering) have nothing to drain.
        if (cpus.empty()) continue;
        units.push_back(
            {"numa node " + std::to_string(node) + " (cpus " + host::format_cpu_list(cpus) + ")",
             std::move(cpus)});
      }
      std::vector<int> homeless = take_online(topology.online, topology, taken);
      if (!homeless.empty())
        units.push_back({"cpus " + host::format_cpu_list(homeless) + " (in no numa node)",
                         std::move(homeless)});
      break;
    }
  }
  return units;
}

thread_layout layout_of_units(std::span<const topology_unit> units,
                              std::span<const int> monitored) {
  thread_layout layout;
  for (const topology_unit& unit : units) {
    std::vector<int> cpus = intersection(unit.cpus, monitored);
    if (cpus.empty()) {
      layout.dropped.push_back("no thread for " + unit.name + ": none of its cpus is monitored");
      continue;
    }
    layout.threads.push_back({std::move(cpus), unit.cpus});
  }
  // -C can leave a later unit with a lower monitored CPU than an earlier one (cpu 16 vs 1).
  std::stable_sort(layout.threads.begin(), layout.threads.end(),
                   [](const auto& a, const auto& b) { return a.cpus.front() < b.cpus.front(); });
  return layout;
}

std::vector<int> parse_mask_half(std::string_view text, std::string_view mask) {
  try {
    return host::parse_cpu_list(text);
  } catch (const std::invalid_argument& error) {
    fail("mask " + base::quoted(mask) + ": " + error.what());
  }
}

user_mask parse_user_mask(std::string_view text, std::string_view spec,
                          const cpu_topology& topology) {
  if (text.empty()) fail("empty mask in " + base::quoted(spec));
  auto slash = text.find('/');
  if (slash == std::string_view::npos)
    fail("mask " + base::quoted(text) + " has no /AFFINITY half");
  if (text.find('/', slash + 1) != std::string_view::npos)
    fail("mask " + base::quoted(text) + " has more than one '/'");
  user_mask mask{text, parse_mask_half(text.substr(0, slash), text),
                 parse_mask_half(text.substr(slash + 1), text)};
  std::string where = "mask " + base::quoted(text) + ": ";
  if (mask.cpus.empty()) fail(where + "no cpus to drain before the '/'");
  require_online(mask.cpus, topology, where);
  require_online(mask.affinity, topology, where + "affinity ");
  if (mask.affinity.empty()) fail(where + "affinity has no online cpu");
  return mask;
}

thread_layout layout_of_user_masks(std::string_view spec, std::span<const int> monitored,
                                   const cpu_topology& topology) {
  std::vector<user_mask> masks;
  for (std::string_view rest = spec;;) {
    auto colon = rest.find(':');
    masks.push_back(parse_user_mask(rest.substr(0, colon), spec, topology));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  // Overlap is judged as written, before -C: it is a mistake in the spec whatever -C says.
  for (std::size_t later = 1; later < masks.size(); ++later)
    for (std::size_t earlier = 0; earlier < later; ++earlier)
      if (auto shared = intersection(masks[later].cpus, masks[earlier].cpus); !shared.empty())
        fail("mask " + base::quoted(masks[later].text) + " overlaps mask " +
             base::quoted(masks[earlier].text) + " on cpus " + host::format_cpu_list(shared));
  thread_layout layout;
  for (user_mask& mask : masks) {
    std::vector<int> cpus = intersection(mask.cpus, monitored);
    if (cpus.empty()) {
      layout.dropped.push_back("no thread for mask " + base::quoted(mask.text) +
                               ": none of its cpus is monitored");
      continue;
    }
    layout.threads.push_back({std::move(cpus), std::move(mask.affinity)});
  }
  return layout;
}

}  // namespace

thread_layout build_thread_layout(std::string_view spec, std::span<const int> monitored_cpus,
                                  const cpu_topology& topology) {
  std::vector<int> monitored(monitored_cpus.begin(), monitored_cpus.end());
  std::sort(monitored.begin(), monitored.end());
  monitored.erase(std::unique(monitored.begin(), monitored.end()), monitored.end());
  require_online(monitored, topology, "monitored ");

  std::optional<unit_kind> kind = parse_spec_word(spec);
  thread_layout layout =
      kind ? layout_of_units(topology_units(*kind, monitored, topology), monitored)
           : layout_of_user_masks(spec, monitored, topology);
  if (layout.threads.empty())
    fail(base::quoted(spec.empty() ? "cpu" : spec) +
         " leaves no streaming thread for monitored cpus " +
         base::quoted(host::format_cpu_list(monitored)));
  return layout;
}

std::string format_thread_layout(const thread_layout& layout) {
  std::string text;
  for (std::size_t i = 0; i < layout.threads.size(); ++i) {
    const stream_thread_mask& thread = layout.threads[i];
    text += "thread " + std::to_string(i) + ": cpus=" + host::format_cpu_list(thread.cpus) +
            " affinity=" + host::format_cpu_list(thread.affinity) + '\n';
  }
  return text;
}

}  // namespace arec::record
