'use strict';
// main.js: the page's state and wiring: decodes the profile, keeps the view in the URL
// fragment, draws on demand (one animation frame per burst of changes), and answers input.

const ROW_HEIGHT = 16;
const CLICK_SLOP = 3;  // px the pointer may move between press and release for a click
const LANES_SHOWN = 12;  // timelines: the heaviest threads

// Appends an option to `select`; its text is a name others chose, so it is text only.
function addOption(select, value, text) {
  const made = select.ownerDocument.createElement('option');
  made.value = String(value);
  made.textContent = text;
  select.appendChild(made);
}

function startReport(document, window) {
  const started = performance.now();
  const root = document.documentElement;
  const find = (id) => {
    const found = document.getElementById(id);
    if (!found) throw new Error('the page has no #' + id);
    return found;
  };
  const model = decodeProfile(JSON.parse(find('profile').textContent));
  const rows = nodesByDepth(model);
  const nameIds = new Map(model.strings.map((name, id) => [name, id]));
  root.dataset.decodeMs = (performance.now() - started).toFixed(1);
  root.dataset.nodes = String(model.count);

  // Fields.
  const canvas = find('flame');
  const context = canvas.getContext('2d');
  const search = find('search');
  const threadSelect = find('thread');
  const processSelect = find('process');
  const containerSelect = find('container');
  const eventSelect = find('event');
  let state = parseState(window.location.hash);
  let weights = null;     // weighNodes for the chosen threads
  let x = null;           // layoutNodes of weights
  let functions = null;   // functionWeights of weights
  let weighed = null;     // the thread and event choice weights were summed for
  let searched = null;    // the search and weights `matches` and its share were made for
  let offCpu = null;      // per node, the off-CPU part of weights.total; null when none
  let unit = model.unit;  // of the weights shown
  let base = null;        // --diff: per node, the base's total for the same choice; else null
  let threadOrder = [];   // the profile's threads, heaviest first
  let lanes = [];         // the timelines drawn: [{thread, canvas}]
  let laneWeights = null; // bucketWeights of the chosen events, every bucket
  let laneMax = 0;        // the heaviest bucket of the threads drawn
  let dragging = null;    // {canvas, x}: where a drag on a timeline began
  const diffing = model.events.some((event) => event.base);
  let matches = null;     // matchNames of the search, or null
  let zoom = 0;           // the node filling the width
  let selected = -1;      // the name id whose callers and callees are shown
  let scroll = 0;         // rows scrolled past
  let drawPending = false;
  let view = null;        // what the last draw drew, for hit tests
  let pressed = null;     // where the pointer went down on the canvas
  context.font = (ROW_HEIGHT - 4) + 'px monospace';
  const charWidth = context.measureText('M').width || 7;

  document.title = 'arec report: ' + (model.facts.command || model.facts.inputs.join(' '));
  find('title').textContent = model.facts.command || model.facts.inputs.join(' ');
  fillThreads();
  fillEvents();
  fillTimelines();
  applyState();
  draw();
  root.dataset.firstDrawMs = (performance.now() - started).toFixed(1);
  root.dataset.readyMs = performance.now().toFixed(1);  // since navigation began
  listen();
  // For tests and the bench: the model, where a frame is, the state, and a draw now.
  window.arecReport = { model: model, locate: locate, state: () => state, drawNow: draw };

  // The profile's threads, heaviest first (a --diff base's own threads are not choices: a
  // chosen thread is compared with the base's threads of the same name).
  function fillThreads() {
    // Shares of the default event's weight; a thread with only other events' is listed too.
    const perThread = new Float64Array(model.threads.length);
    const listed = new Uint8Array(model.threads.length);
    for (let r = 0; r < model.rowThread.length; r++) {
      const event = model.rowEvent[r];
      if (model.events[event].base) continue;
      listed[model.rowThread[r]] = 1;
      if (event === model.defaultEvent) perThread[model.rowThread[r]] += model.rowWeight[r];
    }
    const all = perThread.reduce((sum, weight) => sum + weight, 0);
    const shown = Array.from(model.threads.keys()).filter((t) => listed[t])
      .sort((a, b) => perThread[b] - perThread[a]);
    threadOrder = shown;
    addOption(threadSelect, -1, 'all threads (' + shown.length + ')');
    shown.forEach((t) => {
      const thread = model.threads[t];
      addOption(threadSelect, t, thread.name + ' ' + thread.pid + '/' + thread.tid + ' (' +
        formatShare(perThread[t], all) + ')');
    });
    // Processes: their threads' weights together, named by the heaviest thread's comm.
    const processes = new Map();
    for (const t of shown) {
      const thread = model.threads[t];
      const known = processes.get(thread.pid) || { name: thread.name, weight: 0, threads: 0 };
      known.weight += perThread[t];
      known.threads++;
      processes.set(thread.pid, known);
    }
    addOption(processSelect, -1, 'all processes (' + processes.size + ')');
    Array.from(processes).sort((a, b) => b[1].weight - a[1].weight).forEach(([pid, known]) =>
      addOption(processSelect, pid, known.name + ' ' + pid + ' (' + known.threads + ' threads, ' +
        formatShare(known.weight, all) + ')'));
    processSelect.hidden = processes.size < 2;
    // Containers: their processes' weights together; shown when a thread ran in one.
    const containers = new Map();
    for (const t of shown) {
      const id = model.threads[t].container;
      if (id) containers.set(id, (containers.get(id) || 0) + perThread[t]);
    }
    addOption(containerSelect, '', 'all containers and the host (' + containers.size + ' containers)');
    Array.from(containers).sort((a, b) => b[1] - a[1]).forEach(([id, weight]) =>
      addOption(containerSelect, id, 'container ' + id.slice(0, 12) + ' (' + formatShare(weight, all) + ')'));
    containerSelect.hidden = containers.size === 0;
  }

  // One option per event, and on-CPU and off-CPU time together when the recording has both;
  // no selector for a recording of one event.
  function fillEvents() {
    model.events.forEach((event, i) => {
      if (!event.base) addOption(eventSelect, i, event.name + (isOffCpu(model, i) ? ' (off-CPU)' : ''));
    });
    if (eventsOf(model, -2).length > 1) addOption(eventSelect, -2, 'on-CPU + off-CPU (wall time)');
    eventSelect.hidden = eventSelect.options.length < 2;
  }

  // A timeline per thread (the heaviest), for a recording whose samples carry their time.
  function fillTimelines() {
    const section = find('timelines');
    if (model.buckets < 2) return;
    section.hidden = false;
    const heading = document.createElement('div');
    heading.id = 'range';
    section.appendChild(heading);
    for (const thread of threadOrder.slice(0, LANES_SHOWN)) {
      const lane = document.createElement('div');
      lane.className = 'timeline';
      const label = document.createElement('span');
      const named = model.threads[thread];
      label.textContent = named.name + ' ' + named.pid + '/' + named.tid;
      const laneCanvas = document.createElement('canvas');
      lane.appendChild(label);
      lane.appendChild(laneCanvas);
      section.appendChild(lane);
      lanes.push({ thread: thread, canvas: laneCanvas });
      laneCanvas.addEventListener('mousedown', (event) => {
        dragging = { canvas: laneCanvas, x: event.clientX - laneCanvas.getBoundingClientRect().left };
        event.preventDefault();
      });
    }
  }

  // The time the range covers, in words; the whole recording when there is none.
  function describeRange(range) {
    const seconds = (bucket) => (bucket * model.bucketNs / 1e9).toFixed(2) + ' s';
    const whole = seconds(model.buckets);
    if (!range) return 'time: all ' + whole + ' (drag on a timeline to weigh a time range)';
    return 'time: ' + seconds(range[0]) + ' to ' + seconds(range[1] + 1) + ' of ' + whole +
      ' (click a timeline for all of it)';
  }

  function drawTimelines(dpr) {
    for (const lane of lanes) {
      const width = Math.max(lane.canvas.clientWidth, 50);
      const height = 18;
      if (lane.canvas.width !== Math.round(width * dpr)) {
        lane.canvas.width = Math.round(width * dpr);
        lane.canvas.height = Math.round(height * dpr);
      }
      drawTimeline(lane.canvas.getContext('2d'), laneWeights, lane.thread * model.buckets,
        model.buckets, laneMax || 1, width, height, dpr, rangeOf(state));
    }
  }

  // The state's range within the recording's buckets, or null for all of it.
  function rangeOf(s) {
    if (!s.range || model.buckets < 2) return null;
    const last = model.buckets - 1;
    return [Math.min(s.range[0], last), Math.min(s.range[1], last)];
  }

  // Everything the fragment decides, derived again from it.
  function applyState() {
    const thread = state.thread >= 0 && state.thread < model.threads.length ? state.thread : -1;
    const pid = Array.from(processSelect.options).some((o) => Number(o.value) === state.pid) ? state.pid : -1;
    processSelect.value = String(pid);
    const container = Array.from(containerSelect.options).some((o) => o.value === state.container)
      ? state.container : '';
    containerSelect.value = container;
    const events = eventsOf(model, state.event);
    threadSelect.value = String(thread);
    eventSelect.value = String(events.length > 1 ? -2 : events.length ? events[0] : 0);
    const range = rangeOf(state);
    const choice = threadSelect.value + '/' + eventSelect.value + '/' + range + '/' + pid + '/' + container;
    if (weighed !== choice) {  // a zoom or a search keeps the weights
      const lanesChanged = weighed === null || weighed.split('/')[1] !== eventSelect.value;
      weighed = choice;
      const wanted = new Uint8Array(model.events.length);
      for (const event of events) wanted[event] = 1;
      const keep = (t, event, bucket) => wanted[event] === 1 && (thread < 0 || t === thread) &&
        (pid < 0 || model.threads[t].pid === pid) &&
        (!container || model.threads[t].container === container) &&
        (!range || (bucket >= range[0] && bucket <= range[1]));
      if (lanes.length && lanesChanged) {
        laneWeights = bucketWeights(model, (t, event) => wanted[event] === 1);
        laneMax = 0;
        for (const lane of lanes)
          for (let b = 0; b < model.buckets; b++)
            laneMax = Math.max(laneMax, laneWeights[lane.thread * model.buckets + b]);
      }
      if (lanes.length) find('range').textContent = describeRange(range);
      weights = weighNodes(model, keep);
      x = layoutNodes(model, weights.total);
      functions = functionWeights(model, weights);
      const off = events.filter((event) => isOffCpu(model, event));
      offCpu = off.length ? weighNodes(model, (t, event) => keep(t, event) && isOffCpu(model, event)).total : null;
      unit = events.length > 1 ? 'nanoseconds' : events.length ? model.events[events[0]].unit : model.unit;
      if (diffing) weighBase(events, thread);
      find('total').dataset.event = eventSelect.value;
    }
    zoom = nodeAtPath(model, state.zoom.map((name) => nameIds.has(name) ? nameIds.get(name) : -1));
    if (weights.total[zoom] <= 0) zoom = 0;
    selected = nameIds.has(state.fn) ? nameIds.get(state.fn) : -1;
    if (search.value !== state.q) search.value = state.q;
    runSearch();
    for (const name of VIEWS) find('view-' + name).classList.toggle('active', name === state.view);
    const flat = state.view === 'flame' || state.view === 'icicle';
    find('flame-view').hidden = !flat;
    find('tree-view').hidden = state.view !== 'tree';
    find('bottomup-view').hidden = state.view !== 'bottomup';
    if (state.view === 'tree') renderTree(find('tree'), model, weights, select);
    if (state.view === 'bottomup')
      renderBottomUp(find('bottomup'), model, functions, weights.total[0], unit, select);
    renderDetails(find('details'), model, selected,
      selected >= 0 ? callersAndCallees(model, weights, selected) : null,
      weights.total[0], unit, select);
    find('total').textContent = formatWeight(weights.total[0], unit) + ' of ' +
      (eventSelect.selectedIndex >= 0 ? eventSelect.options[eventSelect.selectedIndex].textContent : model.type);
    schedule();
  }

  // The base's weights for the same events and, when one thread is chosen, the base's threads
  // of the same name (another run has other thread ids); then the paths it lost.
  function weighBase(events, thread) {
    const wanted = new Uint8Array(model.events.length);
    for (const event of baseEventsFor(model, events)) wanted[event] = 1;
    const name = thread >= 0 ? model.threads[thread].name : null;
    base = weighNodes(model, (t, event) => wanted[event] === 1 &&
      (name === null || model.threads[t].name === name)).total;
    const list = find('vanished');
    list.textContent = '';
    const gone = vanishedPaths(model, weights.total, base);
    list.appendChild(goneHeading(gone.length));
    for (const entry of gone.slice(0, TABLE_ROWS_SHOWN)) {
      const line = document.createElement('div');
      line.className = 'name';
      line.textContent = formatShare(entry.weight, base[0]) + '  ' +
        pathOf(model, entry.node).map((id) => model.strings[id]).join(' → ');
      list.appendChild(line);
    }
  }

  function goneHeading(count) {
    const heading = document.createElement('h3');
    heading.textContent = count ? 'Gone since the base (' + count + ' paths, share of the base)' : 'Nothing of the base is gone';
    return heading;
  }

  function runSearch() {
    if (searched === state.q + '\n' + weighed) return;  // a zoom keeps the search
    searched = state.q + '\n' + weighed;
    const begun = performance.now();
    const compiled = compileSearch(state.q);
    search.classList.toggle('invalid', compiled.error !== '');
    const info = find('search-info');
    if (!compiled.regex) {
      matches = null;
      info.textContent = compiled.error ? 'invalid: ' + compiled.error : '';
      return;
    }
    matches = matchNames(model.strings, compiled.regex);
    const matched = matchedWeight(model, weights.total, matches, 0);
    info.textContent = 'matched ' + formatShare(matched, weights.total[0]) + ' (' +
      formatWeight(matched, unit) + ')';
    root.dataset.searchMs = (performance.now() - begun).toFixed(1);
  }

  function commit(replace) {
    const hash = formatState(state);
    if (hash === window.location.hash) return;
    if (replace) window.history.replaceState(null, '', hash);
    else window.history.pushState(null, '', hash);
  }

  function change(edit, replace) {
    edit(state);
    commit(replace);
    applyState();
  }

  function select(name) {
    change((s) => { s.fn = model.strings[name]; });
  }

  function schedule() {
    if (drawPending) return;
    drawPending = true;
    window.requestAnimationFrame(() => { drawPending = false; draw(); });
  }

  function draw() {
    if (find('flame-view').hidden) return;
    const begun = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(canvas.parentElement.clientWidth, 100);
    const height = Math.min((model.maxDepth + 1) * ROW_HEIGHT,
      Math.max(240, Math.floor(window.innerHeight * 0.7)));
    scroll = Math.max(0, Math.min(scroll, model.maxDepth + 1 - Math.floor(height / ROW_HEIGHT)));
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = width + 'px';
      canvas.style.height = height + 'px';
    }
    view = { width: width, height: height, dpr: dpr, rowHeight: ROW_HEIGHT,
      icicle: state.view === 'icicle', zoom: zoom, scroll: scroll, x: x, total: weights.total,
      matches: matches, selected: selected, charWidth: charWidth, offCpu: offCpu,
      diff: diffing ? { base: base, baseRoot: base[0] } : null,
      colors: view && view.colors };
    const drawn = drawFlame(context, model, rows, view);
    drawTimelines(dpr);
    root.dataset.drawMs = (performance.now() - begun).toFixed(1);
    root.dataset.drawn = String(drawn.rects);
    find('status').textContent = model.count + ' nodes, ' + drawn.rects + ' boxes drawn in ' +
      root.dataset.drawMs + ' ms (decoded in ' + root.dataset.decodeMs + ' ms)';
  }

  // Where the widest frame named `name` is, in the canvas's CSS px, or null (tests use this).
  function locate(name) {
    if (!view || !nameIds.has(name)) return null;
    const id = nameIds.get(name);
    let best = -1;
    for (let i = zoom; i < model.end[zoom]; i++)
      if (model.name[i] === id && (best < 0 || weights.total[i] > weights.total[best])) best = i;
    if (best < 0 || weights.total[best] <= 0) return null;
    const [left, right] = frameSpan(model, view, best);
    return { x: (left + right) / 2, y: rowTop(model, view, model.depth[best]) + ROW_HEIGHT / 2 };
  }

  function pointer(event) {
    const box = canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  function listen() {
    canvas.addEventListener('mousedown', (event) => { pressed = pointer(event); });
    canvas.addEventListener('click', (event) => {
      const at = pointer(event);
      const moved = pressed ? Math.hypot(at.x - pressed.x, at.y - pressed.y) : 0;
      pressed = null;
      if (moved > CLICK_SLOP || !view) return;
      const node = hitTest(model, rows, view, at.x, at.y);
      if (node < 0) return;
      change((s) => {
        s.zoom = pathOf(model, node).map((name) => model.strings[name]);
        s.fn = model.strings[model.name[node]];
      });
    });
    canvas.addEventListener('mousemove', (event) => {
      if (!view) return;
      const at = pointer(event);
      const node = hitTest(model, rows, view, at.x, at.y);
      const tip = find('tooltip');
      if (node < 0) { tip.textContent = ''; return; }
      tip.textContent = model.strings[model.name[node]] + ': ' +
        formatShare(weights.total[node], weights.total[0]) + ' total, ' +
        formatShare(weights.self[node], weights.total[0]) + ' self (' +
        formatWeight(weights.total[node], unit) + ')' +
        (diffing ? '; base: ' + formatShare(base[node], base[0]) : '');
    });
    canvas.addEventListener('wheel', (event) => {
      const rowsShown = Math.floor(view.height / ROW_HEIGHT);
      if (model.maxDepth + 1 <= rowsShown) return;
      event.preventDefault();
      scroll += (event.deltaY > 0) === view.icicle ? 3 : -3;
      schedule();
    }, { passive: false });
    find('reset').addEventListener('click', () => change((s) => { s.zoom = []; s.q = ''; s.fn = ''; }));
    for (const name of VIEWS)
      find('view-' + name).addEventListener('click', () => change((s) => { s.view = name; }));
    search.addEventListener('input', () => change((s) => { s.q = search.value; }, true));
    threadSelect.addEventListener('change', () =>
      change((s) => { s.thread = Number(threadSelect.value); }));
    processSelect.addEventListener('change', () =>
      change((s) => { s.pid = Number(processSelect.value); s.thread = -1; }));
    containerSelect.addEventListener('change', () =>
      change((s) => { s.container = containerSelect.value; s.pid = -1; s.thread = -1; }));
    eventSelect.addEventListener('change', () =>
      change((s) => { s.event = Number(eventSelect.value); }));
    window.addEventListener('hashchange', () => { state = parseState(window.location.hash); applyState(); });
    window.addEventListener('popstate', () => { state = parseState(window.location.hash); applyState(); });
    window.addEventListener('resize', schedule);
    window.addEventListener('mouseup', (event) => {
      if (!dragging) return;
      const { canvas: laneCanvas, x: from } = dragging;
      dragging = null;
      const to = event.clientX - laneCanvas.getBoundingClientRect().left;
      const width = laneCanvas.clientWidth;
      if (Math.abs(to - from) <= CLICK_SLOP) {
        change((s) => { s.range = null; });
        return;
      }
      const first = bucketAt(Math.min(from, to), width, model.buckets);
      const last = bucketAt(Math.max(from, to), width, model.buckets);
      change((s) => { s.range = [first, last]; });
    });
    window.addEventListener('keydown', (event) => {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
      if (event.key === '/') { event.preventDefault(); search.focus(); }
      if (event.key === 'Escape') { event.preventDefault(); change((s) => { s.zoom = []; }); }
    });
  }
}

if (typeof document !== 'undefined') {
  try {
    startReport(document, window);
  } catch (error) {
    document.documentElement.dataset.error = String(error && error.message || error);
    throw error;
  }
}
