'use strict';
// timeline.js: per-thread timelines: each thread's weight in each time bucket, drawn as bars,
// and the bucket under a pointer. Pure: no DOM (the context is given).

// Weight per (thread, bucket) of the rows `keep(thread, event, bucket)` accepts: a Float64Array
// of threads × buckets, thread-major.
function bucketWeights(model, keep) {
  const buckets = Math.max(model.buckets, 1);
  const weights = new Float64Array(model.threads.length * buckets);
  for (let r = 0; r < model.rowNode.length; r++) {
    const thread = model.rowThread[r];
    const bucket = model.rowBucket[r];
    if (!keep || keep(thread, model.rowEvent[r], bucket)) weights[thread * buckets + bucket] += model.rowWeight[r];
  }
  return weights;
}

// One thread's bars: `weights` from `offset`, `buckets` of them, scaled to the heaviest `max`;
// buckets outside `range` ([first, last], or null for all) are grey.
function drawTimeline(ctx, weights, offset, buckets, max, width, height, dpr, range) {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#f4f4f4';
  ctx.fillRect(0, 0, width, height);
  const step = width / buckets;
  let fill = '';
  for (let b = 0; b < buckets; b++) {
    const weight = weights[offset + b];
    if (weight <= 0) continue;
    const color = !range || (b >= range[0] && b <= range[1]) ? '#e8762c' : '#b8b8b8';
    if (color !== fill) { ctx.fillStyle = color; fill = color; }
    const bar = Math.max(1, Math.round((weight / max) * (height - 2)));
    ctx.fillRect(b * step, height - bar, Math.max(step - 0.5, 0.5), bar);
  }
}

// The bucket at x (CSS px) of a timeline `width` wide, within [0, buckets - 1].
function bucketAt(x, width, buckets) {
  return Math.min(buckets - 1, Math.max(0, Math.floor((x / width) * buckets)));
}
