#include "export/window_exporter.hpp"

#include "convert/convert_input.hpp"
#include "convert/converter.hpp"
#include "export/pprof_writer.hpp"
#include "export/recording_info.hpp"

namespace arec::exporting {
window_profile window_exporter::export_window(const std::string& path, std::int64_t start_ns,
                                              std::int64_t end_ns) {
  // Salvage: a window cut short by a full disk or a failed write still has its samples.
  convert::convert_input input = convert::open_convert_input(path, true);
  if (!builder_) {
    builder_.emplace(input.events, settings_from(input.features));
  } else {
    builder_->use_events(input.events);
    builder_->add_recorded_build_ids(recorded_build_ids(input.features));
  }
  builder_sink sink(*builder_);
  try {
    convert::merge_in_time_order(input, true, sink);
  } catch (...) {
    builder_->finish(start_ns, end_ns);  // what was read of it goes nowhere
    throw;
  }
  window_profile out;
  out.samples = builder_->samples();
  std::vector<std::byte> message = pprof_message(builder_->finish(start_ns, end_ns));
  out.uncompressed_size = message.size();
  out.gzipped = gzip(message);
  return out;
}

}  // namespace arec::exporting
