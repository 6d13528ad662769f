// container_id: the forms docker, containerd, CRI-O and podman give a container's cgroup, and
// paths that name no container.
#include "host/container_id.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

namespace arec::host {
namespace {

const std::string id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(ContainerId, SystemdScopesOfEachRuntime) {
  EXPECT_EQ(host::container_id_in("/system.slice/docker-" + id + ".scope"), id);
  EXPECT_EQ(host::container_id_in("/kubepods.slice/kubepods-burstable.slice/"
                                  "kubepods-burstable-pod1a2b.slice/cri-containerd-" +
                                  id + ".scope"),
            id);
  EXPECT_EQ(host::container_id_in("/kubepods.slice/kubepods-pod1a2b.slice/crio-" + id + ".scope"),
            id);
  EXPECT_EQ(host::container_id_in("/machine.slice/libpod-" + id + ".scope"), id);
  EXPECT_EQ(host::container_id_in("/machine.slice/libpod-" + id + ".scope/container"), id)
      << "a cgroup inside the container's";
}

TEST(ContainerId, CgroupfsForms) {
  EXPECT_EQ(host::container_id_in("/docker/" + id), id);
  EXPECT_EQ(
      host::container_id_in("/kubepods/burstable/pod4f5e6d7c-1111-2222-3333-444455556666/" + id),
      id);
}

TEST(ContainerId, HostCgroupsAndLookAlikesNameNone) {
  EXPECT_EQ(host::container_id_in("/"), "");
  EXPECT_EQ(host::container_id_in(""), "");
  EXPECT_EQ(host::container_id_in("/user.slice/user-1000.slice/session-2.scope"), "");
  EXPECT_EQ(host::container_id_in("/system.slice/docker.service"), "");
  EXPECT_EQ(host::container_id_in("/machine.slice/libpod-conmon-" + id + ".scope"), "")
      << "podman's monitor";
  EXPECT_EQ(host::container_id_in("/docker/" + id.substr(1)), "") << "63 hex digits";
  std::string upper = id;
  upper[0] = 'A';
  EXPECT_EQ(host::container_id_in("/docker/" + upper), "") << "runtimes write lower case";
}

// /proc/PID/cgroup lists one line per hierarchy: v1's controllers each, v2's "0::".
TEST(ContainerId, AProcessesCgroupFileNamesItsContainerOnAnyHierarchy) {
  EXPECT_EQ(host::container_id_in_proc_cgroup("0::/system.slice/docker-" + id + ".scope\n"), id);
  EXPECT_EQ(host::container_id_in_proc_cgroup("12:cpuset:/\n7:perf_event:/docker/" + id +
                                              "\n0::/user.slice\n"),
            id);
  EXPECT_EQ(host::container_id_in_proc_cgroup("0::/user.slice/user-0.slice/session-1.scope\n"), "");
  EXPECT_EQ(host::container_id_in_proc_cgroup("no colons here\n"), "");
}

TEST(ContainerId, OfAProcessIsReadFromItsCgroupFile) {
  test::temp_dir proc;
  ::mkdir(proc.file("77").c_str(), 0755);
  std::ofstream{proc.file("77/cgroup")} << "11:perf_event:/docker-" << id << ".scope\n0::/\n";
  EXPECT_EQ(host::container_id_of_process(77, {proc.path()}), id);
  EXPECT_EQ(host::container_id_of_process(78, {proc.path()}), "") << "a process that is gone";
}

}  // namespace
}  // namespace arec::host
