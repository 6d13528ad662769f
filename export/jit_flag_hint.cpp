#include "export/jit_flag_hint.hpp"

#include <charconv>

namespace arec::exporting {
namespace {

std::string_view basename_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// True when `name` starts with `prefix` and then a minor version of at least 12 ("3.12", then
// anything: "python3.12", "libpython3.13.so.1.0"): perf support came with CPython 3.12.
bool is_python_from_3_12(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return false;
  name.remove_prefix(prefix.size());
  unsigned minor = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), minor);
  return error == std::errc{} && end != name.data() && minor >= 12;
}

}  // namespace

std::optional<jit_runtime> jit_runtime_of_object(std::string_view path) {
  std::string_view name = basename_of(path);
  if (name == "node" || name == "nodejs") return jit_runtime::node;
  if (name == "libjvm.so") return jit_runtime::java;
  if (name == "libcoreclr.so") return jit_runtime::dotnet;
  if (is_python_from_3_12(name, "python3.") || is_python_from_3_12(name, "libpython3."))
    return jit_runtime::python;
  return std::nullopt;
}

std::string missing_jit_flag(jit_runtime runtime, std::string_view example) {
  std::string said = "the JIT frames of " + std::string(example) +
                     " stay unnamed: it wrote no perf map or jitdump. ";
  switch (runtime) {
    case jit_runtime::node:
      return said +
             "Run node with --perf-basic-prof (or NODE_OPTIONS=--perf-basic-prof); --perf-prof "
             "(a jitdump) names them too";
    case jit_runtime::java:
      return said +
             "Run java with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (the map is "
             "written at exit), or run jcmd PID Compiler.perfmap before the recording ends";
    case jit_runtime::python:
      return said +
             "Run python (3.12 or later) with -X perf (or PYTHONPERFSUPPORT=1); -X perf_jit "
             "(3.13, a jitdump) names them too";
    case jit_runtime::dotnet:
      return said + "Run it with DOTNET_PerfMapEnabled=1 (or 3: the perf map alone)";
  }
  return said;
}

}  // namespace arec::exporting
