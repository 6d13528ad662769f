// otlp_profiles_summary.cjs FILE [LEAF]: decodes an OTLP profiles request (an
// opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest; gunzipped
// first when FILE starts with 1f 8b) and prints what the export tests compare, as one JSON
// object: per resource its attributes and per scope its name and version; per profile the sample
// and period types ("type/unit"), the period, the window (timeUnixNano, durationNano: strings, as
// 64-bit values do not fit a JSON number), the number of samples, the total of their values (a
// sample without values counts 1 per timestamp) and that total per thread.name, process.pid,
// thread.id and container.id attribute; the mappings' files and GNU build ids; the dictionary's
// table sizes; totals: per "type/unit", the total over every profile; and `problems`, the rules the request breaks (an element 0 that is not the zero
// value, an index out of range, a sample of neither values nor timestamps). With LEAF, also
// leafTotals: per "type/unit", the total of the samples whose leaf frame's function name
// contains LEAF.
// A second decoder: npm's protobufjs (found through NODE_PATH), not protoc's libprotobuf that
// arec and the stand-in server use, reading the schema arec pins (export/otlp/*.proto, the field
// numbers of opentelemetry-proto v1.11.0; docs/fleet.md says how they were checked against the
// release's own files), or the .proto files under $OTLP_PROTO_DIR. No npm package ships the
// v1.10+ profiles definitions (@opentelemetry/otlp-transformer has no profiles at all), and the
// machines the tests run on reach the npm registry but not GitHub.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const protobuf = require('protobufjs');

const protoDir = process.env.OTLP_PROTO_DIR || path.join(__dirname, '..', '..');
const protos = ['export/otlp/common.proto', 'export/otlp/resource.proto',
  'export/otlp/profiles.proto', 'export/otlp/profiles_service.proto'];
// Without long.js, protobufjs decodes 64-bit fields to doubles and times would lose digits.
if (!protobuf.util.Long) throw new Error('protobufjs cannot find long.js');
const root = new protobuf.Root();
root.resolvePath = (origin, target) => path.join(protoDir, target);
root.loadSync(protos, { keepCase: true });
const Request = root.lookupType(
  'opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest');
const Dictionary = root.lookupType('opentelemetry.proto.profiles.v1development.ProfilesDictionary');

let bytes = fs.readFileSync(process.argv[2]);
if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
const request = Request.decode(bytes);
const dict = request.dictionary || Dictionary.create();
const tables = ['mapping_table', 'location_table', 'function_table', 'link_table', 'string_table',
  'attribute_table', 'stack_table'];
const leaf = process.argv[3];
const problems = [];
let unlisted = 0;
const problem = (text) => (problems.length < 50 ? problems.push(text) : unlisted++);
const json = (b) => (b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : String(b));
// An index 0 into an empty table is reported once, as that table's missing element 0.
function inRange(what, index, table) {
  if (index >= 0 && index < table.length) return true;
  if (index !== 0) problem(`${what} ${index} is out of range (${table.length})`);
  return false;
}
const str = (what, i) => (inRange(what, i, dict.string_table) ? dict.string_table[i] : '');
function show(any) {
  const kind = any ? any.value : undefined; // the name of the AnyValue oneof member set
  if (!kind) return '';
  if (kind === 'bytes_value') return Buffer.from(any.bytes_value).toString('hex');
  if (kind === 'array_value' || kind === 'kvlist_value') return JSON.stringify(any[kind]);
  return String(any[kind]);
}
function attribute(what, i) {
  if (!inRange(what, i, dict.attribute_table)) return ['', ''];
  const kv = dict.attribute_table[i];
  return [str(`attribute_table[${i}].key_strindex`, kv.key_strindex), show(kv.value)];
}
// The zero value of a message: every field at its default, and (for Link) ids of zero bytes.
function isZero(type, msg) {
  return type.fieldsArray.every((field) => {
    const v = msg[field.name];
    if (field.repeated) return v.length === 0;
    if (field.type === 'bytes') return v.every((b) => b === 0);
    if (field.resolvedType instanceof protobuf.Type) return !v || isZero(field.resolvedType, v);
    return typeof v === 'object' && v !== null ? v.isZero() : !v; // a Long, or a plain scalar
  });
}
for (const table of tables) {
  const rows = dict[table];
  const zero = table === 'string_table' ? rows[0] === ''
    : rows.length > 0 && isZero(Dictionary.fields[table].resolvedType, rows[0]);
  if (!zero) problem(`${table}[0] is ${rows.length ? 'not the zero value' : 'missing'}`);
}
const indices = (what, list, table) => list.forEach((i) => inRange(what, i, table));
dict.mapping_table.forEach((m, i) => {
  inRange(`mapping_table[${i}].filename_strindex`, m.filename_strindex, dict.string_table);
  indices(`mapping_table[${i}].attribute_indices`, m.attribute_indices, dict.attribute_table);
});
dict.location_table.forEach((l, i) => {
  inRange(`location_table[${i}].mapping_index`, l.mapping_index, dict.mapping_table);
  indices(`location_table[${i}].lines function_index`, l.lines.map((line) => line.function_index),
    dict.function_table);
  indices(`location_table[${i}].attribute_indices`, l.attribute_indices, dict.attribute_table);
});
dict.function_table.forEach((f, i) => indices(`function_table[${i}] strindex`,
  [f.name_strindex, f.system_name_strindex, f.filename_strindex], dict.string_table));
