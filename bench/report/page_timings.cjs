// page_timings.cjs PAGE [RUNS]: opens a report page in headless Chromium RUNS times (default 3)
// without virtual time and prints, per run, one JSON line of what the page measured itself:
// ready (navigation start to the end of the first draw: parse, decode, layout, draw),
// decode and first draw (the script's own part), a search and a zoom (input to drawn), the JS
// heap after them, and boxes drawn. A fixture script appended to a copy of the page drives it.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { withFixtures, runChromium } = require('../../tests/report/page/browser/fixture_page.cjs');

const [pagePath, runs = '3'] = process.argv.slice(2);
const after = `'use strict';
(() => {
  const root = document.documentElement;
  const report = window.arecReport;
  const result = { ready: Number(root.dataset.readyMs), decode: Number(root.dataset.decodeMs),
    firstDraw: Number(root.dataset.firstDrawMs), nodes: report.model.count,
    drawn: Number(root.dataset.drawn) };
  let begun = performance.now();
  const search = document.getElementById('search');
  search.value = 'engine1';
  search.dispatchEvent(new Event('input', { bubbles: true }));
  report.drawNow();
  result.search = performance.now() - begun;
  result.matched = document.getElementById('search-info').textContent;
  // Zoom into the heaviest frame two levels below the root: a click at its centre. (The page's
  // functions are the window's: its script is a classic one.)
  const model = report.model;
  const total = weighNodes(model, null).total;
  let target = -1;
  for (let i = 1; i < model.count; i++)
    if (model.depth[i] === 2 && (target < 0 || total[i] > total[target])) target = i;
  const name = model.strings[model.name[target]];
  const spot = report.locate(name);
  const canvas = document.getElementById('flame');
  const box = canvas.getBoundingClientRect();
  const at = { clientX: box.left + spot.x, clientY: box.top + spot.y, bubbles: true };
  begun = performance.now();
  canvas.dispatchEvent(new MouseEvent('mousedown', at));
  canvas.dispatchEvent(new MouseEvent('click', at));
  report.drawNow();
  result.zoom = performance.now() - begun;
  result.zoomed = report.state().zoom.length;
  result.heapMB = performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1;
  const out = document.createElement('pre');
  out.id = 'timings';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arec-page-bench-'));
try {
  const copy = path.join(dir, 'page.html');
  fs.writeFileSync(copy, withFixtures(fs.readFileSync(pagePath, 'utf8'), '', after));
  for (let run = 0; run < Number(runs); run++) {
    const done = runChromium(dir, ['--enable-precise-memory-info', '--dump-dom', 'file://' + copy]);
    const found = /<pre id="timings">([\s\S]*?)<\/pre>/.exec(done.stdout);
    process.stdout.write((found ? found[1] : '{"error":"no timings"}') + '\n');
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
