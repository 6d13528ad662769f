'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData } = require('./load_page.cjs');

const page = loadPage();

test('compileSearch says why a pattern is invalid instead of throwing', () => {
  assert.strictEqual(page.compileSearch('').regex, null);
  const bad = page.compileSearch('a(');
  assert.strictEqual(bad.regex, null);
  assert.match(bad.error, /Invalid regular expression/);
  assert.ok(page.compileSearch('^hot_').regex.test('hot_major'));
});

test('matchedWeight counts each sample once: outermost matches only', () => {
  const model = page.decodeProfile(profileData([
    { stack: ['main', 'lock', 'lock_slow', 'spin'], weight: 5 },
    { stack: ['main', 'work'], weight: 15 },
  ]));
  const total = page.weighNodes(model, null).total;
  const matches = page.matchNames(model.strings, /lock/);
  assert.strictEqual(page.matchedWeight(model, total, matches, 0), 5);
  assert.strictEqual(page.matchedWeight(model, total, page.matchNames(model.strings, /./), 0), 20);
  assert.strictEqual(page.matchedWeight(model, total, page.matchNames(model.strings, /nothing/), 0), 0);
});

test('quoteRegex matches exactly the name, metacharacters and all', () => {
  const name = 'std::vector<int>::operator[](unsigned long) (*)$';
  const regex = new RegExp(page.quoteRegex(name));
  assert.ok(regex.test(name));
  assert.ok(!regex.test(name + 'x'));
});
