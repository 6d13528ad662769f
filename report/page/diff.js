'use strict';
// diff.js: `arec report --diff BASE`: how each frame's share changed from the base profile's,
// and what the base had that the profile has not. Shares are each of its own profile's total,
// so two recordings of different lengths compare. Pure: no DOM.

// The base events that match `events` (the profile's, by index) by name.
function baseEventsFor(model, events) {
  const names = new Set(events.map((event) => model.events[event].name));
  const matching = [];
  model.events.forEach((event, i) => { if (event.base && names.has(event.name)) matching.push(i); });
  return matching;
}

const DIFF_FULL = 0.05;  // five points of the whole: the strongest colour

// A frame's colour from its share now and in the base: new (the base has none of it) bright
// red, grown red and shrunk blue the stronger the more points it moved, unchanged pale.
function diffColor(share, baseShare) {
  if (baseShare === 0) return 'hsl(0,95%,45%)';
  const delta = share - baseShare;
  const strength = Math.min(1, Math.abs(delta) / DIFF_FULL);
  const lightness = Math.round(88 - 33 * strength);
  return (delta >= 0 ? 'hsl(0,75%,' : 'hsl(220,75%,') + lightness + '%)';
}

// The outermost frames the base weighs and the profile does not (gone): [{node, weight}],
// heaviest first; their subtrees are gone with them.
function vanishedPaths(model, total, base) {
  const gone = [];
  for (let i = 1; i < model.count;) {
    if (total[i] === 0 && base[i] > 0) {
      gone.push({ node: i, weight: base[i] });
      i = model.end[i];
    } else {
      i++;
    }
  }
  return gone.sort((a, b) => b.weight - a.weight || a.node - b.node);
}
