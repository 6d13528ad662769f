// load_page.cjs: the page's script exactly as arec embeds it (the build writes the same bytes to
// AREC_REPORT_PAGE_SCRIPT), run in a fresh context without a DOM. Top-level functions become
// the context's properties; main.js starts nothing without a document.
'use strict';
const fs = require('node:fs');
const vm = require('node:vm');

function loadPage() {
  const path = process.env.AREC_REPORT_PAGE_SCRIPT;
  if (!path) throw new Error('AREC_REPORT_PAGE_SCRIPT is not set: run these tests through ctest');
  // The browser's globals the pure files use; the JavaScript builtins come with the context.
  const context = vm.createContext({ URLSearchParams: URLSearchParams });
  vm.runInContext(fs.readFileSync(path, 'utf8'), context, { filename: path });
  return context;
}

// The profile JSON page_writer.cpp writes, for stacks given root first:
// [{stack: ['main', 'f'], weight: 5, thread: 0, event: 0}], threads as [[comm, pid, tid]],
// events as [[name, unit]] (the first is the default).
function profileData(samples, threads = [['app', 1, 1]], events = [['cpu-clock', 'nanoseconds']]) {
  const strings = ['all'];
  const ids = new Map([['all', 0]]);
  const id = (name) => {
    if (!ids.has(name)) { ids.set(name, strings.length); strings.push(name); }
    return ids.get(name);
  };
  // Build the tree with children in name order, then number it depth first.
  const root = { name: 0, children: new Map(), rows: new Map() };
  for (const sample of samples) {
    let node = root;
    for (const name of sample.stack) {
      const key = id(name);
      if (!node.children.has(key)) node.children.set(key, { name: key, children: new Map(), rows: new Map() });
      node = node.children.get(key);
    }
    const key = (sample.thread || 0) + '/' + (sample.event || 0);
    node.rows.set(key, (node.rows.get(key) || 0) + sample.weight);
  }
  const threadNames = threads.map(([comm]) => id(comm));
  // Shipped as written, each with no prefix shared: decode.js's expandStrings is tested apart.
  const data = { v: 1, prefix: strings.map(() => 0), facts: { command: 'test', inputs: ['perf.data'] }, type: 'cpu-clock',
    unit: 'nanoseconds', total: 0, strings: strings, scale: 1, kernel: [], defaultEvent: 0,
    events: events.map(([name, unit]) => ({ name: name, unit: unit })),
    nodes: { name: [], depth: [] },
    threads: { name: threadNames, pid: threads.map((t) => t[1]), tid: threads.map((t) => t[2]) },
    rows: { node: [], thread: [], event: [], weight: [] } };
  let previous = 0;
  const visit = (node, depth) => {
    const index = data.nodes.name.length;
    data.nodes.name.push(node.name);
    data.nodes.depth.push(depth);
    for (const [key, weight] of node.rows) {
      const [thread, event] = key.split('/').map(Number);
      data.rows.node.push(index - previous);
      previous = index;
      data.rows.thread.push(thread);
      data.rows.event.push(event);
      data.rows.weight.push(weight);
      if (event === 0) data.total += weight;
    }
    [...node.children.values()].sort((a, b) => strings[a.name] < strings[b.name] ? -1 : 1)
      .forEach((child) => visit(child, depth + 1));
  };
  visit(root, 0);
  return data;
}

// Values made in the page's context as this realm's (arrays of another realm are never
// deepStrictEqual to ours).
const plain = (value) => JSON.parse(JSON.stringify(value));

module.exports = { loadPage, profileData, plain };
