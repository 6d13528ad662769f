'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData, plain } = require('./load_page.cjs');

const page = loadPage();
const data = profileData([
  { stack: ['main', 'f', 'g', 'f'], weight: 6, thread: 0 },
  { stack: ['main', 'g'], weight: 4, thread: 1 },
], [['app', 1, 1], ['app', 1, 2]]);
const model = page.decodeProfile(data);
const named = (name) => model.strings.indexOf(name);

test('weighNodes sums rows into self and total, for all threads or some', () => {
  const all = page.weighNodes(model, null);
  assert.strictEqual(all.total[0], 10);
  const second = page.weighNodes(model, (thread) => thread === 1);
  assert.strictEqual(second.total[0], 4);
  assert.strictEqual(second.total[model.parent[model.count - 1]], 4);
});

test('layoutNodes puts children side by side from their parent edge', () => {
  const weights = page.weighNodes(model, null);
  const x = page.layoutNodes(model, weights.total);
  // all, main, f, g, f, g(under main): f at 0 (width 6), then g at 6.
  assert.deepStrictEqual(Array.from(x), [0, 0, 0, 0, 0, 6]);
});

test('functionWeights counts a recursion once in the total', () => {
  const list = page.functionWeights(model, page.weighNodes(model, null));
  const f = list.find((entry) => entry.name === named('f'));
  const g = list.find((entry) => entry.name === named('g'));
  assert.deepStrictEqual([f.self, f.total], [6, 6]);
  assert.deepStrictEqual([g.self, g.total], [4, 10]);
  assert.strictEqual(list[0].name, named('f'));
});

test('callersAndCallees of g: main and f call it, it calls f', () => {
  const links = page.callersAndCallees(model, page.weighNodes(model, null), named('g'));
  assert.deepStrictEqual(plain(links.callers.map((c) => [model.strings[c.name], c.weight])), [['f', 6], ['main', 4]]);
  assert.deepStrictEqual(plain(links.callees.map((c) => [model.strings[c.name], c.weight])), [['f', 6]]);
});

test('nodeAtPath and pathOf are inverse, and a stale path stops where it ends', () => {
  const node = page.nodeAtPath(model, [named('main'), named('f'), named('g')]);
  assert.strictEqual(model.strings[model.name[node]], 'g');
  assert.deepStrictEqual(Array.from(page.pathOf(model, node)), [named('main'), named('f'), named('g')]);
  assert.strictEqual(page.nodeAtPath(model, [named('main'), -1]), 1);
});

test('childrenOf lists the heavier child first', () => {
  const weights = page.weighNodes(model, null);
  const children = page.childrenOf(model, weights.total, 1);
  assert.deepStrictEqual(Array.from(children, (i) => model.strings[model.name[i]]), ['f', 'g']);
});

test('events: one at a time, or on-CPU and off-CPU time together', () => {
  const both = page.decodeProfile(profileData([
    { stack: ['main', 'work'], weight: 7, event: 0 },
    { stack: ['main', 'sleep'], weight: 30, event: 1 },
  ], [['app', 1, 1]], [['cpu-clock', 'nanoseconds'], ['offcpu-time', 'nanoseconds']]));
  assert.deepStrictEqual(plain(page.eventsOf(both, -1)), [0]);
  assert.deepStrictEqual(plain(page.eventsOf(both, 1)), [1]);
  assert.deepStrictEqual(plain(page.eventsOf(both, -2)), [0, 1]);
  assert.deepStrictEqual(plain(page.eventsOf(both, 9)), [0]);
  assert.ok(page.isOffCpu(both, 1) && !page.isOffCpu(both, 0));
  const wall = page.weighNodes(both, (thread, event) => event === 0 || event === 1);
  assert.strictEqual(wall.total[0], 37);
  const off = page.weighNodes(both, (thread, event) => event === 1);
  assert.strictEqual(off.total[0], 30);
  // A count event does not add to wall time.
  const counted = page.decodeProfile(profileData([{ stack: ['a'], weight: 1 }], [['app', 1, 1]],
    [['cpu-clock', 'nanoseconds'], ['cycles', 'count']]));
  assert.deepStrictEqual(plain(page.eventsOf(counted, -2)), [0]);
});
