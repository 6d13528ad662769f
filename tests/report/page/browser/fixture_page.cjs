// fixture_page.cjs: a copy of a report page with test scripts added, and headless Chromium to
// open it. Used by check_page.cjs (tests) and bench/report/page_timings.cjs.
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const hash = (text) => "'sha256-" + crypto.createHash('sha256').update(text, 'utf8').digest('base64') + "'";

// `page` with `before` as a script ahead of the page's own and `after` as one at the end of the
// body, both allowed by their hashes in the page's CSP (nothing else is loosened).
function withFixtures(page, before, after) {
  const csp = /script-src ([^;"]+)/;
  if (!csp.test(page)) throw new Error('the page has no script-src');
  const pageScript = page.lastIndexOf('<script>');
  let out = page.slice(0, pageScript) + '<script>' + before + '</script>\n' + page.slice(pageScript);
  out = out.replace('</body>', '<script>' + after + '</script>\n</body>');
  return out.replace(csp, (all, sources) => 'script-src ' + sources + ' ' + hash(before) + ' ' + hash(after));
}

// Debian's chromium, headless, with a profile of its own under `dir`; console messages on stderr.
function runChromium(dir, args) {
  const run = spawnSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--user-data-dir=' + path.join(dir, 'profile'), '--enable-logging=stderr', '--v=0',
    '--window-size=1200,900', ...args], { encoding: 'utf8', timeout: 120000, maxBuffer: 256 << 20 });
  if (run.error) throw run.error;
  return run;
}

module.exports = { withFixtures, runChromium };
