'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, plain } = require('./load_page.cjs');

const page = loadPage();

test('formatState and parseState round trip, hostile names included', () => {
  const state = { view: 'icicle', q: 'a&b=c#d', zoom: ['main', '</script>', 'a b'], container: 'c0ffee', pid: 42, thread: 3, fn: 'x\ny',
    event: -2, range: [3, 17] };
  assert.deepStrictEqual(plain(page.parseState(page.formatState(state))), state);
});

test('defaults for an empty, foreign or invalid fragment', () => {
  const defaults = plain(page.defaultState());
  assert.deepStrictEqual(plain(page.parseState('')), defaults);
  assert.deepStrictEqual(plain(page.parseState('#view=tree')), defaults);  // no v=1
  const odd = plain(page.parseState('#v=1&view=nonsense&thread=-2&zoom='));
  assert.deepStrictEqual(odd, defaults);
});

test('the default state formats to a short fragment', () => {
  assert.strictEqual(page.formatState(page.defaultState()), '#v=1&view=flame');
});

test('event: an index or both; anything else is the default', () => {
  assert.strictEqual(page.parseState('#v=1&event=1').event, 1);
  assert.strictEqual(page.parseState('#v=1&event=both').event, -2);
  assert.strictEqual(page.parseState('#v=1&event=-3').event, -1);
});
