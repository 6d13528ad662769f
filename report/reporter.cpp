#include "report/reporter.hpp"

#include <optional>

#include "export/exporter.hpp"
#include "io/output_path.hpp"
#include "io/published_file.hpp"
#include "report/page_model.hpp"
#include "report/page_writer.hpp"
#include "report/recording_facts.hpp"

#ifndef AREC_VERSION
#define AREC_VERSION "unknown"
#endif

namespace arec::report {

std::string output_path(const report_options& options) {
  if (!options.output.empty()) return options.output;
  std::string input = options.inputs.empty() ? "perf.data" : options.inputs.front();
  while (input.size() > 1 && input.ends_with('/')) input.pop_back();
  return input + ".html";
}

report_result write_report(const report_options& options) {
  report_result result;
  result.output = output_path(options);
  exporting::recorded_profile recorded = exporting::read_recording(
      options.inputs, options.salvage, result.output, timeline_buckets);
  std::vector<std::string> inputs = options.inputs;
  if (inputs.empty()) inputs.push_back("perf.data");
  std::optional<exporting::recorded_profile> base;
  if (!options.diff_base.empty())
    base = exporting::read_recording({options.diff_base}, options.salvage, result.output);
  page_model model = build_page_model(recorded.result, base ? &base->result : nullptr);
  model.bucket_ns = recorded.bucket_ns;
  coarsen_buckets(model, timeline_rows);
  recording_facts facts = facts_of(recorded, std::move(inputs), AREC_VERSION);
  if (base) {
    facts.base = options.diff_base;
    facts.base_samples = base->report.samples;
  }
  std::string html = page_html(model, facts);
  // As export does: an earlier page is replaced only once the new one is complete.
  io::published_file file(result.output, io::publish_policy::replace);
  io::write_all_at(file.fd(), html.data(), html.size(), 0, result.output);
  file.commit();
  result.samples = recorded.report.samples;
  result.lost = recorded.lost;
  result.nodes = model.node_name.size();
  result.bytes = html.size();
  result.warnings = std::move(recorded.report.warnings);
  for (std::string& note : recorded.report.notes) result.warnings.push_back("salvage: " + note);
  return result;
}

}  // namespace arec::report
