// container_id: the id of the container a cgroup path belongs to, as fleet stores and the
// profiling agents people compare arec with (Parca agent, the OpenTelemetry eBPF profiler)
// label samples: the 64-hex id that docker, containerd, CRI-O and podman put in the name of
// the cgroup they make for a container.
#pragma once

#include <string_view>

namespace arec::exporting {

// The container id in `cgroup_path`, "" when it names none (a host process). Recognizes the
// systemd forms (".../docker-<id>.scope", "cri-containerd-<id>.scope", "crio-<id>.scope",
// "libpod-<id>.scope") and the cgroupfs ones ("/docker/<id>", "/kubepods/.../pod<uid>/<id>",
// a path component that is the bare 64-hex id); the innermost one wins. podman's
// "libpod-conmon-<id>.scope" is its monitor, not the container.
std::string_view container_id_in(std::string_view cgroup_path);

}  // namespace arec::exporting
