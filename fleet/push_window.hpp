// push_window: one recording window as the push sender receives it: an already encoded, gzipped
// payload (a pprof, or an OTLP profiles request) with its time range and the labels of its
// series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arec::fleet {

struct label {
  std::string name;
  std::string value;
  friend bool operator==(const label&, const label&) = default;
};

// Where windows go and how they are spoken (--push-format).
enum class push_format {
  pyroscope,  // Grafana Pyroscope's push API (Connect): a pprof per window
  otlp,       // OpenTelemetry's profiles signal over OTLP/HTTP (Collector, Pyroscope, ...)
  parca,      // Parca's WriteRaw through its HTTP gateway: a pprof per window
};

// What a window's payload is; the spool keeps it, so a window left by a run with another
// --push-format is not sent where it cannot be read.
enum class payload_kind : std::uint8_t {
  pprof,  // profile.proto: Pyroscope's push API and Parca's WriteRaw carry it
  otlp,   // an OTLP ExportProfilesServiceRequest, sent as it is
};

// The payload `format` sends.
constexpr payload_kind payload_of(push_format format) {
  return format == push_format::otlp ? payload_kind::otlp : payload_kind::pprof;
}

struct push_window {
  std::string profile;                  // the gzipped payload
  std::uint64_t uncompressed_size = 0;  // the payload's size before gzip; 0 when unknown
  std::int64_t start_ns = 0;            // window start, ns since the Unix epoch
  std::int64_t end_ns = 0;              // window end, ns since the Unix epoch
  std::vector<label> labels;            // this window's own labels, after the sender's own
  payload_kind payload = payload_kind::pprof;
};

}  // namespace arec::fleet
