#include "record/session/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "host/cpu_list.hpp"
#include "record/events/event_attrs.hpp"
#include "record/session/loss_advice.hpp"

namespace arec::record {

namespace {

// What to try when samples were lost, from how this recording was set up.
loss_context loss_of(const record_options& options, std::uint64_t ring_pages,
                     const std::vector<std::unique_ptr<streaming_thread>>& threads,
                     const stream_stats& total, const compression_totals& compression,
                     std::uint64_t bytes_written) {
  loss_context context{.lost = total.lost,
                       .ring_pages = ring_pages,
                       .streaming_threads = threads.size(),
                       .threads_given = options.threads_spec.has_value(),
                       .compressed = compression.bytes_in > 0};
  context.cpus = 0;
  for (const auto& t : threads) context.cpus += t->stream.ring_count();
  if (total.samples > 1 && total.last_sample_time > total.first_sample_time)
    context.bytes_per_second = static_cast<std::uint64_t>(
        static_cast<double>(bytes_written) * 1e9 /
        static_cast<double>(total.last_sample_time - total.first_sample_time));
  // Tracepoints record every event: -F and -c do not thin them out.
  bool all_tracepoints =
      std::all_of(options.events.begin(), options.events.end(),
                  [](const event_spec& spec) { return spec.tracepoint.has_value(); });
  if (!all_tracepoints) {
    sampling rate = effective_sampling(options);
    (rate.use_frequency ? context.frequency_hz : context.period) = rate.value;
  }
  return context;
}

// "perf.data" is looked at as "perf.converted.data" once converted (arec convert's default);
// anything else gets a suffix.
std::string converted_name(const std::string& path) {
  constexpr std::string_view suffix = ".data";
  if (path.size() > suffix.size() && path.ends_with(suffix))
    return path.substr(0, path.size() - suffix.size()) + ".converted.data";
  return path + ".converted.data";
}

// printf-style formatting into a string, for the summary's numbers.
template <typename... Args>
std::string formatted(const char* format, Args... args) {
  int size = std::snprintf(nullptr, 0, format, args...);
  std::string text(static_cast<std::size_t>(std::max(size, 0)), '\0');
  std::snprintf(text.data(), text.size() + 1, format, args...);
  return text;
}

unsigned long long ull(std::uint64_t value) {
  return static_cast<unsigned long long>(value);
}

std::string totals_line(const summary_facts& facts) {
  const stream_stats& total = facts.total;
  const written_output& output = facts.output;
  if (facts.transient)
    return formatted("arec: %llu samples, %llu lost, %llu bytes recorded\n", ull(total.samples),
                     ull(total.lost), ull(output.all_bytes));
  // perf prints the last file's size beside "PATH.<timestamp>"; arec names both totals.
  if (output.files > 1)
    return formatted(
        "arec: %llu samples, %llu lost, %llu bytes written to %llu files; the last, %s, has %llu "
        "bytes\n",
        ull(total.samples), ull(total.lost), ull(output.all_bytes), ull(output.files),
        output.path.c_str(), ull(output.bytes));
  return formatted("arec: %llu samples, %llu lost, %llu bytes written to %s\n", ull(total.samples),
                   ull(total.lost), ull(output.bytes),
                   output.path == "-" ? "standard output" : output.path.c_str());
}

}  // namespace

summary_facts summary_facts_of(const record_options& options, const written_output& output,
                               const std::vector<std::unique_ptr<streaming_thread>>& threads,
                               const stream_stats& total, const compression_totals& compression,
                               std::uint64_t ring_pages) {
  summary_facts facts;
  facts.per_thread_lines = options.threads_spec || options.verbose;
  facts.transient = options.transient_outputs;
  for (const auto& t : threads) {
    facts.threads.push_back(
        {host::format_cpu_list(t->stream.cpus()), host::format_cpu_list(t->thread.affinity()),
         host::format_cpu_list(t->stream.ran_on()), t->stream.stats(), t->thread.cpu_seconds()});
    for (const auto& [cpu, stats] : t->stream.stats_by_cpu())
      if (stats.lost != 0) facts.losses.push_back({cpu, stats.lost});
  }
  facts.total = total;
  facts.output = output;
  facts.compression = compression;
  facts.remedies =
      loss_remedies(loss_of(options, ring_pages, threads, total, compression, output.all_bytes));
  return facts;
}

std::string summary_text(const summary_facts& facts) {
  std::string text;
  if (facts.per_thread_lines) {
    for (std::size_t i = 0; i < facts.threads.size(); ++i) {
      const thread_summary& t = facts.threads[i];
      text += formatted(
          "arec: thread %zu: cpus=%s affinity=%s ran_on=%s samples=%llu lost=%llu bytes=%llu "
          "drains=%llu cpu_time=%.3fs\n",
          i, t.cpus.c_str(), t.affinity.c_str(), t.ran_on.c_str(), ull(t.stats.samples),
          ull(t.stats.lost), ull(t.stats.bytes_out), ull(t.stats.drains), t.cpu_seconds);
    }
  }
  for (const ring_loss& loss : facts.losses)
    text += loss.cpu < 0 ? formatted("arec: a thread's ring lost %llu samples (it was full)\n",
                                     ull(loss.lost))
                         : formatted("arec: cpu %d lost %llu samples (the ring was full)\n",
                                     loss.cpu, ull(loss.lost));
  text += totals_line(facts);
  if (!facts.output.failure.empty()) text += facts.output.failure + "\n";
  if (facts.off_cpu) {
    text += formatted("arec: off-CPU time: %llu samples, %.3f s blocked",
                      ull(facts.off_cpu->samples), facts.off_cpu->blocked_ns / 1e9);
    if (facts.off_cpu->unattributed > 0)
      text += formatted("; %llu blocked switch-outs had no sampled stack and are not counted",
                        ull(facts.off_cpu->unattributed));
    if (facts.off_cpu->incomplete > 0)
      text += formatted("; %llu blocked switch-outs kept their frame-pointer stack (not "
                        "completed from CFI: a caller may be missing)",
                        ull(facts.off_cpu->incomplete));
    text += "\n";
  }
  if (facts.debuginfod && facts.debuginfod->asked > 0)
    text += formatted(
        "arec: debuginfod: fetched %llu debug files (%.1f MB) for %llu objects; %llu sampled "
        "objects still unnamed\n",
        ull(facts.debuginfod->files), facts.debuginfod->bytes / 1e6, ull(facts.debuginfod->asked),
        ull(facts.debuginfod->unnamed));
  if (facts.compression.bytes_in > 0)
    text += formatted("arec: compressed %llu bytes to %llu (ratio %.1f)\n",
                      ull(facts.compression.bytes_in), ull(facts.compression.bytes_out),
                      facts.compression.ratio());
  if (!facts.remedies.empty()) {
    text += formatted("arec: %llu samples lost; to lose fewer:\n", ull(facts.total.lost));
    for (const std::string& remedy : facts.remedies) text += "arec:   " + remedy + "\n";
  }
  // The reader at the other end of the pipe has it; pushed windows are gone.
  if (facts.output.path == "-" || facts.transient) return text;
  const std::string& path = facts.output.path;
  std::string converted = converted_name(path);
  return text + "arec: look at it with 'perf report -i " + path + "' or 'arec report -i " + path +
         "' (a page for any browser), or for hotspot: 'arec convert -i " + path + " -o " +
         converted + "' then 'hotspot " + converted + "'\n";
}

void print_summary(const record_options& options, const written_output& output,
                   const std::vector<std::unique_ptr<streaming_thread>>& threads,
                   const stream_stats& total, const compression_totals& compression,
                   std::uint64_t ring_pages, std::optional<off_cpu_totals> off_cpu,
                   std::optional<symbols::debug_fetch_totals> debuginfod) {
  if (options.quiet) return;
  std::string text = summary_text([&] {
    summary_facts facts =
        summary_facts_of(options, output, threads, total, compression, ring_pages);
    facts.off_cpu = off_cpu;
    facts.debuginfod = debuginfod;
    return facts;
  }());
  std::fputs(text.c_str(), stderr);
}

}  // namespace arec::record
