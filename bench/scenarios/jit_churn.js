// A busy JIT runtime for bench/compare's jit-* scenarios: node compiles, runs hot and so
// optimizes a new function about every 0.1 ms, forever (with --perf-prof: ~3 MB of jitdump a
// second, 38 % of it code).
let k = 0;
for (;;) {
  const f = new Function("a", "return a * " + k++ + " + 1");
  let s = 0;
  for (let i = 0; i < 20000; i++) s += f(i);
}
