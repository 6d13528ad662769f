// hot_javascript: a node program that spends its time in one JavaScript function,
// jsHotFunction, whose code V8 generates into anonymous memory and names in its perf map: the
// workload of the JIT tests.
#pragma once

#include <string>

namespace arec::e2e {

// Prints its pid, then loops `iterations` ("3e8") times. The loop is inside the function, so
// V8's optimized code for it is jsHotFunction's own (a loop around a call would inline it into
// the caller).
inline std::string hot_javascript(const std::string& iterations) {
  return R"(
function jsHotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);
  return s;
}
console.log(process.pid);
console.log(jsHotFunction()" +
         iterations + R"() > 0);
)";
}

// node writes its jitdump (--perf-prof) through a 4 KiB stdio buffer (docs/symbols.md,
// "Limits"): the record of the code it compiled last reaches the file only when more follows,
// or at its exit. Put before a long call of jsHotFunction (run node with
// --allow-natives-syntax), this has it optimized first, then 40 small functions, whose records
// push its own into the file while the call runs.
inline constexpr const char* jitdump_flushing_prelude = R"(
function optimize(f) {
  %PrepareFunctionForOptimization(f);
  f(10);
  %OptimizeFunctionOnNextCall(f);
  f(10);
}
optimize(jsHotFunction);
for (let k = 0; k < 40; k++) optimize(new Function("a", "return a * " + k + " + 1"));
)";

}  // namespace arec::e2e
