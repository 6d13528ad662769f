// container_id: the forms docker, containerd, CRI-O and podman give a container's cgroup, and
// paths that name no container.
#include "export/container_id.hpp"

#include <gtest/gtest.h>

#include <string>

namespace arec::exporting {
namespace {

const std::string id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(ContainerId, SystemdScopesOfEachRuntime) {
  EXPECT_EQ(container_id_in("/system.slice/docker-" + id + ".scope"), id);
  EXPECT_EQ(container_id_in("/kubepods.slice/kubepods-burstable.slice/"
                            "kubepods-burstable-pod1a2b.slice/cri-containerd-" +
                            id + ".scope"),
            id);
  EXPECT_EQ(container_id_in("/kubepods.slice/kubepods-pod1a2b.slice/crio-" + id + ".scope"), id);
  EXPECT_EQ(container_id_in("/machine.slice/libpod-" + id + ".scope"), id);
  EXPECT_EQ(container_id_in("/machine.slice/libpod-" + id + ".scope/container"), id)
      << "a cgroup inside the container's";
}

TEST(ContainerId, CgroupfsForms) {
  EXPECT_EQ(container_id_in("/docker/" + id), id);
  EXPECT_EQ(container_id_in("/kubepods/burstable/pod4f5e6d7c-1111-2222-3333-444455556666/" + id),
            id);
}

TEST(ContainerId, HostCgroupsAndLookAlikesNameNone) {
  EXPECT_EQ(container_id_in("/"), "");
  EXPECT_EQ(container_id_in(""), "");
  EXPECT_EQ(container_id_in("/user.slice/user-1000.slice/session-2.scope"), "");
  EXPECT_EQ(container_id_in("/system.slice/docker.service"), "");
  EXPECT_EQ(container_id_in("/machine.slice/libpod-conmon-" + id + ".scope"), "")
      << "podman's monitor";
  EXPECT_EQ(container_id_in("/docker/" + id.substr(1)), "") << "63 hex digits";
  std::string upper = id;
  upper[0] = 'A';
  EXPECT_EQ(container_id_in("/docker/" + upper), "") << "runtimes write lower case";
}

}  // namespace
}  // namespace arec::exporting
