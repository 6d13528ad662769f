// container_id: the id of the container a cgroup path belongs to, as fleet stores and the
// profiling agents people compare arec with (Parca agent, the OpenTelemetry eBPF profiler)
// label samples: the 64-hex id that docker, containerd, CRI-O and podman put in the name of
// the cgroup they make for a container.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "host/mapped_file.hpp"

namespace arec::host {

// The container id in `cgroup_path`, "" when it names none (a host process). Recognizes the
// systemd forms (".../docker-<id>.scope", "cri-containerd-<id>.scope", "crio-<id>.scope",
// "libpod-<id>.scope") and the cgroupfs ones ("/docker/<id>", "/kubepods/.../pod<uid>/<id>",
// a path component that is the bare 64-hex id); the innermost one wins. podman's
// "libpod-conmon-<id>.scope" is its monitor, not the container.
std::string_view container_id_in(std::string_view cgroup_path);

// The container id of the first line of a /proc/PID/cgroup text ("ID:CONTROLLERS:PATH" per
// hierarchy, cgroup v1 and v2 alike) whose path names one; "" for a host process.
std::string_view container_id_in_proc_cgroup(std::string_view text);

// The container id of process `pid` now, from /proc/PID/cgroup; "" for a host process or one
// that is gone.
std::string container_id_of_process(pid_t pid, const proc_root& proc = {});

}  // namespace arec::host
