'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData, plain } = require('./load_page.cjs');

const page = loadPage();

function timedModel() {
  const data = profileData([
    { stack: ['main', 'early'], weight: 5, thread: 0 },
    { stack: ['main', 'late'], weight: 7, thread: 1 },
  ], [['app', 1, 1], ['app', 1, 2]]);
  // Rows are node-ordered: early (thread 0) in bucket 0, late (thread 1) in bucket 2.
  data.rows.bucket = [0, 2];
  data.buckets = 3;
  data.bucketNs = 1e8;
  return page.decodeProfile(data);
}

test('bucketWeights sums each thread per time bucket', () => {
  const model = timedModel();
  assert.deepStrictEqual(plain(Array.from(page.bucketWeights(model, null))), [5, 0, 0, 0, 0, 7]);
});

test('a time range filters every view through weighNodes', () => {
  const model = timedModel();
  const inRange = (thread, event, bucket) => bucket >= 1 && bucket <= 2;
  const weights = page.weighNodes(model, inRange);
  assert.strictEqual(weights.total[0], 7);
});

test('bucketAt maps a pointer to a bucket, clamped', () => {
  assert.strictEqual(page.bucketAt(0, 300, 100), 0);
  assert.strictEqual(page.bucketAt(150, 300, 100), 50);
  assert.strictEqual(page.bucketAt(400, 300, 100), 99);
});

test('drawTimeline greys the buckets outside the range', () => {
  const fills = [];
  const context = { setTransform() {}, set fillStyle(value) { fills.push(value); },
    fillRect(x) { fills.push(x); } };
  page.drawTimeline(context, Float64Array.from([1, 2, 3]), 0, 3, 3, 300, 18, 1, [1, 1]);
  // background, then bucket 0 grey, bucket 1 orange, bucket 2 grey
  assert.deepStrictEqual(fills.filter((f) => typeof f === 'string').slice(1), ['#b8b8b8', '#e8762c', '#b8b8b8']);
});
