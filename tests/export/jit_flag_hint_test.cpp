// jit_flag_hint: a process is known for its runtime by the objects it maps, a jitdump by its
// marker's name, and the line names the runtime's own flag.
#include "export/jit_flag_hint.hpp"

#include <gtest/gtest.h>

namespace arec::exporting {
namespace {

TEST(JitFlagHint, RuntimesAreKnownByTheirExecutableOrLibrary) {
  EXPECT_EQ(jit_runtime_of_object("/usr/bin/node"), jit_runtime::node);
  EXPECT_EQ(jit_runtime_of_object("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"),
            jit_runtime::java);
  EXPECT_EQ(jit_runtime_of_object("/root/.pyenv/versions/3.12.1/bin/python3.12"),
            jit_runtime::python);
  EXPECT_EQ(jit_runtime_of_object("/usr/lib/libpython3.13.so.1.0"), jit_runtime::python);
  EXPECT_EQ(jit_runtime_of_object("/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/"
                                  "libcoreclr.so"),
            jit_runtime::dotnet);
}

TEST(JitFlagHint, RuntimesWithoutPerfSupportAndOtherObjectsAreNone) {
  EXPECT_EQ(jit_runtime_of_object("/usr/bin/python3.11"), std::nullopt) << "no perf support";
  EXPECT_EQ(jit_runtime_of_object("/usr/bin/python3"), std::nullopt);
  EXPECT_EQ(jit_runtime_of_object("/usr/lib/x86_64-linux-gnu/libc.so.6"), std::nullopt);
  EXPECT_EQ(jit_runtime_of_object("/opt/nodes/node_helper"), std::nullopt);
  EXPECT_EQ(jit_runtime_of_object(""), std::nullopt);
}

TEST(JitFlagHint, EachRuntimeIsToldItsOwnFlag) {
  EXPECT_NE(missing_jit_flag(jit_runtime::node, "node (pid 5)").find("--perf-basic-prof"),
            std::string::npos);
  EXPECT_NE(missing_jit_flag(jit_runtime::node, "node (pid 5)").find("node (pid 5)"),
            std::string::npos);
  EXPECT_NE(missing_jit_flag(jit_runtime::java, "java").find("-XX:+DumpPerfMapAtExit"),
            std::string::npos);
  EXPECT_NE(missing_jit_flag(jit_runtime::python, "python3.12").find("-X perf"),
            std::string::npos);
  EXPECT_NE(missing_jit_flag(jit_runtime::python, "python3.12").find("PYTHONPERFSUPPORT=1"),
            std::string::npos);
  EXPECT_NE(missing_jit_flag(jit_runtime::dotnet, "dotnet").find("DOTNET_PerfMapEnabled=1"),
            std::string::npos);
}

}  // namespace
}  // namespace arec::exporting
