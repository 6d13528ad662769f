#include "record/session/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "io/cpu_list.hpp"
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

}  // namespace

void print_summary(const record_options& options, const written_output& output,
                   const std::vector<std::unique_ptr<streaming_thread>>& threads,
                   const stream_stats& total, const compression_totals& compression,
                   std::uint64_t ring_pages) {
  if (options.quiet) return;
  if (options.threads_spec || options.verbose) {
    for (std::size_t i = 0; i < threads.size(); ++i) {
      const streaming_thread& t = *threads[i];
      stream_stats stats = t.stream.stats();
      std::fprintf(stderr,
                   "arec: thread %zu: cpus=%s affinity=%s ran_on=%s samples=%llu lost=%llu "
                   "bytes=%llu drains=%llu cpu_time=%.3fs\n",
                   i, io::format_cpu_list(t.stream.cpus()).c_str(),
                   io::format_cpu_list(t.thread.affinity()).c_str(),
                   io::format_cpu_list(t.stream.ran_on()).c_str(),
                   static_cast<unsigned long long>(stats.samples),
                   static_cast<unsigned long long>(stats.lost),
                   static_cast<unsigned long long>(stats.bytes_out),
                   static_cast<unsigned long long>(stats.drains), t.thread.cpu_seconds());
    }
  }
  for (const auto& t : threads) {
    for (const auto& [cpu, stats] : t->stream.stats_by_cpu()) {
      if (stats.lost == 0) continue;
      if (cpu < 0)  // --per-thread: a task's ring
        std::fprintf(stderr, "arec: a thread's ring lost %llu samples (it was full)\n",
                     static_cast<unsigned long long>(stats.lost));
      else
        std::fprintf(stderr, "arec: cpu %d lost %llu samples (the ring was full)\n", cpu,
                     static_cast<unsigned long long>(stats.lost));
    }
  }
  if (options.transient_outputs) {
    std::fprintf(stderr, "arec: %llu samples, %llu lost, %llu bytes recorded\n",
                 static_cast<unsigned long long>(total.samples),
                 static_cast<unsigned long long>(total.lost),
                 static_cast<unsigned long long>(output.all_bytes));
  } else if (output.files > 1) {
    // perf prints the last file's size beside "PATH.<timestamp>"; arec names both totals.
    std::fprintf(stderr,
                 "arec: %llu samples, %llu lost, %llu bytes written to %llu files; the last, %s, "
                 "has %llu bytes\n",
                 static_cast<unsigned long long>(total.samples),
                 static_cast<unsigned long long>(total.lost),
                 static_cast<unsigned long long>(output.all_bytes),
                 static_cast<unsigned long long>(output.files), output.path.c_str(),
                 static_cast<unsigned long long>(output.bytes));
  } else {
    std::fprintf(stderr, "arec: %llu samples, %llu lost, %llu bytes written to %s\n",
                 static_cast<unsigned long long>(total.samples),
                 static_cast<unsigned long long>(total.lost),
                 static_cast<unsigned long long>(output.bytes),
                 output.path == "-" ? "standard output" : output.path.c_str());
  }
  if (!output.failure.empty()) std::fprintf(stderr, "%s\n", output.failure.c_str());
  if (compression.bytes_in > 0)
    std::fprintf(stderr, "arec: compressed %llu bytes to %llu (ratio %.1f)\n",
                 static_cast<unsigned long long>(compression.bytes_in),
                 static_cast<unsigned long long>(compression.bytes_out), compression.ratio());
  std::vector<std::string> remedies =
      loss_remedies(loss_of(options, ring_pages, threads, total, compression, output.all_bytes));
  if (!remedies.empty()) {
    std::fprintf(stderr, "arec: %llu samples lost; to lose fewer:\n",
                 static_cast<unsigned long long>(total.lost));
    for (const std::string& remedy : remedies) std::fprintf(stderr, "arec:   %s\n", remedy.c_str());
  }
  // The reader at the other end of the pipe has it; pushed windows are gone.
  if (output.path == "-" || options.transient_outputs) return;
  const std::string& path = output.path;
  std::string converted = converted_name(path);
  std::fprintf(stderr,
               "arec: look at it with 'perf report -i %s', or for hotspot: 'arec convert -i %s -o "
               "%s' then 'hotspot %s'\n",
               path.c_str(), path.c_str(), converted.c_str(), converted.c_str());
}

}  // namespace arec::record
