// check_page.cjs PAGE [HOT_FUNCTION [OFF_CPU_FUNCTION]]: opens an arec report page in headless Chromium (Debian's
// `chromium`) as a user would, from file://, drives it, and prints one JSON object of what it
// saw: {summary, log, errors, resources, colours, screenshotColours}. After pprof's
// testfixture.js: a copy of the page gets two fixture scripts (and their hashes in its CSP):
// one before the page's script that catches every error, one after that drives the page and
// writes its findings into the DOM, which --dump-dom returns. Nothing here waits on a clock:
// the fixture runs synchronously right after the page's script.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { distinctColours } = require('./png_colours.cjs');
const { withFixtures, runChromium } = require('./fixture_page.cjs');

const [pagePath, hot = '', waiting = ''] = process.argv.slice(2);
const page = fs.readFileSync(pagePath, 'utf8');

// Catches what the page's own script does wrong, from its first line on.
const before = `'use strict';
window.__errors = [];
const note = (kind) => (...args) => window.__errors.push(kind + ': ' + args.map(String).join(' '));
console.error = note('console.error');
console.warn = note('console.warn');
window.addEventListener('error', (e) => window.__errors.push('error: ' + e.message));
window.addEventListener('unhandledrejection', (e) => window.__errors.push('rejection: ' + e.reason));
document.addEventListener('securitypolicyviolation', (e) =>
  window.__errors.push('csp: ' + e.violatedDirective + ' ' + e.blockedURI));
`;

// Drives the page once it has drawn, step by step, drawing after each step.
const after = `'use strict';
(() => {
  const hot = ${JSON.stringify(hot)};
  const waiting = ${JSON.stringify(waiting)};
  const log = [];
  const report = window.arecReport;
  const canvas = document.getElementById('flame');
  const out = document.createElement('pre');
  out.id = 'fixture-result';
  document.body.appendChild(out);
  // What was found so far is in the DOM at every step: a step that never ends still shows
  // where it stopped.
  const flush = (done) => {
    out.textContent = JSON.stringify({ log: log, errors: window.__errors, done: done });
  };
  // The page draws in an animation frame; headless Chromium gives those no fixed order
  // against --dump-dom, so the fixture draws pending changes at once, as that frame would.
  const frame = () => { report.drawNow(); flush(false); };
  const colours = () => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  };
  const click = (x, y) => {
    const box = canvas.getBoundingClientRect();
    const at = { clientX: box.left + x, clientY: box.top + y, bubbles: true };
    canvas.dispatchEvent(new MouseEvent('mousedown', at));
    canvas.dispatchEvent(new MouseEvent('mouseup', at));
    canvas.dispatchEvent(new MouseEvent('click', at));
  };
  const text = (id) => document.getElementById(id).textContent;
  function drive() {
    frame();
    log.push(['colours', colours()]);
    log.push(['drawn', Number(document.documentElement.dataset.drawn)]);
    log.push(['first-draw-ms', Number(document.documentElement.dataset.firstDrawMs)]);
    const spot = hot ? report.locate(hot) : null;
    log.push(['located', !!spot]);
    if (spot) {
      click(spot.x, spot.y);
      frame();
      const state = report.state();
      log.push(['zoomed', state.zoom[state.zoom.length - 1] || '', location.hash.includes('zoom=')]);
      log.push(['details', document.querySelector('#details h3') ? text('details').slice(0, 200) : '']);
      // Zoomed, the hot frame fills the width: its colour is at both edges of its row.
      const after = report.locate(hot);
      log.push(['zoomed-center', after ? Math.round(after.x) : -1, Math.round(canvas.clientWidth / 2)]);
    }
    const search = document.getElementById('search');
    search.value = hot ? hot.slice(0, 5) : '.';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    frame();
    log.push(['search', text('search-info'), report.state().q]);
    search.value = 'a(';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    log.push(['invalid-search', search.classList.contains('invalid'), text('search-info').startsWith('invalid')]);
    document.getElementById('reset').click();
    frame();
    log.push(['reset', report.state().zoom.length, report.state().q]);
    const threads = document.getElementById('thread');
    log.push(['threads', Array.from(threads.options, (o) => o.textContent)]);
    const totalBefore = text('total');
    if (threads.options.length > 1) {
      threads.selectedIndex = 1;
      threads.dispatchEvent(new Event('change', { bubbles: true }));
      frame();
      log.push(['thread-filter', report.state().thread, text('total'), totalBefore]);
      threads.selectedIndex = 0;
      threads.dispatchEvent(new Event('change', { bubbles: true }));
    }
    const lanes = document.querySelectorAll('.timeline canvas');
    if (lanes.length) {
      // A drag over the first timeline's second quarter weighs that time alone; a click clears it.
      const lane = lanes[0].getBoundingClientRect();
      const at = (share) => ({ clientX: lane.left + lane.width * share, clientY: lane.top + 5, bubbles: true });
      const before = text('total');
      lanes[0].dispatchEvent(new MouseEvent('mousedown', at(0.25)));
      window.dispatchEvent(new MouseEvent('mouseup', at(0.5)));
      frame();
      const range = report.state().range;
      log.push(['timeline', lanes.length, range ? range[1] - range[0] + 1 : 0, text('total') !== before,
                location.hash.includes('range=')]);
      lanes[0].dispatchEvent(new MouseEvent('mousedown', at(0.5)));
      window.dispatchEvent(new MouseEvent('mouseup', at(0.5)));
      log.push(['timeline-cleared', report.state().range === null, text('total') === before]);
    }
    log.push(['containers-hidden', document.getElementById('container').hidden]);
    const processes = document.getElementById('process');
    log.push(['processes', processes.hidden ? [] : Array.from(processes.options, (o) => o.textContent)]);
    if (!processes.hidden) {
      // The lightest process: whatever the heaviest holds (all of it, in a short recording),
      // the lightest holds less than all.
      const before = text('total');
      processes.selectedIndex = processes.options.length - 1;
      processes.dispatchEvent(new Event('change', { bubbles: true }));
      frame();
      log.push(['process-filter', report.state().pid === Number(processes.value), text('total') !== before]);
      processes.selectedIndex = 0;
      processes.dispatchEvent(new Event('change', { bubbles: true }));
    }
    const events = document.getElementById('event');
    log.push(['events', events.hidden ? [] : Array.from(events.options, (o) => o.textContent)]);
    if (!events.hidden && waiting) {
      events.value = '-2';  // on-CPU and off-CPU time together
      events.dispatchEvent(new Event('change', { bubbles: true }));
      frame();
      const spot = report.locate(waiting);
      const pixel = spot ? Array.from(canvas.getContext('2d').getImageData(
        Math.round(spot.x * devicePixelRatio), Math.round(spot.y * devicePixelRatio), 1, 1).data.slice(0, 3)) : [];
      log.push(['wall', report.state().event, text('total'), pixel]);
      events.value = '0';
      events.dispatchEvent(new Event('change', { bubbles: true }));
      log.push(['on-cpu-only', report.state().event, report.locate(waiting) === null]);
    }
    if (report.model.events.some((event) => event.base)) {
      const spot = report.locate(hot);
      const pixel = spot ? Array.from(canvas.getContext('2d').getImageData(
        Math.round(spot.x * devicePixelRatio), Math.round(spot.y * devicePixelRatio), 1, 1).data.slice(0, 3)) : [];
      log.push(['diff', pixel, text('vanished').slice(0, 400)]);
    }
    document.getElementById('view-icicle').click();
    frame();
    log.push(['icicle', report.state().view, colours()]);
    document.getElementById('view-tree').click();
    log.push(['tree', document.querySelectorAll('.tree-line').length]);
    document.getElementById('view-bottomup').click();
    log.push(['bottomup', document.querySelectorAll('#bottomup tr').length,
              document.querySelector('#bottomup tr td.name') ? text('bottomup').includes(hot) : false]);
    // The fragment drives the view: a link's fragment, as the back button would restore it.
    history.replaceState(null, '', '#v=1&view=tree&q=hot');
    window.dispatchEvent(new PopStateEvent('popstate'));
    log.push(['fragment', report.state().view, report.state().q]);
    log.push(['markup-from-names', document.querySelectorAll('b, img, iframe').length]);
    log.push(['resources', performance.getEntriesByType('resource').length]);
  }
  flush(false);
  try {
    drive();
  } catch (e) {
    window.__errors.push('fixture: ' + e.stack);
  }
  flush(true);
})();
`;

