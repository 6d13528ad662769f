'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadPage, profileData } = require('./load_page.cjs');

const page = loadPage();

// A 2D context that records what is drawn (Firefox's draw-log idea, without jest).
function recordingContext() {
  const log = [];
  return {
    log: log,
    set fillStyle(value) { log.push(['fillStyle', value]); },
    set strokeStyle(value) {}, set font(value) {}, set textBaseline(value) {},
    setTransform() {},
    fillRect(x, y, w, h) { log.push(['fillRect', x, y, w, h]); },
    strokeRect() {},
    fillText(text, x, y) { log.push(['fillText', text, x, y]); },
  };
}

function viewOf(model, width, icicle) {
  const weights = page.weighNodes(model, null);
  return { width: width, height: (model.maxDepth + 1) * 16, dpr: 1, rowHeight: 16,
    icicle: icicle, zoom: 0, scroll: 0, x: page.layoutNodes(model, weights.total),
    total: weights.total, matches: null, selected: -1, charWidth: 7 };
}

test('100,000 frames narrower than a pixel draw at most one box per pixel column', () => {
  const samples = [];
  for (let i = 0; i < 100000; i++) samples.push({ stack: ['main', 'f' + String(i).padStart(6, '0')], weight: 1 });
  const model = page.decodeProfile(profileData(samples));
  const context = recordingContext();
  const width = 800;
  page.drawFlame(context, model, page.nodesByDepth(model), viewOf(model, width, false));
  const boxes = context.log.filter((entry) => entry[0] === 'fillRect' && entry[2] === 0);
  assert.ok(boxes.length >= 1 && boxes.length <= width, 'boxes in the leaves row: ' + boxes.length);
});

test('the flame graph puts the root at the bottom, the icicle at the top', () => {
  const model = page.decodeProfile(profileData([{ stack: ['main', 'work'], weight: 1 }]));
  for (const icicle of [false, true]) {
    const context = recordingContext();
    const view = viewOf(model, 400, icicle);
    page.drawFlame(context, model, page.nodesByDepth(model), view);
    const rootText = context.log.find((entry) => entry[0] === 'fillText' && entry[1] === 'all');
    assert.ok(rootText, 'the root is labelled');
    assert.strictEqual(rootText[3], icicle ? 8 : view.height - 8);
  }
});

test('a name reaches the canvas only as text, cut with an ellipsis where it does not fit', () => {
  const long = '</script><b>' + 'x'.repeat(200);
  const model = page.decodeProfile(profileData([{ stack: [long], weight: 1 }]));
  const context = recordingContext();
  page.drawFlame(context, model, page.nodesByDepth(model), viewOf(model, 300, true));
  const text = context.log.find((entry) => entry[0] === 'fillText' && entry[1].startsWith('</script>'));
  assert.ok(text && text[1].endsWith('…') && text[1].length * 7 <= 300, String(text));
});

test('hitTest finds the frame under the pointer, in a zoomed view too', () => {
  const model = page.decodeProfile(profileData([
    { stack: ['main', 'a'], weight: 1 },
    { stack: ['main', 'b'], weight: 3 },
  ]));
  const rows = page.nodesByDepth(model);
  const view = viewOf(model, 400, true);
  const name = (node) => (node < 0 ? null : model.strings[model.name[node]]);
  assert.strictEqual(name(page.hitTest(model, rows, view, 50, 40)), 'a');   // a: 0-100 px
  assert.strictEqual(name(page.hitTest(model, rows, view, 150, 40)), 'b');  // b: 100-400 px
  assert.strictEqual(name(page.hitTest(model, rows, view, 150, 8)), 'all');
  assert.strictEqual(page.hitTest(model, rows, view, 150, 60), -1);         // below the leaves
  view.zoom = model.strings.indexOf('b') === -1 ? 0 : 3;  // node 3 is b (all, main, a, b)
  assert.strictEqual(name(page.hitTest(model, rows, view, 50, 40)), 'b');   // b fills the width now
  assert.strictEqual(name(page.hitTest(model, rows, view, 50, 24)), 'main');  // its ancestor
});

test('frames mostly off the CPU get a hue of their own', () => {
  const hue = (color) => Number(/hsl\((\d+)/.exec(color)[1]);
  assert.ok(hue(page.frameColor('read', false, true)) >= 260);
  assert.ok(hue(page.frameColor('read', false, false)) <= 50);
  assert.ok(hue(page.frameColor('read', true, false)) >= 200 && hue(page.frameColor('read', true, false)) < 260);
});