dict.attribute_table.forEach((a, i) => indices(`attribute_table[${i}] strindex`,
  [a.key_strindex, a.unit_strindex], dict.string_table));
dict.stack_table.forEach((s, i) => indices(`stack_table[${i}].location_indices`,
  s.location_indices, dict.location_table));

function leafName(sample) {
  const stack = dict.stack_table[sample.stack_index];
  const location = stack && dict.location_table[stack.location_indices[0]];
  if (!location || location.lines.length === 0) return '';
  const fn = dict.function_table[location.lines[location.lines.length - 1].function_index];
  return (fn && dict.string_table[fn.name_strindex]) || '';
}
const keys = ['thread.name', 'process.pid', 'thread.id', 'container.id'];
const leafTotals = {};
const totals = {};  // per "type/unit", over every profile of the request
let profiles = 0;
function summarize(profile) {
  const at = `profile ${profiles++}`;
  const type = (t, what) => (t ? `${str(`${at} ${what} type`, t.type_strindex)}/${
    str(`${at} ${what} unit`, t.unit_strindex)}` : '');
  const sampleType = type(profile.sample_type, 'sample_type');
  const byAttribute = Object.fromEntries(keys.map((k) => [k, {}]));
  let total = 0n;
  indices(`${at} attribute_indices`, profile.attribute_indices, dict.attribute_table);
  profile.samples.forEach((sample, i) => {
    const { values, timestamps_unix_nano: times } = sample;
    inRange(`${at} sample ${i} stack_index`, sample.stack_index, dict.stack_table);
    inRange(`${at} sample ${i} link_index`, sample.link_index, dict.link_table);
    if (values.length + times.length === 0) problem(`${at} sample ${i}: no values nor timestamps`);
    if (values.length && times.length && values.length !== times.length) {
      problem(`${at} sample ${i}: ${values.length} values but ${times.length} timestamps`);
    }
    // A sample of timestamps only counts 1 per timestamp.
    const count = values.length ? values.reduce((sum, v) => sum + BigInt(String(v)), 0n)
      : BigInt(times.length);
    total += count;
    for (const a of sample.attribute_indices) {
      const [key, value] = attribute(`${at} sample ${i} attribute_indices`, a);
      if (byAttribute[key]) byAttribute[key][value] = (byAttribute[key][value] || 0n) + count;
    }
    if (leaf && leafName(sample).includes(leaf)) {
      leafTotals[sampleType] = (leafTotals[sampleType] || 0n) + count;
    }
  });
  for (const k of keys) for (const v in byAttribute[k]) byAttribute[k][v] = json(byAttribute[k][v]);
  totals[sampleType] = (totals[sampleType] || 0n) + total;
  return {
    sampleType, periodType: type(profile.period_type, 'period_type'),
    period: String(profile.period), timeUnixNano: String(profile.time_unix_nano),
    durationNano: String(profile.duration_nano),
    samples: profile.samples.length, total: json(total), byAttribute,
  };
}
const buildIdKey = 'process.executable.build_id.gnu';
const summary = {
  resources: request.resource_profiles.map((rp) => ({
    attributes: Object.fromEntries((rp.resource ? rp.resource.attributes : [])
      .map((kv) => [kv.key, show(kv.value)])),
    scopes: rp.scope_profiles.map((sp) => ({
      name: sp.scope ? sp.scope.name : '', version: sp.scope ? sp.scope.version : '',
      profiles: sp.profiles.map(summarize),
    })),
  })),
  mappings: dict.mapping_table.slice(1).map((m) => ({
    file: dict.string_table[m.filename_strindex] || '',
    buildId: show((m.attribute_indices.map((i) => dict.attribute_table[i])
      .find((kv) => kv && dict.string_table[kv.key_strindex] === buildIdKey) || {}).value),
  })),
  tables: Object.fromEntries(tables.map((t) => [t, dict[t].length])),
  totals: Object.fromEntries(Object.entries(totals).map(([t, v]) => [t, json(v)])),
  leafTotals: Object.fromEntries(Object.entries(leafTotals).map(([t, v]) => [t, json(v)])),
  problems: unlisted ? [...problems, `and ${unlisted} more`] : problems,
};
process.stdout.write(JSON.stringify(summary) + '\n');
