'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData, plain } = require('./load_page.cjs');

const page = loadPage();
const events = [['cpu-clock', 'nanoseconds'], ['offcpu-time', 'nanoseconds'],
  ['cpu-clock', 'nanoseconds'], ['offcpu-time', 'nanoseconds']];

function diffModel() {
  const data = profileData([
    { stack: ['main', 'kept'], weight: 50, event: 0 },
    { stack: ['main', 'new'], weight: 50, event: 0 },
    { stack: ['main', 'kept'], weight: 10, event: 2 },
    { stack: ['main', 'old', 'deeper'], weight: 30, event: 2 },
  ], [['app', 1, 1]], events);
  data.events[2].base = true;
  data.events[3].base = true;
  return page.decodeProfile(data);
}

test('base events match the chosen ones by name and never stand for the profile', () => {
  const model = diffModel();
  assert.deepStrictEqual(plain(page.baseEventsFor(model, [0])), [2]);
  assert.deepStrictEqual(plain(page.baseEventsFor(model, [0, 1])), [2, 3]);
  assert.deepStrictEqual(plain(page.eventsOf(model, 2)), [0]);  // a base index falls back
  assert.deepStrictEqual(plain(page.eventsOf(model, -2)), [0, 1]);
});

test('vanishedPaths lists the outermost frames only the base has', () => {
  const model = diffModel();
  const now = page.weighNodes(model, (t, e) => e === 0).total;
  const base = page.weighNodes(model, (t, e) => e === 2).total;
  const gone = page.vanishedPaths(model, now, base);
  assert.deepStrictEqual(plain(gone.map((g) => [model.strings[model.name[g.node]], g.weight])), [['old', 30]]);
});

test('diffColor: new is red, grown red, shrunk blue, the same pale', () => {
  const hue = (color) => Number(/hsl\((\d+)/.exec(color)[1]);
  const lightness = (color) => Number(/(\d+)%\)$/.exec(color)[1]);
  assert.strictEqual(page.diffColor(0.5, 0), 'hsl(0,95%,45%)');
  assert.strictEqual(hue(page.diffColor(0.5, 0.25)), 0);
  assert.strictEqual(hue(page.diffColor(0.1, 0.25)), 220);
  assert.ok(lightness(page.diffColor(0.25, 0.25)) > lightness(page.diffColor(0.5, 0.25)));
});
