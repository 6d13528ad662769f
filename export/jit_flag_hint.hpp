// jit_flag_hint: which flag or variable would have named a JIT runtime's frames. node, the JVM,
// CPython 3.12+ and .NET write a perf map (or a jitdump) only when asked; without one their
// JIT frames are bare addresses, and the user's fix is one flag, which export names once per
// runtime (docs/symbols.md, "Which runtime needs which flag").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace arec::exporting {

enum class jit_runtime { node, java, python, dotnet };

// The JIT runtime a process runs when it maps the object at `path` (its executable or the
// runtime's library: node, libjvm.so, python3.12+ or libpython3.12+, libcoreclr.so); nullopt
// for any other object.
std::optional<jit_runtime> jit_runtime_of_object(std::string_view path);

// The line saying which flag would have named `runtime`'s JIT frames; `example` is one process
// whose frames stayed unnamed ("node (pid 1234)").
std::string missing_jit_flag(jit_runtime runtime, std::string_view example);

}  // namespace arec::exporting
