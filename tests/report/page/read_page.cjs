// read_page.cjs PAGE: reads an arec report page as the browser would parse its two script
// elements, checks that the CSP's hash allows the script, runs decode.js on the data block and
// prints each string (as JSON with \u escapes for non-ASCII-safe comparison), the node count and
// the total. Used by tests/report/page_writer_test.cpp (C++ writes, JavaScript reads).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const vm = require('node:vm');

const page = fs.readFileSync(process.argv[2], 'utf8');
const data = /<script type="application\/json" id="profile">([\s\S]*?)<\/script>/.exec(page);
const script = /<script>([\s\S]*?)<\/script>/.exec(page);
if (!data || !script) throw new Error('the page has no data block or no script');
const context = vm.createContext({});
vm.runInContext(script[1], context);
const model = context.decodeProfile(JSON.parse(data[1]));
const total = context.weighNodes(model, null).total[0];
const escape = (text) => JSON.stringify(text)
  .replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  .replace(/[\u0000-\u001f]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  .replace(/\\[nrtbf]/g, (c) => '\\u00' + { n: '0a', r: '0d', t: '09', b: '08', f: '0c' }[c[1]]);
let out = '';
for (const name of model.strings) out += escape(name) + '\n';
out += 'nodes ' + model.count + '\ntotal ' + total + '\n';
const hash = crypto.createHash('sha256').update(script[1], 'utf8').digest('base64');
out += page.includes("script-src 'sha256-" + hash + "'") ? 'csp script hash ok\n' : 'csp script hash WRONG\n';
process.stdout.write(out);
