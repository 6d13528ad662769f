// pprof_format_summary.cjs FILE.pb.gz: decodes a gzipped pprof with npm's pprof-format (an
// implementation independent of Go's and of protobuf's) and prints what the export tests
// compare: the sample types, the total of the "*_samples" values, and those totals per comm and
// per tid label, and the profile's window (timeNanos, durationNanos: strings, as 64-bit values
// do not fit a JSON number), as one JSON object.
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
};
for (const sample of profile.sample) {
  let count = 0;
  sample.value.forEach((v, i) => { if (counted[i]) count += Number(v); });
  summary.samples += count;
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
process.stdout.write(JSON.stringify(summary) + '\n');
