'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData, plain } = require('./load_page.cjs');

const page = loadPage();

test('decodeProfile derives parents, subtree ends and the depth', () => {
  const model = page.decodeProfile(profileData([
    { stack: ['main', 'b', 'leaf'], weight: 30 },
    { stack: ['main', 'a'], weight: 10 },
  ]));
  // all, main, a, b, leaf
  assert.deepStrictEqual(Array.from(model.parent), [-1, 0, 1, 1, 3]);
  assert.deepStrictEqual(Array.from(model.end), [5, 5, 3, 5, 5]);
  assert.strictEqual(model.maxDepth, 3);
  assert.strictEqual(model.strings[model.name[4]], 'leaf');
});

test('decodeProfile refuses another version', () => {
  assert.throws(() => page.decodeProfile({ v: 2 }), /version 2/);
});

test('nodesByDepth lists each row left to right', () => {
  const model = page.decodeProfile(profileData([
    { stack: ['main', 'b', 'leaf'], weight: 30 },
    { stack: ['main', 'a', 'x'], weight: 10 },
  ]));
  const rows = page.nodesByDepth(model);
  assert.deepStrictEqual(plain(rows.map((row) => Array.from(row, (i) => model.strings[model.name[i]]))),
    [['all'], ['main'], ['a', 'b'], ['x', 'leaf']]);
});

test('decodeProfile marks kernel frames, adds up row steps and scales weights', () => {
  const data = profileData([
    { stack: ['main', 'a'], weight: 2 },
    { stack: ['main', 'b'], weight: 3 },
  ]);
  data.kernel = [3];
  data.scale = 250000;
  const model = page.decodeProfile(data);
  assert.deepStrictEqual(Array.from(model.kind), [0, 0, 0, 1]);
  assert.deepStrictEqual(Array.from(model.rowNode), [2, 3]);  // shipped as steps: 2, 1
  assert.deepStrictEqual(Array.from(model.rowWeight), [500000, 750000]);
  assert.deepStrictEqual(Array.from(model.rowEvent), [0, 0]);
  delete data.rows.event;  // a recording of one event ships none
  assert.deepStrictEqual(Array.from(page.decodeProfile(data).rowEvent), [0, 0]);
});

test('expandStrings rebuilds each entry from the prefix it shares with the one before', () => {
  const strings = page.expandStrings(['Größe.a', 'b', 'x::y', 'z'], [0, 6, 0, 3]);
  assert.deepStrictEqual(plain(strings), ['Größe.a', 'Größe.b', 'x::y', 'x::z']);
});

test('thread names come from the expanded string table, not the shipped rests', () => {
  const data = profileData([{ stack: ['hot_major'], weight: 1 }], [['hot_pair', 7, 8]]);
  // As page_writer ships them: sorted, each after the prefix it shares with the one before.
  data.strings = ['all', 'hot_major', 'pair'];
  data.prefix = [0, 0, 4];
  data.nodes.name = [0, 1];
  data.threads.name = [2];
  const model = page.decodeProfile(data);
  assert.strictEqual(model.threads[0].name, 'hot_pair');
  assert.strictEqual(model.strings[2], 'hot_pair');
});

test('a thread in a container names it; one on the host has none', () => {
  const data = profileData([{ stack: ['f'], weight: 1 }], [['app', 1, 1], ['job', 2, 2]]);
  data.strings.push('4f1c0ffee');
  data.prefix.push(0);
  data.threads.container = [-1, data.strings.length - 1];
  const model = page.decodeProfile(data);
  assert.strictEqual(model.threads[0].container, '');
  assert.strictEqual(model.threads[1].container, '4f1c0ffee');
});
