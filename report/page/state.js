'use strict';
// state.js: the view's state in the URL fragment, so a link reopens the same view. Pure: no DOM.
// Keys: v (1), view (flame, icicle, tree, bottomup), q (search), zoom (names from the root,
// joined by '\n' so a link survives another export's ids), container (an id), pid (a process),
// thread (index, or all), fn (the
// function whose callers and callees are shown), event (an event's index, or "both": on-CPU
// and off-CPU time together), range (the first and last time bucket the views weigh, "3-17").
// Unknown or invalid values fall back to defaults.

const VIEWS = ['flame', 'icicle', 'tree', 'bottomup'];

function defaultState() {
  return { view: 'flame', q: '', zoom: [], container: '', pid: -1, thread: -1, fn: '', event: -1,
    range: null };
}

function parseState(hash) {
  const state = defaultState();
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  if (params.get('v') !== '1') return state;
  if (VIEWS.includes(params.get('view'))) state.view = params.get('view');
  state.q = params.get('q') || '';
  const zoom = params.get('zoom');
  state.zoom = zoom ? zoom.split('\n') : [];
  const thread = Number(params.get('thread'));
  if (params.has('thread') && Number.isInteger(thread) && thread >= 0) state.thread = thread;
  state.container = params.get('container') || '';
  const pid = Number(params.get('pid'));
  if (params.has('pid') && Number.isInteger(pid) && pid >= 0) state.pid = pid;
  state.fn = params.get('fn') || '';
  const event = params.get('event');
  if (event === 'both') state.event = -2;
  else if (event !== null && /^\d+$/.test(event)) state.event = Number(event);
  const range = /^(\d+)-(\d+)$/.exec(params.get('range') || '');
  if (range && Number(range[1]) <= Number(range[2])) state.range = [Number(range[1]), Number(range[2])];
  return state;
}

function formatState(state) {
  const params = new URLSearchParams();
  params.set('v', '1');
  params.set('view', state.view);
  if (state.q) params.set('q', state.q);
  if (state.zoom.length) params.set('zoom', state.zoom.join('\n'));
  if (state.container) params.set('container', state.container);
  if (state.pid >= 0) params.set('pid', String(state.pid));
  if (state.thread >= 0) params.set('thread', String(state.thread));
  if (state.fn) params.set('fn', state.fn);
  if (state.event === -2) params.set('event', 'both');
  else if (state.event >= 0) params.set('event', String(state.event));
  if (state.range) params.set('range', state.range[0] + '-' + state.range[1]);
  return '#' + params.toString();
}
