'use strict';
// tree.js: weights of the call tree for a choice of threads, where each frame sits, and the
// per-function views (bottom-up, callers and callees). Pure: no DOM.

// Self and total weight per node, summing only the rows whose thread, event and time bucket
// `keep(thread, event, bucket)` accepts (every row when keep is null).
function weighNodes(model, keep) {
  const self = new Float64Array(model.count);
  for (let r = 0; r < model.rowNode.length; r++)
    if (!keep || keep(model.rowThread[r], model.rowEvent[r], model.rowBucket[r]))
      self[model.rowNode[r]] += model.rowWeight[r];
  const total = Float64Array.from(self);
  for (let i = model.count - 1; i > 0; i--) total[model.parent[i]] += total[i];
  return { self: self, total: total };
}

// Each node's left edge in weight units: children sit side by side from their parent's edge,
// in depth-first (name) order.
function layoutNodes(model, total) {
  const x = new Float64Array(model.count);
  const next = new Float64Array(model.count);  // where a node's next child starts
  for (let i = 1; i < model.count; i++) {
    const parent = model.parent[i];
    x[i] = next[parent];
    next[parent] += total[i];
    next[i] = x[i];
  }
  return x;
}

// Per function name: self weight, and total weight counting each stack once however often
// the function recurs in it (go tool pprof's flat and cum). Sorted by self, then total.
function functionWeights(model, weights) {
  const self = new Float64Array(model.strings.length);
  const total = new Float64Array(model.strings.length);
  const onPath = new Int32Array(model.strings.length);
  const path = [];
  for (let i = 1; i < model.count; i++) {
    while (path.length >= model.depth[i]) onPath[model.name[path.pop()]]--;
    const name = model.name[i];
    self[name] += weights.self[i];
    if (onPath[name]++ === 0) total[name] += weights.total[i];
    path.push(i);
  }
  const list = [];
  for (let name = 0; name < total.length; name++)
    if (total[name] > 0) list.push({ name: name, self: self[name], total: total[name] });
  list.sort((a, b) => b.self - a.self || b.total - a.total || a.name - b.name);
  return list;
}

// Who calls function `name` and whom it calls, each with the weight of those calls, heaviest
// first: [{name, weight}].
function callersAndCallees(model, weights, name) {
  const callers = new Map();
  const callees = new Map();
  const add = (map, key, weight) => map.set(key, (map.get(key) || 0) + weight);
  for (let i = 1; i < model.count; i++) {
    if (model.name[i] !== name || weights.total[i] === 0) continue;
    const parent = model.parent[i];
    if (parent > 0) add(callers, model.name[parent], weights.total[i]);
    for (let child = i + 1; child < model.end[i]; child = model.end[child])
      if (weights.total[child] > 0) add(callees, model.name[child], weights.total[child]);
  }
  const sorted = (map) => Array.from(map, ([key, weight]) => ({ name: key, weight: weight }))
    .sort((a, b) => b.weight - a.weight || a.name - b.name);
  return { callers: sorted(callers), callees: sorted(callees) };
}

// The node reached from the root by the names in `path` (ids), or the deepest one found.
function nodeAtPath(model, path) {
  let node = 0;
  for (const name of path) {
    let found = -1;
    for (let child = node + 1; child < model.end[node]; child = model.end[child])
      if (model.name[child] === name) { found = child; break; }
    if (found < 0) break;
    node = found;
  }
  return node;
}

// The names (ids) from the root's child down to `node`.
function pathOf(model, node) {
  const path = [];
  for (let i = node; i > 0; i = model.parent[i]) path.push(model.name[i]);
  return path.reverse();
}

// The children of `node` with weight, heaviest first.
function childrenOf(model, total, node) {
  const children = [];
  for (let child = node + 1; child < model.end[node]; child = model.end[child])
    if (total[child] > 0) children.push(child);
  return children.sort((a, b) => total[b] - total[a]);
}

// Whether event `index` is off-CPU time (arec's and perf's --off-cpu event).
function isOffCpu(model, index) {
  return /^offcpu-time/.test(model.events[index].name);
}

// The events a mode weighs: one event's index, or -2 for every event in nanoseconds (on-CPU and
// off-CPU time together: wall time), never --diff's base events. An unknown index falls back
// to the default event; a profile without samples has no events.
function eventsOf(model, mode) {
  if (model.events.length === 0) return [];
  const own = (i) => i >= 0 && i < model.events.length && !model.events[i].base;
  if (mode === -2) {
    const timed = model.events.map((event, i) => i)
      .filter((i) => own(i) && model.events[i].unit === 'nanoseconds');
    if (timed.length > 1) return timed;
  }
  return [own(mode) ? mode : model.defaultEvent];
}
