'use strict';
// draw.js: the flame graph (root at the bottom) or icicle (root at the top) on a canvas. A pure
// function of the model and the view: it reads typed arrays, never the DOM, so node can drive it
// with a recording context.
//
// view: {width, height (CSS px), dpr, rowHeight, icicle, zoom (node whose subtree fills the
// width), scroll (rows hidden below the first), x, total (layoutNodes, weighNodes), matches
// (search.js; null for none), selected (a name id, or -1), charWidth (of the font), offCpu
// (per node, the off-CPU part of total; null when the view holds none), diff (--diff: {base,
// per node the base's total, and baseRoot, the base's whole}; null without a base)}.

const MERGED_COLOR = '#b8b8b8';  // runs of frames narrower than a device pixel
const MATCH_COLOR = '#e040fb';

// The first index of sorted `list` whose value is >= value.
function lowerBound(list, value) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// A colour of its own per name (the same on every load): warm for user code, blue for the
// kernel, violet for a frame mostly off the CPU (waiting).
function frameColor(name, kernel, offCpu) {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  const spread = (hash >>> 0) % 1000 / 1000;
  if (offCpu) return 'hsl(' + Math.round(260 + 25 * spread) + ',60%,' + Math.round(62 + 12 * spread) + '%)';
  if (kernel) return 'hsl(' + Math.round(200 + 30 * spread) + ',55%,' + Math.round(62 + 12 * spread) + '%)';
  return 'hsl(' + Math.round(10 + 40 * spread) + ',85%,' + Math.round(55 + 12 * spread) + '%)';
}

// The y of depth `depth`'s row, in CSS px.
function rowTop(model, view, depth) {
  const row = depth - view.scroll;
  return view.icicle ? row * view.rowHeight : view.height - (row + 1) * view.rowHeight;
}

// The on-screen span [left, right) of node i of the zoomed subtree, in CSS px.
function frameSpan(model, view, i) {
  const base = view.x[view.zoom];
  const scale = view.width / (view.total[view.zoom] || 1);
  return [(view.x[i] - base) * scale, (view.x[i] - base + view.total[i]) * scale];
}

// Draws every visible row; returns {rects, texts} drawn.
function drawFlame(ctx, model, rows, view) {
  const counts = { rects: 0, texts: 0 };
  ctx.setTransform(view.dpr, 0, 0, view.dpr, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, view.width, view.height);
  ctx.font = (view.rowHeight - 4) + 'px monospace';
  ctx.textBaseline = 'middle';
  const colors = view.colors || (view.colors = new Map());
  let fill = '';
  const setFill = (color) => { if (color !== fill) { ctx.fillStyle = color; fill = color; } };
  const box = (left, right, top, color) => {
    setFill(color);
    ctx.fillRect(left, top, Math.max(right - left - 0.5, 0.5), view.rowHeight - 1);
    counts.rects++;
  };
  const minWidth = 1 / view.dpr;
  for (let depth = 0; depth <= model.maxDepth; depth++) {
    const top = rowTop(model, view, depth);
    if (top + view.rowHeight < 0 || top > view.height) continue;
    if (depth < model.depth[view.zoom]) {
      let ancestor = view.zoom;
      while (model.depth[ancestor] > depth) ancestor = model.parent[ancestor];
      drawFrame(ancestor, 0, view.width, top);
      continue;
    }
    const row = rows[depth];
    const last = lowerBound(row, model.end[view.zoom]);
    let runLeft = -1;
    let runRight = -1;
    for (let k = lowerBound(row, view.zoom); k < last; k++) {
      const i = row[k];
      if (view.total[i] <= 0) continue;
      const [left, right] = frameSpan(model, view, i);
      if (left > view.width) break;
      if (right - left < minWidth) {
        // Merged with its neighbours into one grey block while they touch.
        if (runLeft >= 0 && left - runRight < minWidth) { runRight = right; continue; }
        if (runLeft >= 0) box(runLeft, Math.max(runRight, runLeft + minWidth), top, MERGED_COLOR);
        runLeft = left;
        runRight = right;
        continue;
      }
      if (runLeft >= 0) box(runLeft, Math.max(runRight, runLeft + minWidth), top, MERGED_COLOR);
      runLeft = -1;
      drawFrame(i, left, right, top);
    }
    if (runLeft >= 0) box(runLeft, Math.max(runRight, runLeft + minWidth), top, MERGED_COLOR);
  }
  return counts;

  function drawFrame(i, left, right, top) {
    const name = model.name[i];
    let color;
    if (view.matches && view.matches[name]) {
      color = MATCH_COLOR;
    } else if (view.diff) {
      color = diffColor(view.total[i] / (view.total[0] || 1),
        view.diff.baseRoot > 0 ? view.diff.base[i] / view.diff.baseRoot : 0);
    } else {
      const off = view.offCpu !== null && view.offCpu !== undefined && 2 * view.offCpu[i] > view.total[i];
      const key = name * 4 + (model.kind[i] & 1) + (off ? 2 : 0);
      color = colors.get(key);
      if (!color) colors.set(key, color = frameColor(model.strings[name], model.kind[i] & 1, off));
    }
    box(left, right, top, color);
    if (view.selected === name) {
      ctx.strokeStyle = '#000000';
      ctx.strokeRect(left + 0.5, top + 0.5, Math.max(right - left - 1.5, 0.5), view.rowHeight - 2);
    }
    const room = Math.floor((right - left - 6) / view.charWidth);
    if (room < 3) return;
    const text = model.strings[name];
    setFill('#000000');
    ctx.fillText(text.length <= room ? text : text.slice(0, room - 1) + '…', left + 3,
                 top + view.rowHeight / 2);
    counts.texts++;
  }
}

// The node under (px, py) in CSS px, or -1.
function hitTest(model, rows, view, px, py) {
  if (px < 0 || px >= view.width) return -1;
  const row = view.icicle ? Math.floor(py / view.rowHeight)
                          : Math.floor((view.height - py) / view.rowHeight);
  const depth = row + view.scroll;
  if (row < 0 || depth > model.maxDepth) return -1;
  if (depth < model.depth[view.zoom]) {
    let ancestor = view.zoom;
    while (model.depth[ancestor] > depth) ancestor = model.parent[ancestor];
    return ancestor;
  }
  const list = rows[depth];
  let lo = lowerBound(list, view.zoom);
  let hi = lowerBound(list, model.end[view.zoom]);
  // The last node in [lo, hi) whose left edge is at or before px.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (frameSpan(model, view, list[mid])[0] <= px) lo = mid + 1; else hi = mid;
  }
  for (let k = lo - 1; k >= 0 && list[k] >= view.zoom; k--) {
    const i = list[k];
    if (view.total[i] <= 0) continue;
    const [left, right] = frameSpan(model, view, i);
    return px < right && right - left > 0 ? i : -1;
  }
  return -1;
}
