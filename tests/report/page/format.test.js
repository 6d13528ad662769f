'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage } = require('./load_page.cjs');

const page = loadPage();

test('formatShare has two decimals, as the text summary and pprof -top', () => {
  assert.strictEqual(page.formatShare(1, 3), '33.33%');
  assert.strictEqual(page.formatShare(5, 0), '0.00%');
});

test('formatWeight picks a unit for time and separates thousands for counts', () => {
  assert.strictEqual(page.formatWeight(600e6, 'nanoseconds'), '600.00 ms');
  assert.strictEqual(page.formatWeight(2.5e9, 'nanoseconds'), '2.50 s');
  assert.strictEqual(page.formatWeight(1234567, 'count'), '1,234,567');
});
