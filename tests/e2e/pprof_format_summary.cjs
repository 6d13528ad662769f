// pprof_format_summary.cjs FILE.pb.gz [LEAF]: decodes a gzipped pprof with npm's pprof-format (an
// implementation independent of Go's and of protobuf's) and prints what the export tests
// compare: the sample types, the total of the "*_samples" values, and those totals per comm and
// per tid label, and the profile's window (timeNanos, durationNanos: strings, as 64-bit values
// do not fit a JSON number), as one JSON object. With LEAF, also the samples whose leaf frame's
// function name contains it (leafMatches: the leaf location's last line, the function the others
// are inlined into; innermostMatches: its first line, the innermost inlined function) and, per sample type, the sum of their values
// (leafTotals: "offcpu-time/nanoseconds" -> N), and their counts by the function right above
// the leaf (leafCallers: "stage" -> N), and by the source file and line of the leaf and of its
// caller where the profile has them (leafLines, callerLines: "/path/hot.js:4" -> N); and
// buildIds, the mapped files' build-ids.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const profile = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const strings = profile.stringTable.strings;
const types = profile.sampleType.map((t) => `${strings[Number(t.type)]}/${strings[Number(t.unit)]}`);
const counted = types.map((t) => t.split('/')[0].endsWith('_samples'));
const summary = {
  types, samples: 0, byComm: {}, byTid: {}, locations: profile.location.length,
  timeNanos: String(profile.timeNanos), durationNanos: String(profile.durationNanos),
  leafMatches: 0, innermostMatches: 0, leafTotals: {}, leafCallers: {}, leafLines: {},
  callerLines: {},
};
const leaf = process.argv[3];
const locations = new Map(profile.location.map((l) => [Number(l.id), l]));
const functions = new Map(profile.function.map((f) => [Number(f.id), f]));
function leafName(sample, depth = 0, innermost = false) {
  const location = locations.get(Number(sample.locationId[depth]));
  if (!location || location.line.length === 0) return '';
  const line = location.line[innermost ? 0 : location.line.length - 1];
  const fn = functions.get(Number(line.functionId));
  return fn ? strings[Number(fn.name)] : '';
}
// "file:line" of the sample's frame at `depth` (the function the others are inlined into), or ''.
function lineAt(sample, depth = 0) {
  const location = locations.get(Number(sample.locationId[depth]));
  if (!location || location.line.length === 0) return '';
  const line = location.line[location.line.length - 1];
  const fn = functions.get(Number(line.functionId));
  return fn && Number(line.line) > 0 ? `${strings[Number(fn.filename)]}:${Number(line.line)}` : '';
}
for (const sample of profile.sample) {
  let count = 0;
  sample.value.forEach((v, i) => { if (counted[i]) count += Number(v); });
  summary.samples += count;
  if (leaf && sample.locationId.length > 0 && leafName(sample, 0, true).includes(leaf))
    summary.innermostMatches += count;
  if (leaf && sample.locationId.length > 0 && leafName(sample).includes(leaf)) {
    summary.leafMatches += count;
    const where = lineAt(sample);
    if (where) summary.leafLines[where] = (summary.leafLines[where] || 0) + count;
    const caller = sample.locationId.length > 1 ? lineAt(sample, 1) : '';
    if (caller) summary.callerLines[caller] = (summary.callerLines[caller] || 0) + count;
    if (sample.locationId.length > 1) {
      const caller = leafName(sample, 1);
      summary.leafCallers[caller] = (summary.leafCallers[caller] || 0) + count;
    }
    sample.value.forEach((v, i) => { summary.leafTotals[types[i]] = (summary.leafTotals[types[i]] || 0) + Number(v); });
  }
  for (const label of sample.label) {
    const key = strings[Number(label.key)];
    if (key === 'comm') {
      const comm = strings[Number(label.str)];
      summary.byComm[comm] = (summary.byComm[comm] || 0) + count;
    } else if (key === 'tid') {
      summary.byTid[Number(label.num)] = (summary.byTid[Number(label.num)] || 0) + count;
    }
  }
}
// The mapped files and their build-ids: "file": "buildid".
summary.buildIds = Object.fromEntries(profile.mapping.map(
  (m) => [strings[Number(m.filename)], strings[Number(m.buildId)]]));
process.stdout.write(JSON.stringify(summary) + '\n');
