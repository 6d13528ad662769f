// otlp_writer: a profile encoded as an OpenTelemetry profiles request
// (ExportProfilesServiceRequest, the OTLP profiles signal), as the OpenTelemetry Collector,
// Grafana Pyroscope (1.20 on) and Parca (0.27 on) read it over OTLP/HTTP. The signal is still in
// development and changed its wire layout between releases: arec writes one release's,
// otlp_proto_release, and docs/fleet.md says which servers read it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "export/profile.hpp"

namespace arec::exporting {

// The opentelemetry-proto release whose layout export/otlp/*.proto describe: the one place the
// encoder's version is named (--help and docs/fleet.md quote it).
inline constexpr std::string_view otlp_proto_release = "v1.11.0";

struct otlp_attribute {
  std::string key;
  std::string value;
  friend bool operator==(const otlp_attribute&, const otlp_attribute&) = default;
};

// What the request says of where the profile comes from: string-valued resource attributes,
// in order (service.name, host.name, ...). The instrumentation scope is "arec".
struct otlp_resource {
  std::vector<otlp_attribute> attributes;
};

// The serialized request, uncompressed: one ResourceProfiles for `resource`, one Profile per
// event in `source` (CPU time as samples/count with a cpu/nanoseconds period, as OpenTelemetry's
// eBPF profiler sends it; off-CPU time as off_cpu/nanoseconds; other events as their name and
// unit), and each sample's pid, tid, comm, cpu and container id as the semantic conventions'
// process.pid, thread.id, thread.name, cpu.logical_number and container.id.
std::vector<std::byte> otlp_request(const profile& source, const otlp_resource& resource);

}  // namespace arec::exporting
