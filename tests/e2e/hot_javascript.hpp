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

}  // namespace arec::e2e
