'use strict';
// decode.js: the profile's JSON (page_writer.cpp, page_data_json) into typed arrays, once.
// Nodes are in depth-first order; parent and subtree end are derived here, not shipped.

// Model fields: strings, count, name/depth/parent/end (Int32Array per node; end is one past
// the last node of the subtree), kind (Uint8Array: 1 for a kernel frame), rowNode/rowThread
// /rowEvent/rowBucket (Int32Array) and rowWeight (Float64Array, exact to 2^53), threads [{name,
// pid, tid, container ('' for none)}],
// events [{name, unit, base}], defaultEvent, buckets and bucketNs (time buckets: how many, how
// long), facts, type, unit, maxDepth.
function decodeProfile(data) {
  if (!data || data.v !== 1) throw new Error('unknown profile version ' + (data && data.v));
  const count = data.nodes.name.length;
  const strings = expandStrings(data.strings, data.prefix);
  const model = {
    strings: strings,
    count: count,
    name: Int32Array.from(data.nodes.name),
    depth: Int32Array.from(data.nodes.depth),
    kind: new Uint8Array(count),
    parent: new Int32Array(count),
    end: new Int32Array(count),
    rowNode: new Int32Array(data.rows.node.length),
    rowThread: Int32Array.from(data.rows.thread),
    rowEvent: data.rows.event ? Int32Array.from(data.rows.event) : new Int32Array(data.rows.node.length),
    rowBucket: data.rows.bucket ? Int32Array.from(data.rows.bucket) : new Int32Array(data.rows.node.length),
    buckets: data.buckets || 0,
    bucketNs: data.bucketNs || 0,
    rowWeight: Float64Array.from(data.rows.weight, (weight) => weight * data.scale),
    threads: data.threads.name.map((name, i) => ({
      name: strings[name], pid: data.threads.pid[i], tid: data.threads.tid[i],
      container: data.threads.container && data.threads.container[i] >= 0 ? strings[data.threads.container[i]] : '',
    })),
    facts: data.facts,
    events: data.events,
    defaultEvent: data.defaultEvent,
    type: data.type,
    unit: data.unit,
    maxDepth: 0,
  };
  for (const node of data.kernel) model.kind[node] = 1;
  for (let r = 0, node = 0; r < data.rows.node.length; r++) model.rowNode[r] = node += data.rows.node[r];
  const path = [];
  for (let i = 0; i < count; i++) {
    const depth = model.depth[i];
    while (path.length > depth) model.end[path.pop()] = i;
    model.parent[i] = depth > 0 ? path[path.length - 1] : -1;
    path.push(i);
    if (depth > model.maxDepth) model.maxDepth = depth;
  }
  while (path.length) model.end[path.pop()] = count;
  return model;
}

// The sorted string table from its entries, each the rest after the prefix (in UTF-16 units)
// it shares with the entry before.
function expandStrings(rests, prefix) {
  const strings = new Array(rests.length);
  for (let i = 0; i < rests.length; i++)
    strings[i] = i === 0 ? rests[0] : strings[i - 1].slice(0, prefix[i]) + rests[i];
  return strings;
}

// The nodes of each depth in depth-first order, which is also left-to-right order.
function nodesByDepth(model) {
  const sizes = new Int32Array(model.maxDepth + 1);
  for (let i = 0; i < model.count; i++) sizes[model.depth[i]]++;
  const rows = Array.from(sizes, (size) => new Int32Array(size));
  const filled = new Int32Array(model.maxDepth + 1);
  for (let i = 0; i < model.count; i++) rows[model.depth[i]][filled[model.depth[i]]++] = i;
  return rows;
}