const fixture = withFixtures(page, before, after);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arec-page-'));
try {
  const copy = path.join(dir, 'page.html');
  fs.writeFileSync(copy, fixture);
  const chromium = (extra) => runChromium(dir, extra);
  const run = chromium(['--dump-dom', 'file://' + copy]);
  if (run.error) throw run.error;
  const found = /<pre id="fixture-result">([\s\S]*?)<\/pre>/.exec(run.stdout);
  const result = found ? JSON.parse(found[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"').replace(/&amp;/g, '&')) : { log: [], errors: ['no fixture result'] };
  // Uncaught errors Chromium itself reports on the console (before any script could see them).
  for (const line of run.stderr.split('\n'))
    if (/CONSOLE[^\]]*\] "Uncaught|Refused to/.test(line)) result.errors.push(line);
  const summary = /<section id="summary">([\s\S]*?)<\/section>/.exec(run.stdout);
  result.summary = summary ? summary[1].replace(/<[^>]*>/g, '') : '';
  // A screenshot of the page as opened, without the fixture.
  const original = path.join(dir, 'original.html');
  fs.writeFileSync(original, page);
  const shot = path.join(dir, 'shot.png');
  const taken = chromium(['--screenshot=' + shot, 'file://' + original]);
  result.screenshotColours = fs.existsSync(shot) ? distinctColours(fs.readFileSync(shot)) : 0;
  if (!fs.existsSync(shot)) result.errors.push('no screenshot: ' + taken.stderr.slice(-2000));
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
