#include "perf_data/container_ids_feature.hpp"

#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_encoder.hpp"

namespace arec::perf_data {
namespace {

constexpr std::uint32_t payload_version = 1;

}  // namespace

std::vector<std::byte> container_ids_payload(std::span<const process_container> processes) {
  feature_encoder out;
  out.u32(payload_version);
  out.u32(static_cast<std::uint32_t>(processes.size()));
  for (const process_container& process : processes) {
    out.u32(static_cast<std::uint32_t>(process.pid));
    out.string(process.id);
  }
  return out.take();
}

std::vector<process_container> parse_container_ids_payload(std::span<const std::byte> payload,
                                                           std::uint64_t base,
                                                           std::string_view file) {
  byte_cursor in(payload, base, "the container-id feature", file);
  if (in.value<std::uint32_t>() != payload_version)
    throw format_error(file, base, "the container-id feature has an unknown version");
  auto count = in.value<std::uint32_t>();
  std::vector<process_container> processes;
  for (std::uint32_t i = 0; i < count; ++i) {
    process_container process;
    process.pid = static_cast<pid_t>(in.value<std::uint32_t>());
    process.id = in.string();
    processes.push_back(std::move(process));
  }
  return processes;
}

}  // namespace arec::perf_data
