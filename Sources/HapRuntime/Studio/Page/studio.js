/* hap studio: the page. Plain JavaScript, no dependencies; served under
 * Content-Security-Policy: default-src 'self', so nothing inline, no eval.
 *
 * The file on disk is the document. The page draws what GET /api/pattern answers,
 * previews a gesture locally while it lasts, sends ONE JSON Patch per gesture
 * (POST /api/edit) and redraws from the answer. docs/studio.md is the contract.
 *
 * Sections: constants · api · state · layout/scales · drawing (DOM, canvas,
 * playhead) · edits · interaction (pointer, wheel) · keyboard · panels · boot.
 */
'use strict';
(() => {

// ======================================================================
// constants
// ======================================================================

/** EventParameter ID → entry field of /api/pattern. */
const PARAM_FIELD = {
  HapticIntensity: 'intensity', HapticSharpness: 'sharpness', AttackTime: 'attack',
  DecayTime: 'decay', ReleaseTime: 'release', Sustained: 'sustained', AudioVolume: 'volume',
  AudioPan: 'pan', AudioPitch: 'pitch', AudioBrightness: 'brightness',
};
const FIELD_PARAM = Object.fromEntries(Object.entries(PARAM_FIELD).map(([k, v]) => [v, k]));

/** Which EventParameters each kind shows in the inspector, with defaults and ranges. */
const FIELD_INFO = {
  intensity: { label: 'Intensity', min: 0, max: 1, def: 1 },
  sharpness: { label: 'Sharpness', min: 0, max: 1, def: 0.5 },
  attack: { label: 'Attack time', min: 0, max: 1, def: 0 },
  decay: { label: 'Decay time', min: 0, max: 1, def: 0 },
  release: { label: 'Release time', min: 0, max: 1, def: 0 },
  sustained: { label: 'Sustained', min: 0, max: 1, def: 1, bool: true },
  volume: { label: 'Volume', min: 0, max: 1, def: 1 },
  pan: { label: 'Pan', min: -1, max: 1, def: 0 },
  pitch: { label: 'Pitch', min: -1, max: 1, def: 0 },
  brightness: { label: 'Brightness', min: 0, max: 1, def: 1 },
};
const KIND_FIELDS = {
  transient: ['intensity', 'sharpness'],
  continuous: ['intensity', 'sharpness', 'attack', 'decay', 'release', 'sustained'],
  audioCustom: ['volume', 'pan', 'pitch', 'brightness', 'attack', 'decay', 'release', 'sustained'],
  audioContinuous: ['volume', 'pan', 'pitch', 'brightness', 'attack', 'decay', 'release', 'sustained'],
};
const EVENT_TYPE = {
  transient: 'HapticTransient', continuous: 'HapticContinuous',
  audioCustom: 'AudioCustom', audioContinuous: 'AudioContinuous',
};
const KIND_NAME = {
  transient: 'Transient', continuous: 'Continuous', audioCustom: 'Audio (sound file)',
  audioContinuous: 'Audio tone', parameter: 'Parameter step', curve: 'Parameter curve', other: 'Unreadable entry',
};

/** Dynamic parameters (docs/format.md), in lane order. */
const DYNAMIC = [
  ['HapticIntensityControl', 0, 1, 1, 'Intensity ctl', '#7fd6a1'],
  ['HapticSharpnessControl', -1, 1, 0, 'Sharpness ctl', '#6cb6ff'],
  ['HapticAttackTimeControl', -1, 1, 0, 'Attack ctl', '#e7a0ff'],
  ['HapticDecayTimeControl', -1, 1, 0, 'Decay ctl', '#f59fc0'],
  ['HapticReleaseTimeControl', -1, 1, 0, 'Release ctl', '#f6c177'],
  ['AudioVolumeControl', 0, 1, 1, 'Volume ctl', '#b08cff'],
  ['AudioPanControl', -1, 1, 0, 'Pan ctl', '#9aa8ff'],
  ['AudioPitchControl', -1, 1, 0, 'Pitch ctl', '#c7a0ff'],
  ['AudioBrightnessControl', -1, 1, 0, 'Brightness ctl', '#d7b4ff'],
  ['AudioAttackTimeControl', -1, 1, 0, 'Audio attack ctl', '#c1a6e8'],
  ['AudioDecayTimeControl', -1, 1, 0, 'Audio decay ctl', '#c1a6e8'],
  ['AudioReleaseTimeControl', -1, 1, 0, 'Audio release ctl', '#c1a6e8'],
].map(([id, min, max, def, name, color]) => ({ id, min, max, def, name, color }));
const DYNAMIC_BY_ID = Object.fromEntries(DYNAMIC.map((d) => [d.id, d]));
/** Curves cannot carry these (curve-parameter-unsupported): palette offers them for steps only. */
const NO_CURVE = new Set(['HapticAttackTimeControl', 'HapticDecayTimeControl', 'HapticReleaseTimeControl',
  'AudioAttackTimeControl', 'AudioDecayTimeControl', 'AudioReleaseTimeControl']);

const MIN_PXPS = 0.2;
const MAX_PXPS = 200000;
const DRAG_THRESHOLD = 3;
const LEFT_MARGIN = 14;
const SNAP_PX = 6;                  // an entry's time attracts a snapped time this close             // px shown before 0 s so a tap at 0 is not cut in half           // px before a press becomes a drag
const SHARPNESS_PX = 150;           // px of handle travel for the whole 0…1 range
const RULER_H = 26;
const SVG_NS = 'http://www.w3.org/2000/svg';
const LANE_PAD = { events: [20, 8], control: [9, 9], audio: [6, 6], render: [8, 8] };

// ======================================================================
// api: fetch with the session cookie; POSTs carry the studio header
// ======================================================================

const api = {
  /** GET → parsed JSON; throws an Error with .status on failure. */
  async get(url) {
    const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw Object.assign(new Error(data.error || `${res.status} ${res.statusText}`), { status: res.status, data });
    return data;
  },
  /** POST → {ok, status, data}; never throws for an HTTP error (callers branch on status). */
  async post(url, body) {
    let res;
    try {
      res = await fetch(url, {
        method: 'POST', credentials: 'same-origin', body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json', 'X-Hap-Studio': '1', Accept: 'application/json' },
      });
    } catch (err) {
      return { ok: false, status: 0, data: { error: 'The studio server cannot be reached.' } };
    }
    const data = await res.json().catch(() => ({}));
    return { ok: res.ok, status: res.status, data };
  },
  pattern: (path) => api.get(`/api/pattern?path=${encodeURIComponent(path)}`),
};

// ======================================================================
// state
// ======================================================================

// ready: ms from navigation start to the first drawn timeline; lastEditToRedraw: ms from the
// pointerup ending a drag to the render of the resulting document drawn; playheadFps: frames
// per second of the playhead over the last playback; documentDraw: ms to draw the last document.
const timings = (window.hapStudioTimings = { ready: null, lastEditToRedraw: null, playheadFps: null, documentDraw: null });

const S = {
  session: null,
  path: null,
  doc: null,                // the last /api/pattern answer drawn
  entries: [],              // doc.entries by index
  view: { t0: 0, pxps: 100 },
  width: 800,               // timeline width in CSS px (ResizeObserver)
  tracksH: 600,             // height of the lanes area
  lanes: [],                // [{kind, id, top, h, el, label, param}]
  laneOf: new Map(),        // lane key → lane
  els: [],                  // entry index → {el, lane, parts}
  sel: new Set(),           // selected entry indices
  selPoint: null,           // {n, k}: selected curve point
  preview: new Map(),       // entry index → overridden fields while a gesture lasts
  cursor: 0,
  loop: { on: false, a: null, b: null },
  snap: false,
  audition: true,
  side: 'edit',
  profile: null,
  render: null,             // last /api/render answer + {rev, side}
  renderSeq: 0,
  play: { playing: false, id: null, base: 0, t: 0, to: null, loop: false, frames: 0, start: 0 },
  clipboard: null,
  editChain: Promise.resolve(),
  inflight: 0,
  pendingDocRev: 0,         // a document event seen while an edit was in flight
  editMark: null,           // {t: pointerup time, rev: revision it produced}
  conflictOps: null,
  activeFinding: null,
  drag: null,
  ready: false,
};

const $ = (id) => document.getElementById(id);
const el = {};
['timeline', 'tracks', 'gutter', 'ruler', 'ruler-canvas', 'overlay', 'cursor-line', 'cursor-head', 'playhead',
  'band', 'loop-region', 'loop-shade', 'hscroll', 'hthumb', 'inspector', 'findings', 'find-count', 'compare',
  'cmp-baseline', 'doc-name', 'clock', 'btn-play', 'btn-stop', 'btn-loop', 'btn-undo', 'btn-redo', 'btn-snap',
  'btn-audition', 'add-param-id', 'profile', 'side-edit', 'side-baseline', 'baseline-name', 'device',
  'device-name', 'banner', 'banner-apply', 'banner-keep', 'toast', 'help', 'help-close', 'btn-help', 'sidebar',
  'folder-list', 'folder-count', 'vocab-findings', 'status-sel', 'status-view', 'status-msg', 'status-snap',
  'status-rev', 'empty', 'zoom-in', 'zoom-out', 'zoom-fit',
].forEach((id) => { el[id.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = $(id); });

// ======================================================================
// layout / scales
// ======================================================================

const clamp = (v, a, b) => Math.min(b, Math.max(a, v));
const round6 = (v) => Math.round(v * 1e6) / 1e6;
const round3 = (v) => Math.round(v * 1e3) / 1e3;
const xOf = (t) => (t - S.view.t0) * S.view.pxps;
const tOf = (x) => S.view.t0 + x / S.view.pxps;
const viewEnd = () => S.view.t0 + S.width / S.view.pxps;

/** An entry as drawn now: the document's, with the running gesture's preview on top. */
function entryNow(i) {
  const e = S.entries[i];
  const p = S.preview.get(i);
  return p ? Object.assign({}, e, p) : e;
}

/** [start, end] pattern seconds an entry covers on the timeline. */
function span(e) {
  const t = num(e.time);
  switch (e.kind) {
    case 'continuous': case 'audioContinuous': return [t, t + num(e.duration)];
    case 'audioCustom': return [t, t + audioLength(e)];
    case 'curve': {
      const ts = (e.points || []).map((p) => t + num(p.time));
      return ts.length ? [Math.min(...ts), Math.max(...ts)] : [t, t];
    }
    default: return [t, t];
  }
}
function num(v, d = 0) { return typeof v === 'number' && isFinite(v) ? v : d; }
function audioLength(e) {
  if (e.waveform && e.waveform.max) return e.waveform.max.length * e.waveform.step;
  return num(e.duration) || 0.1;
}
/** Release tail length (docs/rendering.md: 5 ms … 1 s). */
const releaseSec = (r) => 0.005 * Math.pow(200, num(r));
const attackSec = (a) => 0.001 * Math.pow(1000, num(a));
const decaySec = (d) => 0.01 * Math.pow(100, num(d));

/** The ruler's major step (labelled) and minor step for the current zoom. */
function gridSteps() {
  const want = 90 / S.view.pxps;  // seconds per ~90 px
  const mag = Math.pow(10, Math.floor(Math.log10(want)));
  let major = mag;
  for (const m of [1, 2, 5, 10]) { if (mag * m >= want) { major = mag * m; break; } }
  const lead = Math.round(major / Math.pow(10, Math.floor(Math.log10(major) + 1e-9)));
  const minor = major / (lead === 2 ? 4 : 5);
  return { major, minor };
}
/**
 * Snapping (S): to other entries' start and end times when one is within SNAP_PX pixels,
 * else to 1/100 s. `skip` holds the indices being dragged (they do not attract themselves).
 */
function snapTime(t, skip) {
  if (!S.snap) return t;
  let best = round6(Math.round(t * 100) / 100);
  let bestPx = SNAP_PX;
  for (const e of S.entries) {
    if (skip && skip.has(e.index)) continue;
    for (const u of span(e)) {
      const px = Math.abs(u - t) * S.view.pxps;
      if (px < bestPx) { bestPx = px; best = round6(u); }
    }
  }
  return best;
}

/** Value ↔ y inside a lane (lane-local px). */
function laneRange(lane) {
  if (lane.kind === 'control') return [lane.param.min, lane.param.max];
  return [0, 1];
}
function yOfValue(lane, v) {
  const [lo, hi] = laneRange(lane);
  const [pt, pb] = LANE_PAD[lane.kind];
  return pt + (1 - (clamp(v, lo, hi) - lo) / (hi - lo)) * (lane.h - pt - pb);
}
/** Value change for a vertical drag of dy px in a lane. */
function valuePerPx(lane) {
  const [lo, hi] = laneRange(lane);
  const [pt, pb] = LANE_PAD[lane.kind];
  return (hi - lo) / Math.max(10, lane.h - pt - pb);
}

function laneKeyOf(e) {
  switch (e.kind) {
    case 'curve': case 'parameter': return 'control:' + e.parameter;
    case 'audioCustom': case 'audioContinuous': return 'audio';
    default: return 'events';
  }
}

/** The document's lanes, top to bottom, with heights that fill the tracks area. */
function planLanes() {
  const ids = new Set();
  let audio = false;
  for (const e of S.entries) {
    if (e.kind === 'curve' || e.kind === 'parameter') ids.add(e.parameter);
    if (e.kind === 'audioCustom' || e.kind === 'audioContinuous') audio = true;
  }
  const known = DYNAMIC.filter((d) => ids.has(d.id));
  const unknown = [...ids].filter((id) => !DYNAMIC_BY_ID[id])
    .map((id) => ({ id, min: -1, max: 1, def: 0, name: id == null ? '(no ParameterID)' : String(id), color: '#c0c4cc' }));
  const lanes = [{ kind: 'events', key: 'events', name: 'Events', sub: 'height: intensity' }];
  for (const p of known.concat(unknown)) {
    lanes.push({ kind: 'control', key: 'control:' + p.id, name: p.name, sub: p.id, param: p });
  }
  if (audio) lanes.push({ kind: 'audio', key: 'audio', name: 'Audio', sub: 'sounds · tones' });
  lanes.push({ kind: 'render', key: 'render', name: 'What hap plays', sub: '' });
  sizeLanes(lanes);
  return lanes;
}
function sizeLanes(lanes) {
  const total = Math.max(200, S.tracksH);
  const nCtl = lanes.filter((l) => l.kind === 'control').length;
  const ctlH = nCtl > 3 ? 50 : 66;
  const fixed = { control: ctlH, audio: 84, render: Math.round(clamp(total * 0.27, 110, 230)) };
  let used = 0;
  for (const l of lanes) if (l.kind !== 'events') used += (l.h = fixed[l.kind]);
  lanes[0].h = Math.max(120, total - used);     // the events lane takes the rest
  let top = 0;
  for (const l of lanes) { l.top = top; top += l.h; }
}

/** Colour of a sharpness: dull and warm (orange) → sharp and cool (blue). */
function sharpColor(s) {
  s = clamp(num(s, 0.5), 0, 1);
  const hue = 22 + 193 * s;
  const sat = 85 - 20 * Math.sin(Math.PI * s);
  return `hsl(${hue.toFixed(0)} ${sat.toFixed(0)}% ${(58 + 6 * s).toFixed(0)}%)`;
}
const laneColor = (lane) => (lane.param ? lane.param.color : '#ccc');

// ======================================================================
// drawing: lanes and entries (DOM/SVG, rebuilt once per document)
// ======================================================================

let tracksCanvas = null;

function svg(tag, attrs) {
  const n = document.createElementNS(SVG_NS, tag);
  if (attrs) for (const k in attrs) n.setAttribute(k, attrs[k]);
  return n;
}
function div(cls, text) {
  const n = document.createElement('div');
  if (cls) n.className = cls;
  if (text != null) n.textContent = text;
  return n;
}

/**
 * Builds lanes, gutter and every entry's element from S.entries. When the lanes are
 * the same as before, an entry's element is kept (by index, when its kind and lane
 * match) so that a document answer only touches what changed.
 */
function buildTimeline() {
  const lanes = planLanes();
  const same = S.lanes.length === lanes.length && S.lanes[0] && S.lanes[0].el && S.lanes[0].el.isConnected &&
    lanes.every((l, k) => l.key === S.lanes[k].key && l.h === S.lanes[k].h);
  if (same) updateEntries(); else rebuildAll(lanes);
  applySelectionClasses();
  layoutAll();
}
function rebuildAll(lanes) {
  S.lanes = lanes;
  S.laneOf = new Map(S.lanes.map((l) => [l.key, l]));
  const lanesFrag = document.createDocumentFragment();
  tracksCanvas = document.createElement('canvas');
  tracksCanvas.className = 'tracks-canvas';
  tracksCanvas.setAttribute('aria-hidden', 'true');
  lanesFrag.appendChild(tracksCanvas);
  for (const lane of S.lanes) {
    lane.el = div(`lane lane-${lane.kind}`);
    lane.el.dataset.lane = lane.key;
    lane.el.style.height = lane.h + 'px';
    lane.el.setAttribute('role', 'group');
    lane.el.setAttribute('aria-label', lane.name);
    if (lane.kind === 'control') {
      lane.svg = svg('svg', { class: 'layer' });
      lane.el.appendChild(lane.svg);
    }
    lanesFrag.appendChild(lane.el);
  }
  S.els = new Array(S.entries.length);
  const frags = new Map(S.lanes.map((l) => [l.key, document.createDocumentFragment()]));
  for (const e of S.entries) {
    const lane = S.laneOf.get(laneKeyOf(e)) || S.lanes[0];
    const rec = buildEntry(e, lane);
    S.els[e.index] = rec;
    (rec.svgChild ? lane.svg : frags.get(lane.key)).appendChild(rec.node || rec.el);
  }
  buildFindingMarks(frags.get('events'));
  for (const lane of S.lanes) lane.el.appendChild(frags.get(lane.key));
  el.tracks.replaceChildren(lanesFrag);
  buildGutter();
}
/** Same lanes: keep each element whose entry is still of its kind, build the others. */
function updateEntries() {
  const old = S.els;
  S.els = new Array(S.entries.length);
  const frags = new Map(S.lanes.map((l) => [l.key, document.createDocumentFragment()]));
  for (const e of S.entries) {
    const rec = old[e.index];
    const lane = S.laneOf.get(laneKeyOf(e)) || S.lanes[0];
    const keep = rec && rec.kind === e.kind && rec.lane === lane &&
      (e.kind !== 'curve' || rec.parts.pts.length === (e.points || []).length) &&
      (e.kind !== 'audioCustom' || rec.sound === e.sound);
    if (keep) { S.els[e.index] = rec; old[e.index] = null; continue; }
    if (rec) { (rec.node || rec.el).remove(); old[e.index] = null; }
    const made = buildEntry(e, lane);
    S.els[e.index] = made;
    (made.svgChild ? lane.svg : frags.get(lane.key)).appendChild(made.node || made.el);
  }
  for (const rec of old) if (rec) (rec.node || rec.el).remove();
  for (const m of S.marks || []) m.el.remove();
  buildFindingMarks(frags.get('events'));
  for (const lane of S.lanes) lane.el.appendChild(frags.get(lane.key));
}

function buildGutter() {
  const f = document.createDocumentFragment();
  const corner = div('glabel ruler-corner');
  corner.append(div(null, 'seconds'), div(null, S.snap ? 'snap' : ''));
  f.appendChild(corner);
  for (const lane of S.lanes) {
    const g = div('glabel');
    g.style.height = lane.h + 'px';
    const name = div('gname');
    if (lane.param) {
      const sw = document.createElement('span');
      sw.className = 'gswatch';
      sw.style.background = lane.param.color;
      name.appendChild(sw);
    }
    name.appendChild(document.createTextNode(lane.name));
    g.append(name, div('gsub', lane.kind === 'render' ? (S.side === 'baseline' ? 'baseline · ' : '') + (S.profile || '') : lane.sub));
    for (const [v, txt] of gutterTicks(lane)) {
      const tk = div('gtick', txt);
      tk.style.top = v + 'px';
      g.appendChild(tk);
    }
    f.appendChild(g);
  }
  el.gutter.replaceChildren(f);
}
function gutterTicks(lane) {
  if (lane.kind === 'events') return [[yOfValue(lane, 1), '1'], [yOfValue(lane, 0.5), '.5'], [yOfValue(lane, 0), '0']];
  if (lane.kind === 'control') {
    const [lo, hi] = laneRange(lane);
    return [[yOfValue(lane, hi), String(hi)], [yOfValue(lane, lo), String(lo)]];
  }
  return [];
}

function buildEntry(e, lane) {
  switch (e.kind) {
    case 'transient': return buildTransient(e, lane);
    case 'continuous': return buildBlock(e, lane);
    case 'audioCustom': case 'audioContinuous': return buildAudio(e, lane);
    case 'parameter': return buildParam(e, lane);
    case 'curve': return buildCurve(e, lane);
    default: return buildOther(e, lane);
  }
}
function tagEntry(n, e, label) {
  n.setAttribute('data-hap-event', String(e.index));
  n.setAttribute('aria-label', label);
  return n;
}
function buildTransient(e, lane) {
  const n = tagEntry(div('ev ev-transient'), e, `Transient ${e.index}`);
  n.setAttribute('role', 'button');
  const sharp = div('sharp');
  sharp.dataset.handle = 'sharp';
  sharp.title = 'Sharpness: drag sideways';
  n.appendChild(sharp);                 // the stem and its head are the element's ::before/::after
  return { el: n, lane, kind: e.kind };
}
function buildBlock(e, lane) {
  const n = tagEntry(div('ev ev-block'), e, `Continuous ${e.index}`);
  n.setAttribute('role', 'button');
  const s = svg('svg');
  const poly = svg('polygon');
  s.appendChild(poly);
  const er = div('edge-r'); er.dataset.handle = 'dur'; er.title = 'Duration: drag';
  const et = div('edge-t'); et.dataset.handle = 'int'; et.title = 'Intensity: drag up or down';
  const lbl = div('lbl');
  n.append(s, lbl, et, er);
  return { el: n, lane, kind: e.kind, parts: { svg: s, poly, lbl } };
}
function buildAudio(e, lane) {
  const tone = e.kind === 'audioContinuous';
  const n = tagEntry(div('ev ev-audio' + (tone ? ' tone' : '')), e, `${KIND_NAME[e.kind]} ${e.index}`);
  n.setAttribute('role', 'button');
  const peak = waveformPeak(e);
  const lbl = div('lbl', tone ? 'tone' : baseName(e.sound || 'sound') +
    (peak > 0 ? ` · peak ${(20 * Math.log10(peak)).toFixed(1)} dBFS` : e.waveform ? '' : ' · no waveform'));
  n.appendChild(lbl);
  if (tone) { const er = div('edge-r'); er.dataset.handle = 'dur'; n.appendChild(er); }
  return { el: n, lane, kind: e.kind, sound: e.sound };
}
function buildParam(e, lane) {
  const n = tagEntry(div('ev ev-param'), e, `Parameter ${e.parameter} ${e.index}`);
  n.setAttribute('role', 'button');
  n.style.setProperty('--c', laneColor(lane));
  n.appendChild(div('flag'));
  return { el: n, lane, kind: e.kind };
}
function buildOther(e, lane) {
  const n = tagEntry(div('ev ev-other', '!'), e, `Unreadable entry ${e.index}`);
  const why = ((S.doc && S.doc.findings) || []).filter((f) => f.entry === e.index).map((f) => `${f.rule}: ${f.message}`);
  n.title = `Entry ${e.index}: hap cannot read it\n${why.join('\n')}`;
  return { el: n, lane, kind: e.kind };
}
function buildCurve(e, lane) {
  const color = laneColor(lane);
  const g = svg('g', { class: 'curve' });
  g.dataset.curve = String(e.index);
  const fill = svg('polygon', { class: 'curve-fill', fill: color, 'fill-opacity': '0.08' });
  const hold = svg('polyline', { class: 'curve-hold', stroke: color });
  const hit = svg('polyline', { class: 'curve-hit' });
  const line = tagEntry(svg('polyline', { class: 'curve-line', stroke: color }), e, `Curve ${e.parameter} ${e.index}`);
  g.append(fill, hold, hit, line);
  const pts = (e.points || []).map((p, k) => {
    const c = svg('circle', { class: 'cpoint', r: '4.5', fill: color });
    c.setAttribute('data-hap-point', `${e.index}:${k}`);
    c.setAttribute('aria-label', `Point ${k} of curve ${e.index}`);
    g.appendChild(c);
    return c;
  });
  return { el: line, node: g, svgChild: true, lane, kind: e.kind, parts: { fill, hold, hit, pts } };
}
function buildFindingMarks(frag) {
  S.marks = [];
  const byEntry = new Map();
  for (const f of (S.doc && S.doc.findings) || []) {
    // an unreadable entry's own marker already says it; its findings go in its title
    if (f.entry == null || !S.entries[f.entry] || S.entries[f.entry].kind === 'other') continue;
    if (!byEntry.has(f.entry)) byEntry.set(f.entry, []);
    byEntry.get(f.entry).push(f);
  }
  for (const [i, fs] of byEntry) {
    const worst = fs.some((f) => f.severity === 'error') ? 'error' : fs.some((f) => f.severity === 'warning') ? 'warning' : 'info';
    const m = div(`fmark ${worst}`, fs.length > 1 ? String(fs.length) : '!');
    m.dataset.mark = String(i);
    m.title = fs.map((f) => `${f.rule}: ${f.message}`).join('\n');
    frag.appendChild(m);
    S.marks.push({ el: m, entry: i });
  }
}
const baseName = (p) => String(p).split('/').pop();
/** The loudest sample of a sound's waveform (drawn scaled to it: game sounds are often quiet). */
function waveformPeak(e) {
  const w = e.waveform;
  if (!w || !w.max) return 0;
  if (w.peak == null) {
    let p = 0;
    for (let k = 0; k < w.max.length; k++) p = Math.max(p, Math.abs(w.max[k]), Math.abs(w.min[k] || 0));
    w.peak = p;
  }
  return w.peak;
}

/** Places every entry for the current view (writes only: no layout reads). */
function layoutAll() {
  // many events per pixel: hide the small handles, they would only be noise
  const dense = S.entries.length > 20 && S.doc && (S.entries.length - 1) / Math.max(1, num(S.doc.duration) * S.view.pxps) > 1 / 14;
  el.timeline.classList.toggle('dense', !!dense);
  for (let i = 0; i < S.els.length; i++) if (S.els[i]) layoutEntry(i);
  layoutMarks();
  layoutCursorAndLoop();
  updateViewAttrs();
}
/** Finding marks at their entries' start; marks at the same spot stack downwards. */
function layoutMarks() {
  const taken = new Map();
  for (const m of S.marks || []) {
    const x = xOf(span(entryNow(m.entry))[0]);
    const slot = Math.round(x / 12);
    const row = taken.get(slot) || 0;
    taken.set(slot, row + 1);
    m.el.style.transform = `translate(${x.toFixed(1)}px,${row * 14}px)`;
  }
}

function layoutEntry(i) {
  const rec = S.els[i];
  if (!rec) return;
  const e = entryNow(i);
  switch (e.kind) {
    case 'transient': return layoutTransient(rec, e);
    case 'continuous': return layoutBlock(rec, e);
    case 'audioCustom': case 'audioContinuous': return layoutAudio(rec, e);
    case 'parameter': return layoutParam(rec, e);
    case 'curve': return layoutCurve(rec, e);
    default: return layoutOther(rec, e);
  }
}
function layoutTransient(rec, e) {
  const lane = rec.lane;
  const base = yOfValue(lane, 0);
  const top = yOfValue(lane, num(e.intensity, 0.75));
  const n = rec.el;
  // the element reaches 6 px above the head and 4 px below the baseline: a hit area even at 0
  n.style.transform = `translate(${xOf(num(e.time)).toFixed(2)}px,${(top - 6).toFixed(1)}px)`;
  n.style.height = (base - top + 10).toFixed(1) + 'px';
  n.style.setProperty('--c', sharpColor(e.sharpness));
  n.title = `Transient ${e.index} · t ${fmt(e.time)} s · intensity ${fmt(e.intensity, 3)} · sharpness ${fmt(e.sharpness, 3)}`;
}
function layoutBlock(rec, e) {
  const lane = rec.lane;
  const x = xOf(num(e.time));
  const w = Math.max(2, num(e.duration) * S.view.pxps);
  const base = yOfValue(lane, 0);
  const top = yOfValue(lane, num(e.intensity, 1));
  const h = Math.max(3, base - top);
  const n = rec.el;
  n.style.left = x.toFixed(2) + 'px';
  n.style.top = (base - h).toFixed(1) + 'px';
  n.style.width = w.toFixed(1) + 'px';
  n.style.height = h.toFixed(1) + 'px';
  n.style.setProperty('--c', sharpColor(e.sharpness));
  n.classList.toggle('narrow', w < 24);
  n.classList.toggle('short', h < 18);
  const { svg: s, poly, lbl } = rec.parts;
  s.setAttribute('width', w.toFixed(1));
  s.setAttribute('height', h.toFixed(1));
  poly.setAttribute('points', envelopePoints(e, w, h));
  lbl.textContent = w > 90 && h > 16 ? `I ${fmt(e.intensity, 2)} · S ${fmt(e.sharpness, 2)}` : '';
  n.title = `Continuous ${e.index} · t ${fmt(e.time)} s · ${fmt(e.duration)} s · intensity ${fmt(e.intensity, 3)} · sharpness ${fmt(e.sharpness, 3)}`;
}
/** The envelope of a continuous event as polygon points in its block (release drawn past the end). */
function envelopePoints(e, w, h) {
  const pxps = S.view.pxps;
  const dur = num(e.duration);
  const att = Math.min(attackSec(e.attack), dur);
  const rel = releaseSec(e.release);
  const pts = [[0, h]];
  const level = (t) => {
    const a = t < att ? t / att : 1;
    if (e.sustained === false && t > att) return a * Math.exp(-(t - att) / decaySec(e.decay));
    return a;
  };
  const steps = e.sustained === false ? 24 : 2;
  pts.push([att * pxps, h - h * level(att)]);
  for (let k = 1; k <= steps; k++) {
    const t = att + ((dur - att) * k) / steps;
    pts.push([t * pxps, h - h * level(t)]);
  }
  pts.push([(dur + rel) * pxps, h]);
  return pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
}
function layoutAudio(rec, e) {
  const lane = rec.lane;
  const [pt, pb] = LANE_PAD.audio;
  const w = Math.max(3, (e.kind === 'audioCustom' ? audioLength(e) : num(e.duration)) * S.view.pxps);
  const n = rec.el;
  n.style.left = xOf(num(e.time)).toFixed(2) + 'px';
  n.style.top = pt + 'px';
  n.style.width = w.toFixed(1) + 'px';
  n.style.height = (lane.h - pt - pb) + 'px';
}
function layoutParam(rec, e) {
  const lane = rec.lane;
  const y = yOfValue(lane, num(e.value));
  const n = rec.el;
  n.style.transform = `translate(${xOf(num(e.time)).toFixed(2)}px,${y.toFixed(1)}px)`;
  n.style.height = Math.max(8, lane.h - y - 2).toFixed(1) + 'px';
  n.title = `${e.parameter} = ${fmt(e.value, 3)} at ${fmt(e.time)} s`;
}
function layoutOther(rec, e) {
  // at its time when the server could read one, else at 0; just above the baseline
  rec.el.style.transform = `translate(${xOf(num(e.time)).toFixed(2)}px,${(yOfValue(rec.lane, 0) - 17).toFixed(1)}px)`;
}
function layoutCurve(rec, e) {
  const lane = rec.lane;
  const t = num(e.time);
  const pts = (e.points || []).map((p, k) => ({ k, x: xOf(t + num(p.time)), y: yOfValue(lane, num(p.value)) }));
  const sorted = pts.slice().sort((a, b) => a.x - b.x || a.k - b.k);
  const str = sorted.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
  const { fill, hold, hit, pts: circles } = rec.parts;
  rec.el.setAttribute('points', str);
  hit.setAttribute('points', str);
  const bottom = lane.h;
  if (sorted.length) {
    const first = sorted[0], last = sorted[sorted.length - 1];
    fill.setAttribute('points', `${first.x.toFixed(1)},${bottom} ${str} ${last.x.toFixed(1)},${bottom}`);
    const holdEnd = xOf(holdUntil(e, t + Math.max(...(e.points || []).map((p) => num(p.time)))));
    hold.setAttribute('points', `${last.x.toFixed(1)},${last.y.toFixed(1)} ${Math.max(last.x, holdEnd).toFixed(1)},${last.y.toFixed(1)}`);
  }
  pts.forEach((p) => {
    const c = circles[p.k];
    if (!c) return;
    c.setAttribute('cx', p.x.toFixed(1));
    c.setAttribute('cy', p.y.toFixed(1));
  });
}
/** A curve holds its last value until the next curve or step of its ID (or the view's end). */
function holdUntil(e, end) {
  let next = Infinity;
  for (const o of S.entries) {
    if (o === S.entries[e.index] || o.parameter !== e.parameter) continue;
    const s = span(o)[0];
    if (s >= end && s < next) next = s;
  }
  return Math.min(next, Math.max(end, viewEnd()));
}

function layoutCursorAndLoop() {
  const cx = xOf(S.cursor);
  el.cursorLine.style.transform = `translateX(${cx.toFixed(1)}px)`;
  el.cursorHead.style.transform = `translateX(${cx.toFixed(1)}px)`;
  const lp = S.loop;
  const has = lp.a != null && lp.b != null && lp.b > lp.a;
  el.loopRegion.hidden = !has;
  el.loopShade.hidden = !has;
  if (has) {
    const a = xOf(lp.a), w = (lp.b - lp.a) * S.view.pxps;
    for (const n of [el.loopRegion, el.loopShade]) {
      n.style.left = a.toFixed(1) + 'px';
      n.style.width = Math.max(1, w).toFixed(1) + 'px';
      n.classList.toggle('off', !lp.on);
    }
  }
  el.clock.textContent = `${S.cursor.toFixed(3)} s`;
}

function updateViewAttrs() {
  el.timeline.setAttribute('data-hap-px-per-second', String(S.view.pxps));
  el.timeline.setAttribute('data-hap-t0', String(S.view.t0));
  const ext = extent();
  const w = Math.max(1, S.width);
  const thumbW = clamp((S.width / S.view.pxps / ext) * w, 20, w);
  const left = (S.view.t0 / ext) * w;
  el.hthumb.style.width = thumbW.toFixed(1) + 'px';
  el.hthumb.style.transform = `translateX(${clamp(left, 0, w - thumbW).toFixed(1)}px)`;
  el.hscroll.setAttribute('aria-valuenow', String(Math.round((S.view.t0 / ext) * 100)));
  el.statusView.textContent = `${fmt(S.view.t0, 3)}–${fmt(viewEnd(), 3)} s · ${fmtPxps(S.view.pxps)} px/s`;
  el.statusSnap.textContent = S.snap ? 'Snap 10 ms · events' : 'Snap off';
}
const fmtPxps = (p) => (p >= 100 ? Math.round(p) : p.toPrecision(3));
function fmt(v, d = 3) {
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (typeof v !== 'number' || !isFinite(v)) return '—';
  return String(+v.toFixed(d));
}

function applySelectionClasses() {
  for (let i = 0; i < S.els.length; i++) {
    const rec = S.els[i];
    if (!rec) continue;
    rec.el.classList.toggle('selected', S.sel.has(i));
    if (rec.parts && rec.parts.pts) {
      rec.parts.pts.forEach((c, k) => c.classList.toggle('selected', !!S.selPoint && S.selPoint.n === i && S.selPoint.k === k));
    }
  }
  const n = S.sel.size;
  el.statusSel.textContent = n === 0 ? 'Nothing selected'
    : n === 1 ? `${KIND_NAME[S.entries[[...S.sel][0]].kind]} ${[...S.sel][0]} selected` : `${n} entries selected`;
}

// ======================================================================
// drawing: canvases (ruler, lane backgrounds, audio, render), on demand
// ======================================================================

const dirty = { layout: false, canvas: false };
let frameQueued = false;
function schedule(what) {
  if (what.layout) dirty.layout = true;
  if (what.canvas) dirty.canvas = true;
  if (!frameQueued) { frameQueued = true; requestAnimationFrame(frame); }
}
function frame() {
  frameQueued = false;
  if (dirty.layout) { dirty.layout = false; layoutAll(); }
  if (dirty.canvas) { dirty.canvas = false; drawCanvases(); }
  if (S.doc && !S.ready) markReady();     // the first timeline is on screen
}
function drawCanvases() {
  drawRuler();
  drawTracks();
}

function fitCanvas(c, w, h) {
  const dpr = window.devicePixelRatio || 1;
  const W = Math.max(1, Math.round(w * dpr)), H = Math.max(1, Math.round(h * dpr));
  if (c.width !== W || c.height !== H) { c.width = W; c.height = H; }
  const ctx = c.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

function forEachTick(step, fn) {
  const a = Math.floor(S.view.t0 / step), b = Math.ceil(viewEnd() / step);
  for (let k = Math.max(0, a); k <= b; k++) fn(k * step, xOf(k * step), k);
}

function drawRuler() {
  const ctx = fitCanvas(el.rulerCanvas, S.width, RULER_H);
  ctx.clearRect(0, 0, S.width, RULER_H);
  const { major, minor } = gridSteps();
  ctx.fillStyle = '#4a515c';
  forEachTick(minor, (t, x) => ctx.fillRect(Math.round(x), RULER_H - 5, 1, 5));
  const dec = Math.max(0, Math.ceil(-Math.log10(major) - 1e-9));
  ctx.font = '10.5px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  forEachTick(major, (t, x) => {
    ctx.fillStyle = '#7a828d';
    ctx.fillRect(Math.round(x), 10, 1, RULER_H - 10);
    ctx.fillStyle = '#b9c0ca';
    ctx.fillText(t.toFixed(dec), Math.round(x) + 4, 4);
  });
  // the pattern's written end
  if (S.doc) {
    const xe = xOf(num(S.doc.duration));
    ctx.fillStyle = 'rgba(255, 209, 102, .8)';
    ctx.fillRect(Math.round(xe), 0, 1, RULER_H);
  }
}

function drawTracks() {
  if (!tracksCanvas) return;
  const W = S.width, H = S.tracksH;
  const ctx = fitCanvas(tracksCanvas, W, H);
  ctx.clearRect(0, 0, W, H);
  const bg = { events: '#15181c', control: '#121418', audio: '#15131a', render: '#0e1013' };
  for (const lane of S.lanes) {
    ctx.fillStyle = bg[lane.kind];
    ctx.fillRect(0, lane.top, W, lane.h);
  }
  drawGrid(ctx, W, H);
  for (const lane of S.lanes) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, lane.top, W, lane.h);
    ctx.clip();
    ctx.translate(0, lane.top);
    if (lane.kind === 'events') drawEventsBackdrop(ctx, lane, W);
    if (lane.kind === 'control') drawControlBackdrop(ctx, lane, W);
    if (lane.kind === 'audio') drawAudio(ctx, lane, W);
    if (lane.kind === 'render') drawRender(ctx, lane, W);
    ctx.restore();
  }
  // past the written end: dim
  if (S.doc) {
    const xe = xOf(num(S.doc.duration));
    if (xe < W) { ctx.fillStyle = 'rgba(0,0,0,.18)'; ctx.fillRect(Math.max(0, xe), 0, W, H); }
  }
}
function drawGrid(ctx, W, H) {
  const { major, minor } = gridSteps();
  ctx.fillStyle = 'rgba(255,255,255,.025)';
  forEachTick(minor, (t, x) => ctx.fillRect(Math.round(x), 0, 1, H));
  ctx.fillStyle = 'rgba(255,255,255,.06)';
  forEachTick(major, (t, x) => ctx.fillRect(Math.round(x), 0, 1, H));
}
function hline(ctx, y, W, color, dash) {
  ctx.strokeStyle = color;
  ctx.setLineDash(dash || []);
  ctx.beginPath();
  ctx.moveTo(0, Math.round(y) + 0.5);
  ctx.lineTo(W, Math.round(y) + 0.5);
  ctx.stroke();
  ctx.setLineDash([]);
}
function drawEventsBackdrop(ctx, lane, W) {
  hline(ctx, yOfValue(lane, 1), W, 'rgba(255,255,255,.06)', [2, 4]);
  hline(ctx, yOfValue(lane, 0.5), W, 'rgba(255,255,255,.04)', [2, 4]);
  hline(ctx, yOfValue(lane, 0), W, 'rgba(255,255,255,.16)');
}
function drawControlBackdrop(ctx, lane, W) {
  const p = lane.param;
  hline(ctx, yOfValue(lane, p.max), W, 'rgba(255,255,255,.05)', [2, 4]);
  hline(ctx, yOfValue(lane, p.min), W, 'rgba(255,255,255,.05)', [2, 4]);
  hline(ctx, yOfValue(lane, p.def), W, 'rgba(255,255,255,.13)', [5, 3]);
}
/** Waveforms of sound events at their (possibly dragged) time, as filled min/max shapes. */
function drawAudio(ctx, lane, W) {
  const [pt, pb] = LANE_PAD.audio;
  const mid = pt + (lane.h - pt - pb) / 2, amp = (lane.h - pt - pb) / 2 - 3;
  hline(ctx, mid, W, 'rgba(176,140,255,.15)');
  ctx.fillStyle = 'rgba(176, 140, 255, .7)';
  for (let i = 0; i < S.entries.length; i++) {
    const e = entryNow(i);
    if (e.kind !== 'audioCustom' || !e.waveform) continue;
    const gain = amp * (clamp(num(e.volume, 1), 0, 1) * 0.85 + 0.15) / Math.max(1e-3, waveformPeak(e));
    const cols = waveformColumns(e.waveform, xOf(num(e.time)), W);
    if (!cols.length) continue;
    ctx.beginPath();
    for (const [x, , hi] of cols) ctx.lineTo(x, mid - hi * gain - 0.5);
    for (let k = cols.length - 1; k >= 0; k--) ctx.lineTo(cols[k][0], mid - cols[k][1] * gain + 0.5);
    ctx.closePath();
    ctx.fill();
  }
}
/** [x, min, max] per visible pixel column (or per step when steps are wider than a pixel). */
function waveformColumns(wf, x0, W) {
  const n = Math.min(wf.min.length, wf.max.length), pxPerStep = wf.step * S.view.pxps;
  const a = clamp(Math.floor(-x0 / pxPerStep) - 1, 0, n), b = clamp(Math.ceil((W - x0) / pxPerStep) + 1, 0, n);
  const out = [];
  if (pxPerStep >= 1) {
    for (let k = a; k < b; k++) out.push([x0 + (k + 0.5) * pxPerStep, wf.min[k], wf.max[k]]);
    return out;
  }
  let col = null, lo = 0, hi = 0;
  for (let k = a; k < b; k++) {
    const x = Math.floor(x0 + k * pxPerStep);
    if (x !== col) { if (col != null) out.push([col + 0.5, lo, hi]); col = x; lo = wf.min[k]; hi = wf.max[k]; }
    else { lo = Math.min(lo, wf.min[k]); hi = Math.max(hi, wf.max[k]); }
  }
  if (col != null) out.push([col + 0.5, lo, hi]);
  return out;
}
const F_LO = 30, F_HI = 400;
function drawRender(ctx, lane, W) {
  const [pt, pb] = LANE_PAD.render;
  const h = lane.h - pt - pb, mid = pt + h / 2, amp = h / 2;
  hline(ctx, mid, W, 'rgba(88,196,166,.18)');
  // frequency scale on the right
  ctx.font = '9.5px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const f of [50, 100, 200, 400]) {
    const y = freqY(f, pt, h);
    hline(ctx, y, W, 'rgba(230,162,60,.08)', [1, 5]);
    ctx.fillStyle = 'rgba(230,162,60,.55)';
    ctx.fillText(`${f} Hz`, W - 40, y);
  }
  const r = S.render;
  if (!r || !r.min) {
    ctx.fillStyle = '#5f6670';
    ctx.fillText('rendering…', 10, mid - 12);
    return;
  }
  const cols = r.min.length, dt = (r.t1 - r.t0) / cols;
  const x0 = xOf(r.t0), cw = dt * S.view.pxps;
  // min/max envelope as one filled shape
  ctx.beginPath();
  for (let c = 0; c < cols; c++) ctx.lineTo(x0 + c * cw, mid - clamp(r.max[c], -1, 1) * amp);
  ctx.lineTo(x0 + cols * cw, mid - clamp(r.max[cols - 1], -1, 1) * amp);
  ctx.lineTo(x0 + cols * cw, mid - clamp(r.min[cols - 1], -1, 1) * amp);
  for (let c = cols - 1; c >= 0; c--) ctx.lineTo(x0 + c * cw, mid - clamp(r.min[c], -1, 1) * amp);
  ctx.closePath();
  const grad = ctx.createLinearGradient(0, pt, 0, pt + h);
  grad.addColorStop(0, 'rgba(88,196,166,.85)');
  grad.addColorStop(0.5, 'rgba(88,196,166,.45)');
  grad.addColorStop(1, 'rgba(88,196,166,.85)');
  ctx.fillStyle = grad;
  ctx.fill();
  // dominant frequency, broken where silent
  const fr = r.frequency || [];
  ctx.strokeStyle = 'rgba(230, 162, 60, .85)';
  ctx.lineWidth = 1.25;
  ctx.beginPath();
  let pen = false;
  for (let c = 0; c < fr.length; c++) {
    const f = fr[c];
    if (f == null || !(f > 0)) { pen = false; continue; }
    const x = x0 + (c + 0.5) * cw, y = freqY(f, pt, h);
    if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
    pen = true;
  }
  ctx.stroke();
  ctx.lineWidth = 1;
  if (r.rev !== (S.doc && S.doc.revision)) {
    ctx.fillStyle = '#5f6670';
    ctx.fillText('updating…', 10, pt + 8);
  }
}
function freqY(f, pt, h) {
  const u = (Math.log(clamp(f, F_LO, F_HI)) - Math.log(F_LO)) / (Math.log(F_HI) - Math.log(F_LO));
  return pt + (1 - u) * h;
}

// ---- render data: re-fetched (debounced) after document and view changes ----
let renderTimer = 0;
function scheduleRender(delay = 50) {
  clearTimeout(renderTimer);
  renderTimer = setTimeout(fetchRender, delay);
}
async function fetchRender() {
  if (!S.doc) return;
  const seq = ++S.renderSeq;
  const rev = S.doc.revision;
  const t0 = Math.max(0, S.view.t0), t1 = Math.min(viewEnd(), t0 + 600);   // the server renders 600 s at most
  const columns = clamp(Math.round((t1 - t0) * S.view.pxps), 1, 4096);
  const q = new URLSearchParams({ path: S.path, t0: t0.toFixed(6), t1: t1.toFixed(6), columns: String(columns) });
  if (S.profile) q.set('profile', S.profile);
  if (S.side === 'baseline') q.set('side', 'baseline');
  let data;
  try { data = await api.get('/api/render?' + q); } catch (err) { if (seq === S.renderSeq) status(`Render: ${err.message}`); return; }
  if (seq !== S.renderSeq) return;        // a newer request is on its way
  S.render = Object.assign(data, { rev });
  drawTracks();
  if (S.editMark && rev >= S.editMark.rev) {
    timings.lastEditToRedraw = Math.round((performance.now() - S.editMark.t) * 10) / 10;
    S.editMark = null;
  }
}

// ---- playhead: its own element, moved in requestAnimationFrame ----
function playheadTime(now) {
  const p = S.play;
  let t = p.base + (now - p.t) / 1000 - p.latency;
  if (p.loop && p.to != null && p.to > p.from) {
    if (t >= p.to) t = p.from + ((t - p.from) % (p.to - p.from));
  }
  return t;
}
function playheadFrame(now) {
  const p = S.play;
  if (!p.playing) return;
  const t = playheadTime(now);
  el.playhead.style.transform = `translateX(${xOf(Math.max(p.from, t)).toFixed(1)}px)`;
  p.frames++;
  if (now - p.clockAt > 50) { el.clock.textContent = `${Math.max(0, t).toFixed(3)} s`; p.clockAt = now; }
  // no stopped event 1 s after the end: stop drawing (the stream may be down)
  if (!p.loop && p.to != null && t > p.to + 1) { endPlayback(); return; }
  requestAnimationFrame(playheadFrame);
}
function startPlayback(info, latency) {
  const p = S.play;
  const now = performance.now();
  const wasPlaying = p.playing;
  Object.assign(p, {
    playing: true, id: info.id, from: num(info.from), to: info.to == null ? null : num(info.to),
    loop: !!info.loop, base: num(info.from), t: now, latency: num(latency), clockAt: 0,
  });
  if (!wasPlaying) { p.frames = 0; p.start = now; }
  el.playhead.hidden = false;
  document.body.classList.add('playing');
  el.btnPlay.setAttribute('aria-pressed', 'true');
  if (!wasPlaying) requestAnimationFrame(playheadFrame);
}
function correctPlayback(time) {
  const p = S.play;
  if (!p.playing) return;
  const now = performance.now();
  const err = time - playheadTime(now);
  // jump on a big error (a seek or loop), otherwise steer gently to avoid jitter
  p.base = Math.abs(err) > 0.03 ? time : playheadTime(now) + err * 0.5;
  p.t = now;
  p.latency = 0;
  if (p.loop) p.base = clamp(p.base, p.from, p.to == null ? Infinity : p.to);
}
function endPlayback() {
  const p = S.play;
  if (!p.playing) return;
  p.playing = false;
  const secs = (performance.now() - p.start) / 1000;
  if (secs > 0.05) timings.playheadFps = Math.round((p.frames / secs) * 10) / 10;
  el.playhead.hidden = true;
  document.body.classList.remove('playing');
  el.btnPlay.setAttribute('aria-pressed', 'false');
  el.clock.textContent = `${S.cursor.toFixed(3)} s`;
}

// ======================================================================
// document: load, set, redraw
// ======================================================================

async function openPattern(path, { fit = true } = {}) {
  S.path = path;
  S.sel.clear();
  S.selPoint = null;
  S.preview.clear();
  S.render = null;
  S.loop = { on: false, a: null, b: null };
  el.btnLoop.setAttribute('aria-pressed', 'false');
  hideBanner();
  try {
    const doc = await api.pattern(path);
    if (S.path !== path) return;
    setDocument(doc, { fit, force: true });
  } catch (err) {
    toast(`Cannot open ${path}: ${err.message}`, true);
    markReady();
  }
  highlightFolderItem();
  try {
    const u = new URL(location.href);
    if (S.session && S.session.mode === 'folder') { u.searchParams.set('path', path); history.replaceState(null, '', u); }
  } catch (_) { /* not important */ }
}

/** Draws a document answer (from /api/pattern, an edit, undo, redo or fix). */
function setDocument(doc, { fit = false, force = false } = {}) {
  if (!doc || !Array.isArray(doc.entries)) return;
  if (doc.path && S.path && doc.path !== S.path) return;
  if (!force && S.doc && doc.revision < S.doc.revision) return;   // an older answer
  if (!force && S.doc && doc.revision === S.doc.revision && doc.path === S.doc.path) {
    if (S.preview.size && !S.drag) clearPreview();                // already drawn
    return;
  }
  const began = performance.now();
  S.doc = doc;
  S.entries = doc.entries;
  if (!S.drag) S.preview.clear();       // a gesture still running keeps its preview
  for (const i of [...S.sel]) if (!S.entries[i]) S.sel.delete(i);
  if (S.selPoint && !(S.entries[S.selPoint.n] && (S.entries[S.selPoint.n].points || [])[S.selPoint.k])) S.selPoint = null;
  el.empty.hidden = true;
  if (fit) fitView(false);
  buildTimeline();
  schedule({ canvas: true });          // in the next frame: one style pass for the new DOM
  el.timeline.setAttribute('data-hap-revision', String(doc.revision));
  el.docName.textContent = doc.path || S.path || '—';
  el.docName.title = `${doc.path} · revision ${doc.revision}`;
  el.btnUndo.disabled = !(doc.undo > 0);
  el.btnRedo.disabled = !(doc.redo > 0);
  el.statusRev.textContent = `rev ${doc.revision} · ${doc.entries.length} entries · ${fmt(doc.duration)} s`;
  renderInspector();
  renderFindings();
  scheduleRender(0);   // a new document is drawn at once; only zoom and scroll are debounced
  scheduleCompare();
  timings.documentDraw = Math.round((performance.now() - began) * 10) / 10;
}
function markReady() {
  if (S.ready) return;
  S.ready = true;
  document.body.setAttribute('data-hap-ready', '1');
  timings.ready = Math.round(performance.now() * 10) / 10;
}
async function refreshDocument() {
  if (!S.path) return;
  try { setDocument(await api.pattern(S.path)); } catch (err) { status(`Reload failed: ${err.message}`); }
}

// ---- view ----
function extent() {
  const d = S.doc ? num(S.doc.duration) : 1;
  return Math.max(d * 1.5, d + 1, S.cursor + 0.5, S.loop.b || 0, 1);
}
function setView(t0, pxps) {
  pxps = clamp(pxps, Math.max(MIN_PXPS, S.width / 7200), MAX_PXPS);
  const spanS = S.width / pxps;
  t0 = clamp(t0, -LEFT_MARGIN / pxps, Math.max(0, extent() - spanS * 0.25));
  if (t0 === S.view.t0 && pxps === S.view.pxps) return;
  S.view.t0 = t0;
  S.view.pxps = pxps;
  updateViewAttrs();                  // the test hooks follow at once
  schedule({ layout: true, canvas: true });
  scheduleRender();
}
function fitView(animate = true) {
  const d = S.doc ? num(S.doc.duration) : 1;
  let end = d;
  for (const e of S.entries) {
    const [, b] = span(e);
    end = Math.max(end, b + (e.kind === 'continuous' ? releaseSec(e.release) : 0));
  }
  const spanS = Math.max(0.2, end * 1.04 + 0.02);
  const pxps = clamp((S.width - LEFT_MARGIN - 8) / spanS, MIN_PXPS, MAX_PXPS);
  const t0 = -LEFT_MARGIN / pxps;
  if (!animate) { S.view.t0 = t0; S.view.pxps = pxps; updateViewAttrs(); return; }
  setView(t0, pxps);
}
function zoomAt(x, factor) {
  const t = tOf(x);
  const pxps = clamp(S.view.pxps * factor, MIN_PXPS, MAX_PXPS);
  setView(t - x / pxps, pxps);
}
function zoomKey(factor) {
  const cx = xOf(S.cursor);
  zoomAt(cx >= 0 && cx <= S.width ? cx : S.width / 2, factor);
}
function revealTime(t) {
  const x = xOf(t);
  if (x < 20 || x > S.width - 20) setView(t - (S.width * 0.3) / S.view.pxps, S.view.pxps);
}

// ======================================================================
// edits: JSON Patch ops built from the entries' paths
// ======================================================================

/** The JSON pointer of the object an entry lives in: /Pattern/N/Event, …/Parameter, …/ParameterCurve. */
function containerPath(e) {
  const tp = timePath(e);
  if (tp) return tp.replace(/\/[^/]*$/, '');
  const key = e.kind === 'parameter' ? 'Parameter' : e.kind === 'curve' ? 'ParameterCurve' : 'Event';
  return `/Pattern/${e.index}/${key}`;
}
/** Where the entry writes its time: `Time`, or the `EventTime`/`ParameterTime` spellings iOS also reads. */
function timePath(e) {
  const p = e.paths || {};
  return p.Time || p.EventTime || p.ParameterTime || null;
}

/**
 * Ops that set one field of an entry. `ctx` carries, per entry, whether this patch
 * already created EventParameters (so a second absent parameter appends to it).
 */
function fieldOps(e, field, value, ctx) {
  const paths = e.paths || {};
  const base = containerPath(e);
  if (field === 'time') { const tp = timePath(e); return [{ op: tp ? 'replace' : 'add', path: tp || base + '/Time', value }]; }
  if (field === 'duration') return [{ op: paths.EventDuration ? 'replace' : 'add', path: paths.EventDuration || base + '/EventDuration', value }];
  if (field === 'value') return [{ op: paths.ParameterValue ? 'replace' : 'add', path: paths.ParameterValue || base + '/ParameterValue', value }];
  const pid = FIELD_PARAM[field];
  if (!pid) return [];
  if (field === 'sustained') value = value ? 1 : 0;
  if (paths[pid]) return [{ op: 'replace', path: paths[pid], value }];
  const item = { ParameterID: pid, ParameterValue: value };
  const key = e.index;
  const listPath = e.parametersPath || (ctx && ctx.created.has(key) ? base + '/EventParameters' : null);
  if (listPath) return [{ op: 'add', path: listPath + '/-', value: item }];
  if (ctx) ctx.created.add(key);
  return [{ op: 'add', path: base + '/EventParameters', value: [item] }];
}
const newCtx = () => ({ created: new Set() });

/** Ops for the running preview: every field that differs from the document. */
function opsFromPreview() {
  const ops = [];
  const ctx = newCtx();
  for (const [i, ov] of S.preview) {
    const e = S.entries[i];
    for (const field of Object.keys(ov)) {
      if (field === 'points') { ops.push(...pointOps(e, ov.points)); continue; }
      if (ov[field] !== e[field]) ops.push(...fieldOps(e, field, ov[field], ctx));
    }
  }
  return ops;
}
function pointOps(e, pts) {
  const ops = [];
  (e.points || []).forEach((p, k) => {
    const q = pts[k];
    if (!q || !p.paths) return;
    if (q.time !== p.time) ops.push({ op: 'replace', path: p.paths.Time, value: q.time });
    if (q.value !== p.value) ops.push({ op: 'replace', path: p.paths.ParameterValue, value: q.value });
  });
  return ops;
}
/** The control-points array of a curve, from a point's path (or the curve's own path). */
function pointsPath(e) {
  const p = (e.points || []).find((q) => q.paths && q.paths.Time);
  if (p) return p.paths.Time.replace(/\/\d+\/[^/]*$/, '');
  return containerPath(e) + '/ParameterCurveControlPoints';
}

/**
 * An entry's JSON (for copy/paste and the palette): as the file writes it when the server
 * sent it (every key kept, the time moved), else built from its fields.
 */
function entryJSON(e, time) {
  const t = time == null ? num(e.time) : time;
  if (e.json && typeof e.json === 'object') {
    const copy = JSON.parse(JSON.stringify(e.json));
    const body = copy.Event || copy.Parameter || copy.ParameterCurve;
    if (body && typeof body === 'object') {
      if (time != null) body.Time = t;
      return copy;
    }
  }
  if (e.kind === 'parameter') return { Parameter: { ParameterID: e.parameter, Time: t, ParameterValue: num(e.value) } };
  if (e.kind === 'curve') {
    return { ParameterCurve: { ParameterID: e.parameter, Time: t,
      ParameterCurveControlPoints: (e.points || []).map((p) => ({ Time: num(p.time), ParameterValue: num(p.value) })) } };
  }
  const type = EVENT_TYPE[e.kind];
  if (!type) return null;
  const ev = { Time: t, EventType: type };
  const paths = e.paths || {};
  if (e.kind === 'continuous' || e.kind === 'audioContinuous' || paths.EventDuration) ev.EventDuration = num(e.duration);
  if (e.kind === 'audioCustom') ev.EventWaveformPath = e.sound;
  const always = e.kind.startsWith('audio') ? ['volume'] : ['intensity', 'sharpness'];
  const params = [];
  for (const f of KIND_FIELDS[e.kind]) {
    const pid = FIELD_PARAM[f];
    if (!(always.includes(f) || paths[pid]) || e[f] == null) continue;
    params.push({ ParameterID: pid, ParameterValue: f === 'sustained' ? (e[f] ? 1 : 0) : e[f] });
  }
  if (params.length) ev.EventParameters = params;
  return { Event: ev };
}

/**
 * Sends one JSON Patch as one step. Edits are chained so each names the revision
 * the previous one produced. Resolves to the new document or null.
 */
function sendEdit(ops, opts = {}) {
  if (!ops.length || !S.doc) { clearPreview(); return Promise.resolve(null); }
  const run = async () => {
    S.inflight++;
    const body = { path: S.path, revision: S.doc.revision, ops };
    const r = await api.post('/api/edit', body);
    S.inflight--;
    if (r.ok) {
      if (S.editMark && opts.measure) S.editMark.rev = r.data.revision;
      setDocument(r.data);
      hideBanner();
      if (opts.after) opts.after(r.data);
    } else if (r.status === 409) {
      S.editMark = null;
      if (r.data.document) setDocument(r.data.document, { force: true }); else await refreshDocument();
      showConflict(ops, opts);
    } else {
      S.editMark = null;
      clearPreview();
      toast(editError(r), true);
    }
    refreshIfNewer();
    return r.ok ? r.data : null;
  };
  const p = S.editChain.then(run, run);
  S.editChain = p.catch(() => null);
  return p;
}
function editError(r) {
  const msg = (r.data && r.data.error) || `error ${r.status}`;
  if (r.status === 429) return `Too many edits at once; slow down. (${msg})`;
  if (r.status === 422) return `The edit was refused: ${msg}`;
  return `The edit failed: ${msg}`;
}
function clearPreview() {
  const keys = [...S.preview.keys()];
  S.preview.clear();
  for (const i of keys) layoutEntry(i);
  schedule({ canvas: true, layout: true });
}

function showConflict(ops, opts) {
  S.conflictOps = { ops, opts };
  el.banner.hidden = false;
  el.bannerApply.focus();
}
function hideBanner() { el.banner.hidden = true; S.conflictOps = null; }

async function undoRedo(which) {
  if (!S.path) return;
  S.inflight++;
  const r = await api.post(`/api/${which}`, { path: S.path });
  S.inflight--;
  if (r.ok && r.data && Array.isArray(r.data.entries)) setDocument(r.data);
  else if (r.ok) await refreshDocument();
  else if (r.status === 409) { toast(`The file was changed by another program; nothing to ${which} here.`, true); await refreshDocument(); }
  else toast(`${which === 'undo' ? 'Undo' : 'Redo'}: ${(r.data && r.data.error) || 'nothing to do'}`);
}

/** Audition: plays only what a gesture touched, around where it was touched. */
function audition(indices, from, to) {
  if (!S.audition || !S.path) return;
  api.post('/api/play', { path: S.path, from: Math.max(0, round6(from)), to: round6(to), loop: false, side: 'edit', entries: indices })
    .then((r) => { if (r.ok && (!S.play.playing || S.play.id !== r.data.id)) startPlayback(r.data, 0); });
}
function auditionRange(indices) {
  let a = Infinity, b = -Infinity;
  for (const i of indices) {
    const e = S.entries[i];
    if (!e) continue;
    const [s, t] = span(e);
    a = Math.min(a, s);
    b = Math.max(b, t + (e.kind === 'transient' ? 0.12 : releaseSec(e.release) + 0.05));
  }
  return isFinite(a) ? [Math.max(0, a - 0.03), b] : null;
}

// ======================================================================
// interaction: selection
// ======================================================================

function select(indices, { add = false, toggle = false } = {}) {
  if (!add && !toggle) S.sel.clear();
  for (const i of indices) {
    if (toggle && S.sel.has(i)) S.sel.delete(i); else S.sel.add(i);
  }
  if (S.selPoint && !S.sel.has(S.selPoint.n)) S.selPoint = null;
  applySelectionClasses();
  renderInspector();
  markActiveFinding();
}
function clearSelection() { S.sel.clear(); S.selPoint = null; applySelectionClasses(); renderInspector(); markActiveFinding(); }

// ======================================================================
// interaction: pointer gestures on the timeline
// ======================================================================

function localXY(ev) {
  const r = el.timeline.getBoundingClientRect();
  return { x: ev.clientX - r.left, y: ev.clientY - r.top - RULER_H };
}

function onPointerDown(ev) {
  if (!S.doc) return;
  if (ev.button === 1 || (ev.button === 0 && ev.altKey && !ev.target.closest('[data-hap-event],[data-hap-point]'))) {
    return startPan(ev);
  }
  if (ev.button !== 0) return;
  el.timeline.focus({ preventScroll: true });
  const t = ev.target;
  if (t.closest('.ruler')) return startRulerGesture(ev);
  const mark = t.closest('.fmark');
  if (mark) { ev.preventDefault(); return selectFromMark(+mark.dataset.mark); }
  const point = t.closest('[data-hap-point]');
  if (point) return startPointDrag(ev, point);
  const handle = t.closest('[data-handle]');
  const entryEl = t.closest('[data-hap-event]') || curveLineOf(t);
  if (entryEl) {
    const i = +entryEl.getAttribute('data-hap-event');
    return startEntryDrag(ev, i, handle ? handle.dataset.handle : 'move');
  }
  if (t.closest('.tracks')) return startBand(ev);
}
/** The hit polyline of a curve stands for its line. */
function curveLineOf(t) {
  if (!t.classList || !t.classList.contains('curve-hit')) return null;
  return t.parentNode.querySelector('[data-hap-event]');
}

/**
 * Generic drag plumbing: pointer capture, a threshold, then onMove(dx, dy) per move and
 * onEnd() (or onClick() when it never moved). Listens on window, so a drag survives its
 * element being redrawn.
 */
function beginDrag(ev, d) {
  ev.preventDefault();
  try { ev.target.setPointerCapture(ev.pointerId); } catch (_) { /* synthetic events */ }
  S.drag = Object.assign({ x0: ev.clientX, y0: ev.clientY, started: false, pointerId: ev.pointerId }, d);
  const drag = S.drag;
  const move = (e) => {
    if (e.pointerId !== drag.pointerId) return;
    let dx = e.clientX - drag.x0, dy = e.clientY - drag.y0;
    if (!drag.started && Math.abs(dx) + Math.abs(dy) < DRAG_THRESHOLD) return;
    drag.started = true;
    if (e.shiftKey && drag.axisLock) { if (Math.abs(dx) > Math.abs(dy)) dy = 0; else dx = 0; }
    drag.onMove(dx, dy, e);
  };
  const done = () => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    window.removeEventListener('pointercancel', cancel);
    if (S.drag === drag) S.drag = null;
  };
  const up = (e) => {
    if (e.pointerId !== drag.pointerId) return;
    done();
    if (drag.started) drag.onEnd(e); else if (drag.onClick) drag.onClick(e);
    refreshIfNewer();
  };
  const cancel = (e) => {
    if (e.pointerId !== drag.pointerId) return;
    done();
    el.band.hidden = true;
    clearPreview();
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', cancel);
}

/** Drag an entry: its body moves the selection in time (and a transient's intensity,
 * a step's value); handles change sharpness, duration or a block's intensity. */
function startEntryDrag(ev, i, mode) {
  const e = S.entries[i];
  if (!e || e.kind === 'other') {
    select([i], { toggle: ev.shiftKey, add: false });
    return;
  }
  const wasSelected = S.sel.has(i);
  if (!wasSelected && !ev.shiftKey) select([i]);
  if (!wasSelected && ev.shiftKey) select([i], { add: true });
  const group = mode === 'move' && S.sel.has(i) ? [...S.sel].filter((j) => S.entries[j] && S.entries[j].kind !== 'other') : [i];
  const minT = Math.min(...group.map((j) => num(S.entries[j].time)));
  const lane = S.els[i].lane;
  beginDrag(ev, {
    axisLock: true,
    onMove(dx, dy) {
      S.preview.clear();
      if (mode === 'move') previewMove(group, i, dx, dy, minT, lane);
      else previewHandle(e, mode, dx, dy, lane);
      for (const j of group) layoutEntry(j);        // only what moves: no full layout per frame
      layoutMarks();
      if (group.some((j) => S.entries[j].kind === 'audioCustom')) schedule({ canvas: true });
      status(dragStatus(i));
    },
    onEnd() { finishGesture(group); },
    onClick(pe) {
      if (pe.shiftKey) { if (wasSelected) select([i], { toggle: true }); }
      else select([i]);
    },
  });
}
function previewMove(group, primary, dx, dy, minT, lane) {
  let dt = dx / S.view.pxps;
  if (S.snap) dt = snapTime(num(S.entries[primary].time) + dt, new Set(group)) - num(S.entries[primary].time);
  dt = Math.max(dt, -minT);                       // nothing before 0
  for (const j of group) {
    const e = S.entries[j];
    const ov = {};
    if (dx !== 0) ov.time = round6(num(e.time) + dt);
    if (dy !== 0 && e.kind === 'transient' && S.els[j].lane === lane) {
      ov.intensity = round3(clamp(num(e.intensity, 0.75) - dy * valuePerPx(lane), 0, 1));
    }
    if (dy !== 0 && e.kind === 'parameter' && j === primary) {
      ov.value = round3(clamp(num(e.value) - dy * valuePerPx(lane), lane.param.min, lane.param.max));
    }
    S.preview.set(j, ov);
  }
}
function previewHandle(e, mode, dx, dy, lane) {
  const ov = {};
  if (mode === 'sharp') ov.sharpness = round3(clamp(num(e.sharpness, 0.5) + dx / SHARPNESS_PX, 0, 1));
  if (mode === 'int') ov.intensity = round3(clamp(num(e.intensity, 1) - dy * valuePerPx(lane), 0, 1));
  if (mode === 'dur') {
    let end = num(e.time) + num(e.duration) + dx / S.view.pxps;
    if (S.snap) end = snapTime(end, new Set([e.index]));
    ov.duration = round6(Math.max(0.001, end - num(e.time)));
  }
  S.preview.set(e.index, ov);
}
function dragStatus(i) {
  const e = entryNow(i);
  const bits = [`t ${fmt(e.time, 4)} s`];
  if (e.duration != null && e.kind !== 'transient') bits.push(`dur ${fmt(e.duration, 4)} s`);
  if (e.intensity != null) bits.push(`I ${fmt(e.intensity)}`);
  if (e.sharpness != null) bits.push(`S ${fmt(e.sharpness)}`);
  if (e.value != null) bits.push(`value ${fmt(e.value)}`);
  return bits.join(' · ');
}

/** Ends a gesture: one POST, then an audition of what it touched. */
function finishGesture(indices, auditionSpan) {
  const ops = opsFromPreview();
  if (!ops.length) { clearPreview(); return; }
  S.editMark = { t: performance.now(), rev: Infinity };
  sendEdit(ops, {
    measure: true,
    after() {
      const r = auditionSpan || auditionRange(indices);
      if (r) audition(indices, r[0], r[1]);
    },
  });
}

/** Curve points: drag in time and value. */
function startPointDrag(ev, point) {
  const [n, k] = point.getAttribute('data-hap-point').split(':').map(Number);
  const e = S.entries[n];
  if (!e) return;
  S.selPoint = { n, k };
  if (!S.sel.has(n) || S.sel.size !== 1) S.sel = new Set([n]);
  applySelectionClasses();
  renderInspector();
  const lane = S.els[n].lane;
  const p0 = e.points[k];
  beginDrag(ev, {
    axisLock: true,
    onMove(dx, dy) {
      const pts = e.points.map((p) => ({ time: p.time, value: p.value }));
      if (dx !== 0) {
        let abs = num(e.time) + num(p0.time) + dx / S.view.pxps;
        if (S.snap) abs = snapTime(abs, new Set([n]));
        pts[k].time = round6(Math.max(0, abs - num(e.time)));
      }
      if (dy !== 0) pts[k].value = round3(clamp(num(p0.value) - dy * valuePerPx(lane), lane.param.min, lane.param.max));
      S.preview.set(n, { points: pts });
      layoutEntry(n);
      status(`point ${k}: t ${fmt(pts[k].time, 4)} s (from the curve) · value ${fmt(pts[k].value)}`);
    },
    onEnd() {
      const ts = e.points.map((p) => num(e.time) + num(p.time)).sort((a, b) => a - b);
      const here = num(e.time) + num(S.preview.get(n).points[k].time);
      const prev = ts.filter((t) => t < here).pop();
      const next = ts.find((t) => t > here);
      finishGesture([n], [prev != null ? prev : here - 0.1, next != null ? next : here + 0.1]);
    },
  });
}

/** Double-click a curve's line: a new point there. */
function onDblClick(ev) {
  const line = ev.target.closest('.curve-line') || curveLineOf(ev.target);
  if (!line) return;
  const n = +line.getAttribute('data-hap-event');
  const e = S.entries[n];
  const lane = S.els[n].lane;
  const { x, y } = localXY(ev);
  const rel = round6(Math.max(0, snapTime(tOf(x)) - num(e.time)));
  const [lo, hi] = laneRange(lane);
  const value = round3(clamp(lo + (1 - (y - lane.top - LANE_PAD.control[0]) / (lane.h - LANE_PAD.control[0] - LANE_PAD.control[1])) * (hi - lo), lo, hi));
  const pts = e.points || [];
  const sortedWritten = pts.every((p, k) => k === 0 || num(p.time) >= num(pts[k - 1].time));
  const k = sortedWritten ? pts.filter((p) => num(p.time) <= rel).length : pts.length;
  const path = `${pointsPath(e)}/${sortedWritten ? k : '-'}`;
  sendEdit([{ op: 'add', path, value: { Time: rel, ParameterValue: value } }], {
    after() { S.selPoint = { n, k }; S.sel = new Set([n]); applySelectionClasses(); renderInspector(); },
  });
}

/** Rubber band on an empty area (a click there sets the cursor and clears the selection). */
function startBand(ev) {
  const a = localXY(ev);
  beginDrag(ev, {
    onMove(dx, dy) {
      const x1 = a.x + dx, y1 = a.y + dy;
      const L = Math.min(a.x, x1), T = Math.min(a.y, y1);
      Object.assign(el.band.style, { left: L + 'px', top: T + RULER_H + 'px', width: Math.abs(dx) + 'px', height: Math.abs(dy) + 'px' });
      el.band.hidden = false;
    },
    onEnd(e) {
      el.band.hidden = true;
      const b = localXY(e);
      const ta = tOf(Math.min(a.x, b.x)), tb = tOf(Math.max(a.x, b.x));
      const ya = Math.min(a.y, b.y), yb = Math.max(a.y, b.y);
      const hits = S.entries.filter((en) => {
        const lane = S.els[en.index] && S.els[en.index].lane;
        if (!lane || lane.top + lane.h < ya || lane.top > yb) return false;
        const [s, t] = span(en);
        return t >= ta && s <= tb;
      }).map((en) => en.index);
      select(hits, { add: e.shiftKey });
    },
    onClick(e) {
      if (!e.shiftKey) clearSelection();
      setCursor(snapTime(tOf(a.x)));
    },
  });
}

/** Ruler: click sets the cursor, drag scrubs it, shift+drag draws the loop region. */
function startRulerGesture(ev) {
  const a = localXY(ev);
  const t0 = Math.max(0, tOf(a.x));
  if (!ev.shiftKey) setCursor(snapTime(t0));
  beginDrag(ev, {
    onMove(dx) {
      const t1 = Math.max(0, tOf(a.x + dx));
      if (ev.shiftKey) {
        S.loop.a = snapTime(Math.min(t0, t1));
        S.loop.b = snapTime(Math.max(t0, t1));
        S.loop.on = true;
        el.btnLoop.setAttribute('aria-pressed', 'true');
        layoutCursorAndLoop();
      } else setCursor(snapTime(t1));
    },
    onEnd() { if (ev.shiftKey) status(`Loop ${fmt(S.loop.a)}–${fmt(S.loop.b)} s`); },
  });
}

function startPan(ev) {
  ev.preventDefault();
  const t00 = S.view.t0;
  beginDrag(ev, {
    onMove(dx) { setView(t00 - dx / S.view.pxps, S.view.pxps); },
    onEnd() {},
  });
}

function setCursor(t) {
  S.cursor = Math.max(0, round6(t));
  layoutCursorAndLoop();
}

function selectFromMark(i) {
  select([i]);
  const f = ((S.doc && S.doc.findings) || []).find((x) => x.entry === i);
  if (f) {
    S.activeFinding = f.id;
    markActiveFinding();
    const li = el.findings.querySelector(`[data-finding-id="${f.id}"]`);
    if (li) li.scrollIntoView({ block: 'nearest' });
  }
}

// ---- wheel: zoom around the pointer; shift or horizontal wheel scrolls; alt over a stem: sharpness ----
let wheelEdit = null;
function onWheel(ev) {
  if (!S.doc) return;
  ev.preventDefault();
  const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? S.width : 1;
  const dx = ev.deltaX * unit, dy = ev.deltaY * unit;
  const stem = ev.altKey && ev.target.closest('.ev-transient');
  if (stem) return wheelSharpness(+stem.getAttribute('data-hap-event'), dy || dx);
  if (ev.shiftKey && !ev.ctrlKey) { setView(S.view.t0 + (dy || dx) / S.view.pxps, S.view.pxps); return; }
  if (Math.abs(dx) > Math.abs(dy) && !ev.ctrlKey) { setView(S.view.t0 + dx / S.view.pxps, S.view.pxps); return; }
  const { x } = localXY(ev);
  // pinch arrives as ctrl+wheel with small deltas: the same exponential map fits both
  zoomAt(x, Math.exp(-dy * (ev.ctrlKey ? 0.01 : 0.0015)));
}
/** Alt+wheel over a transient: preview sharpness, send one edit 300 ms after the last tick. */
function wheelSharpness(i, d) {
  const e = S.entries[i];
  if (!e) return;
  if (!wheelEdit || wheelEdit.i !== i) {
    if (wheelEdit) flushWheelEdit();
    wheelEdit = { i, v: num(e.sharpness, 0.5), timer: 0 };
  }
  wheelEdit.v = round3(clamp(wheelEdit.v - Math.sign(d) * 0.02, 0, 1));
  S.preview.set(i, { sharpness: wheelEdit.v });
  layoutEntry(i);
  status(`Sharpness ${fmt(wheelEdit.v)}`);
  clearTimeout(wheelEdit.timer);
  wheelEdit.timer = setTimeout(flushWheelEdit, 300);
}
function flushWheelEdit() {
  if (!wheelEdit) return;
  const { i } = wheelEdit;
  clearTimeout(wheelEdit.timer);
  wheelEdit = null;
  finishGesture([i]);
}

// ---- scrollbar ----
function onScrollbarDown(ev) {
  if (!S.doc || ev.button !== 0) return;
  const ext = extent();
  const perPx = ext / Math.max(1, S.width);
  if (ev.target === el.hthumb) {
    const t00 = S.view.t0;
    beginDrag(ev, { onMove(dx) { setView(t00 + dx * perPx, S.view.pxps); }, onEnd() {}, onClick() {} });
    return;
  }
  const r = el.hscroll.getBoundingClientRect();
  const t = (ev.clientX - r.left) * perPx;
  const spanS = S.width / S.view.pxps;
  setView(t - spanS / 2, S.view.pxps);
}

// ======================================================================
// keyboard
// ======================================================================

function onKeyDown(ev) {
  const tag = (ev.target.tagName || '').toLowerCase();
  const typing = tag === 'input' || tag === 'select' || tag === 'textarea';
  if (ev.key === 'Escape') {
    if (!el.help.hidden) { el.help.hidden = true; return; }
    if (!typing) clearSelection();
    return;
  }
  if (typing) return;
  const mod = ev.ctrlKey || ev.metaKey;
  const k = ev.key;
  const lower = k.length === 1 ? k.toLowerCase() : k;
  const act = keyAction(k, lower, mod, ev);
  if (act) { ev.preventDefault(); act(); }
}
function keyAction(k, lower, mod, ev) {
  if (mod) {
    if (lower === 'z' && ev.shiftKey) return () => undoRedo('redo');
    if (lower === 'z') return () => undoRedo('undo');
    if (lower === 'y') return () => undoRedo('redo');
    if (lower === 'c') return copySelection;
    if (lower === 'v') return pasteAtCursor;
    if (lower === 'a') return () => select(S.entries.map((e) => e.index));
    if (k === '=' || k === '+') return () => zoomKey(1.5);
    if (k === '-') return () => zoomKey(1 / 1.5);
    if (k === '0') return () => fitView();
    return null;
  }
  if (ev.altKey) return null;
  switch (k) {
    case ' ': return togglePlay;
    case '?': return () => { el.help.hidden = !el.help.hidden; if (!el.help.hidden) el.helpClose.focus(); };
    case '+': case '=': return () => zoomKey(1.5);
    case '-': case '_': return () => zoomKey(1 / 1.5);
    case '0': return () => fitView();
    case 'Home': return () => { setCursor(0); revealTime(0); };
    case 'End': return () => { const d = S.doc ? num(S.doc.duration) : 0; setCursor(d); revealTime(d); };
    case 'Delete': case 'Backspace': return deleteSelection;
    case 'ArrowLeft': return () => nudge(ev.shiftKey ? -0.01 : -0.001);
    case 'ArrowRight': return () => nudge(ev.shiftKey ? 0.01 : 0.001);
    default: break;
  }
  switch (lower) {
    case 's': return toggleSnap;
    case 'l': return loopFromSelection;
    case 'b': return () => setSide(S.side === 'edit' ? 'baseline' : 'edit');
    case 't': return () => addAtCursor('transient');
    case 'c': return () => addAtCursor('continuous');
    case 'k': return () => addAtCursor('curve');
    case 'p': return () => addAtCursor('parameter');
    default: return null;
  }
}

function togglePlay() { if (S.play.playing) stop(); else play(); }
async function play() {
  if (!S.path) return;
  const lp = S.loop;
  const looping = lp.on && lp.a != null && lp.b > lp.a;
  const body = looping
    ? { path: S.path, from: lp.a, to: lp.b, loop: true, side: S.side, entries: null }
    : { path: S.path, from: S.cursor, to: null, loop: false, side: S.side, entries: null };
  const r = await api.post('/api/play', body);
  if (!r.ok) { toast(`Play: ${(r.data && r.data.error) || r.status}`, true); return; }
  if (!S.play.playing || S.play.id !== r.data.id) startPlayback(r.data, 0);
}
async function stop() {
  const r = await api.post('/api/stop', {});
  if (!r.ok) toast(`Stop: ${(r.data && r.data.error) || r.status}`, true);
}
function toggleSnap() {
  S.snap = !S.snap;
  el.btnSnap.setAttribute('aria-pressed', String(S.snap));
  updateViewAttrs();
}
function loopFromSelection() {
  const r = S.sel.size ? auditionRange([...S.sel]) : null;
  if (r) {
    S.loop = { on: true, a: round6(Math.max(0, r[0])), b: round6(r[1]) };
  } else if (S.loop.a == null) {
    S.loop = { on: true, a: 0, b: round6(Math.max(0.05, num(S.doc && S.doc.duration) + 0.05)) };
  } else {
    S.loop.on = !S.loop.on;
  }
  el.btnLoop.setAttribute('aria-pressed', String(S.loop.on));
  layoutCursorAndLoop();
  status(S.loop.on ? `Loop ${fmt(S.loop.a)}–${fmt(S.loop.b)} s` : 'Loop off');
}
function toggleLoop() {
  if (S.loop.a == null) return loopFromSelection();
  S.loop.on = !S.loop.on;
  el.btnLoop.setAttribute('aria-pressed', String(S.loop.on));
  layoutCursorAndLoop();
}

function deleteSelection() {
  if (S.selPoint) {
    const { n, k } = S.selPoint;
    const e = S.entries[n];
    if (e && e.points && e.points.length <= 1) { toast('A curve needs a point: delete the curve instead.'); return; }
    const p = e && e.points && e.points[k];
    if (p && p.paths) {
      S.selPoint = null;
      sendEdit([{ op: 'remove', path: p.paths.Time.replace(/\/[^/]*$/, '') }]);
    }
    return;
  }
  if (!S.sel.size) return;
  const idx = [...S.sel].sort((a, b) => b - a);      // highest index first
  S.sel.clear();
  sendEdit(idx.map((i) => ({ op: 'remove', path: `/Pattern/${i}` })));
}
function nudge(dt) {
  if (!S.sel.size) { setCursor(Math.max(0, S.cursor + dt)); return; }
  const group = [...S.sel].filter((i) => S.entries[i] && S.entries[i].kind !== 'other');
  const minT = Math.min(...group.map((i) => num(S.entries[i].time)));
  dt = Math.max(dt, -minT);
  const ctx = newCtx();
  const ops = group.flatMap((i) => fieldOps(S.entries[i], 'time', round6(num(S.entries[i].time) + dt), ctx));
  sendEdit(ops);
}

function copySelection() {
  const items = [...S.sel].sort((a, b) => a - b).map((i) => S.entries[i]).filter((e) => e && entryJSON(e));
  if (!items.length) return;
  const t0 = Math.min(...items.map((e) => num(e.time)));
  S.clipboard = items.map((e) => ({ offset: num(e.time) - t0, entry: e }));
  try {
    if (navigator.clipboard) navigator.clipboard.writeText(JSON.stringify(items.map((e) => entryJSON(e)), null, 2)).catch(() => {});
  } catch (_) { /* not allowed here */ }
  status(`Copied ${items.length} ${items.length === 1 ? 'entry' : 'entries'}`);
}
function pasteAtCursor() {
  if (!S.clipboard || !S.doc) return;
  const first = S.entries.length;
  const ops = S.clipboard.map(({ offset, entry }) => ({ op: 'add', path: '/Pattern/-', value: entryJSON(entry, round6(S.cursor + offset)) }));
  sendEdit(ops, { after() { select(ops.map((_, k) => first + k)); } });
}

/** The palette: a new entry at the cursor (as an add op), then select it. */
function addAtCursor(kind) {
  if (!S.doc) return;
  const t = round6(S.cursor);
  const pid = el.addParamId.value || 'HapticIntensityControl';
  const p = DYNAMIC_BY_ID[pid] || DYNAMIC[0];
  let value;
  if (kind === 'transient') value = { Event: { Time: t, EventType: 'HapticTransient', EventParameters: [{ ParameterID: 'HapticIntensity', ParameterValue: 0.8 }, { ParameterID: 'HapticSharpness', ParameterValue: 0.5 }] } };
  if (kind === 'continuous') value = { Event: { Time: t, EventType: 'HapticContinuous', EventDuration: 0.25, EventParameters: [{ ParameterID: 'HapticIntensity', ParameterValue: 0.7 }, { ParameterID: 'HapticSharpness', ParameterValue: 0.4 }] } };
  if (kind === 'curve') {
    if (NO_CURVE.has(pid)) { toast(`${pid} cannot be a curve (iOS refuses it); add a step instead.`); return; }
    value = { ParameterCurve: { ParameterID: pid, Time: t, ParameterCurveControlPoints: [{ Time: 0, ParameterValue: p.max }, { Time: 0.25, ParameterValue: p.min === 0 ? 0 : p.def }] } };
  }
  if (kind === 'parameter') value = { Parameter: { ParameterID: pid, Time: t, ParameterValue: p.min === 0 ? 0.5 : 0 } };
  const i = S.entries.length;
  sendEdit([{ op: 'add', path: '/Pattern/-', value }], { after() { select([i]); } });
}

// ======================================================================
// panels: inspector, findings, A/B, folder, toolbar
// ======================================================================

function renderInspector() {
  const box = el.inspector;
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  box.replaceChildren();
  if (!S.doc) { box.appendChild(div('insp-empty', 'No pattern open.')); return; }
  if (S.sel.size === 0) return renderSummary(box);
  if (S.sel.size > 1) return renderMulti(box);
  const e = S.entries[[...S.sel][0]];
  renderEntryFields(box, e);
  if (focused) {
    const inp = box.querySelector(`[data-key="${focused}"]`);
    if (inp) inp.focus();
  }
}
function renderSummary(box) {
  const counts = {};
  for (const e of S.entries) counts[e.kind] = (counts[e.kind] || 0) + 1;
  const d = div('insp-empty');
  const lines = [
    [`${S.doc.path}`, `${fmt(S.doc.duration)} s, revision ${S.doc.revision}`],
    ...Object.entries(counts).map(([k, n]) => [KIND_NAME[k], String(n)]),
  ];
  for (const [a, b] of lines) {
    const row = div();
    const bb = document.createElement('b');
    bb.textContent = a;
    row.append(bb, document.createTextNode(' · ' + b));
    d.appendChild(row);
  }
  d.appendChild(div('insp-note', 'Click an event to edit it; drag on an empty area to select several. ? lists every shortcut.'));
  box.appendChild(d);
}
function renderMulti(box) {
  const idx = [...S.sel].sort((a, b) => a - b);
  const [a, b] = [Math.min(...idx.map((i) => span(S.entries[i])[0])), Math.max(...idx.map((i) => span(S.entries[i])[1]))];
  const d = div('insp-empty');
  d.append(div(null, `${idx.length} entries selected (${fmt(a)}–${fmt(b)} s)`),
    div('insp-note', 'Drag one to move them all; ←/→ nudge; Delete removes; Ctrl+C copies; L loops them.'));
  box.appendChild(d);
}
function renderEntryFields(box, e) {
  const head = div('insp-title');
  const sw = div('swatch');
  sw.style.background = e.kind === 'curve' || e.kind === 'parameter' ? (DYNAMIC_BY_ID[e.parameter] || { color: '#ccc' }).color
    : e.kind.startsWith('audio') ? '#b08cff' : e.kind === 'other' ? '#ff5f5f' : sharpColor(e.sharpness);
  head.append(sw, div('kind', KIND_NAME[e.kind] || e.kind), div('idx', `#${e.index}`));
  box.appendChild(head);
  if (e.kind === 'other') {
    box.appendChild(div('insp-empty', 'hap cannot read this entry; its findings say why. Fix the file, or delete the entry.'));
    return;
  }
  const grid = div('fields');
  const paths = e.paths || {};
  if (e.parameter) addInfoRow(grid, 'Parameter', e.parameter);
  if (e.kind === 'audioCustom') addInfoRow(grid, 'Sound', e.sound || '—');
  addNumberRow(grid, e, 'time', 'Time (s)', num(e.time), !paths.Time, 0.001);
  if (e.kind === 'continuous' || e.kind === 'audioContinuous' || (e.kind !== 'curve' && e.kind !== 'parameter' && paths.EventDuration)) {
    addNumberRow(grid, e, 'duration', 'Duration (s)', num(e.duration), !paths.EventDuration, 0.001);
  }
  if (e.kind === 'parameter') addNumberRow(grid, e, 'value', 'Value', num(e.value), !paths.ParameterValue, 0.01);
  const fields = KIND_FIELDS[e.kind] || [];
  if (fields.length) {
    const sep = div('insp-sep', 'Event parameters');
    grid.appendChild(sep);
  }
  for (const f of fields) {
    const info = FIELD_INFO[f];
    const absent = !paths[FIELD_PARAM[f]];
    if (info.bool) addCheckRow(grid, e, f, info.label, e[f] !== false, absent);
    else addNumberRow(grid, e, f, info.label, num(e[f], info.def), absent, 0.01);
  }
  box.appendChild(grid);
  if (e.kind === 'curve') box.appendChild(pointsTable(e));
  const fs = ((S.doc && S.doc.findings) || []).filter((f) => f.entry === e.index);
  if (fs.length) box.appendChild(div('insp-note', fs.map((f) => `${f.severity}: ${f.rule}`).join(' · ')));
}
function addInfoRow(grid, label, text) {
  const row = div('info');
  const a = document.createElement('span');
  a.textContent = label;
  const b = document.createElement('span');
  b.textContent = text;
  b.title = text;
  row.append(a, b);
  grid.appendChild(row);
}
let inputSeq = 0;
/** A field's label for the input `id`, marked "default" when the file does not write it. */
function fieldLabel(id, label, absent) {
  const l = document.createElement('label');
  l.htmlFor = id;
  l.textContent = label;
  if (absent) { const d = document.createElement('span'); d.className = 'def'; d.textContent = 'default'; l.appendChild(d); }
  return l;
}
function addNumberRow(grid, e, field, label, value, absent, step) {
  const id = `f-${++inputSeq}`;
  const l = fieldLabel(id, label, absent);
  const inp = document.createElement('input');
  inp.type = 'number';
  inp.id = id;
  inp.step = String(step);
  inp.value = String(value);
  inp.defaultValue = String(value);
  inp.dataset.key = `${e.index}:${field}`;
  inp.classList.toggle('absent', absent);
  inp.setAttribute('aria-label', `${label} of entry ${e.index}`);
  wireCommit(inp, (v) => fieldOps(e, field, v, newCtx()));
  grid.append(l, inp);
}
function addCheckRow(grid, e, field, label, on, absent) {
  const id = `f-${++inputSeq}`;
  const l = fieldLabel(id, label, absent);
  const inp = document.createElement('input');
  inp.type = 'checkbox';
  inp.id = id;
  inp.checked = on;
  inp.dataset.key = `${e.index}:${field}`;
  inp.addEventListener('change', () => sendEdit(fieldOps(e, field, inp.checked, newCtx())));
  grid.append(l, inp);
}
/** Writes exactly what was typed, on Enter or when the field loses focus. */
function wireCommit(inp, opsFor) {
  const commit = () => {
    if (inp.value === inp.defaultValue || !inp.isConnected) return;
    const v = Number(inp.value);
    if (inp.value.trim() === '') return;                 // emptied: nothing to write yet
    if (!isFinite(v)) { toast('Type a number.'); inp.value = inp.defaultValue; return; }
    inp.defaultValue = inp.value;         // one commit per typed value, even if Enter and blur both fire
    sendEdit(opsFor(v));
  };
  inp.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') { ev.preventDefault(); commit(); }
    if (ev.key === 'Escape') { inp.value = inp.defaultValue; inp.blur(); }
  });
  inp.addEventListener('blur', commit);
}
function pointsTable(e) {
  const t = document.createElement('table');
  t.className = 'pts';
  const head = document.createElement('tr');
  for (const h of ['#', 'Time (from curve)', 'Value']) { const th = document.createElement('th'); th.textContent = h; head.appendChild(th); }
  t.appendChild(head);
  (e.points || []).forEach((p, k) => {
    const tr = document.createElement('tr');
    if (S.selPoint && S.selPoint.n === e.index && S.selPoint.k === k) tr.className = 'selected';
    const c0 = document.createElement('td');
    c0.textContent = String(k);
    tr.appendChild(c0);
    for (const [key, val] of [['Time', p.time], ['ParameterValue', p.value]]) {
      const td = document.createElement('td');
      const inp = document.createElement('input');
      inp.type = 'number';
      inp.step = key === 'Time' ? '0.001' : '0.01';
      inp.value = inp.defaultValue = String(num(val));
      inp.dataset.key = `${e.index}:p${k}:${key}`;
      inp.setAttribute('aria-label', `Point ${k} ${key === 'Time' ? 'time' : 'value'}`);
      wireCommit(inp, (v) => (p.paths && p.paths[key] ? [{ op: 'replace', path: p.paths[key], value: v }] : []));
      td.appendChild(inp);
      tr.appendChild(td);
    }
    t.appendChild(tr);
  });
  return t;
}

const SEV_ORDER = { error: 0, warning: 1, info: 2 };
function findingItem(f, { fixable = true } = {}) {
  const li = document.createElement('li');
  li.className = `finding ${f.severity}`;
  li.setAttribute('data-hap-finding', f.rule);
  li.dataset.findingId = String(f.id);
  li.tabIndex = 0;
  const sev = div('sev');
  sev.setAttribute('aria-label', f.severity);
  const main = div();
  const rule = document.createElement('span');
  rule.className = 'rule';
  rule.textContent = f.rule;
  const pos = document.createElement('span');
  pos.className = 'pos';
  pos.textContent = f.line != null ? `${f.line}:${f.column}` : '';
  main.append(rule, pos);
  const acts = div('acts');
  if (f.docs) {
    const a = document.createElement('a');
    a.href = f.docs;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.textContent = 'docs';
    a.setAttribute('aria-label', `Documentation of ${f.rule}`);
    acts.appendChild(a);
  }
  if (f.fixable && fixable) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'tbtn fix';
    b.textContent = 'Fix';
    b.setAttribute('aria-label', `Fix ${f.rule}`);
    b.addEventListener('click', (ev) => { ev.stopPropagation(); fixFinding(f); });
    acts.appendChild(b);
  }
  li.append(sev, main, acts, div('msg', f.message));
  return li;
}
function renderFindings() {
  const fs = ((S.doc && S.doc.findings) || []).slice()
    .sort((a, b) => (SEV_ORDER[a.severity] ?? 3) - (SEV_ORDER[b.severity] ?? 3) || (a.line || 0) - (b.line || 0));
  const f = document.createDocumentFragment();
  for (const x of fs) f.appendChild(findingItem(x));
  el.findings.replaceChildren(f);
  if (!fs.length) el.findings.appendChild(Object.assign(document.createElement('li'), { className: 'none', textContent: 'No findings: hap validate --strict passes.' }));
  const errs = fs.filter((x) => x.severity === 'error').length, warns = fs.filter((x) => x.severity === 'warning').length;
  el.findCount.textContent = fs.length ? `${errs} errors · ${warns} warnings` : '';
  markActiveFinding();
}
function markActiveFinding() {
  for (const li of el.findings.children) {
    const f = ((S.doc && S.doc.findings) || []).find((x) => String(x.id) === li.dataset.findingId);
    li.classList.toggle('active', !!f && (f.id === S.activeFinding || (f.entry != null && S.sel.has(f.entry) && S.sel.size === 1)));
  }
}
function onFindingClick(ev) {
  const li = ev.target.closest('.finding');
  if (!li || ev.target.closest('a,button')) return;
  const f = ((S.doc && S.doc.findings) || []).find((x) => String(x.id) === li.dataset.findingId);
  if (!f) return;
  S.activeFinding = f.id;
  if (f.entry != null && S.entries[f.entry]) {
    select([f.entry]);
    revealTime(span(S.entries[f.entry])[0]);
  } else markActiveFinding();
}
async function fixFinding(f) {
  const r = await api.post('/api/fix', { path: S.path, revision: S.doc.revision, finding: f.id });
  if (r.ok && r.data && Array.isArray(r.data.entries)) { setDocument(r.data); status(`Fixed ${f.rule}`); }
  else if (r.ok) { await refreshDocument(); status(`Fixed ${f.rule}`); }
  else if (r.status === 409) { if (r.data.document) setDocument(r.data.document, { force: true }); toast('The file changed on disk; look at the findings again.', true); }
  else toast(`Fix: ${(r.data && r.data.error) || r.status}`, true);
}

// ---- A/B ----
let compareTimer = 0;
function scheduleCompare() { clearTimeout(compareTimer); compareTimer = setTimeout(fetchCompare, 300); }
async function fetchCompare() {
  if (!S.path) return;
  let c;
  try { c = await api.get(`/api/compare?path=${encodeURIComponent(S.path)}`); } catch (err) {
    el.compare.replaceChildren(div('muted', `No comparison: ${err.message}`));
    return;
  }
  const v = div('verdict' + (c.same ? '' : ' diff'));
  v.append(div('vdot'), div(null, c.verdict || (c.same ? 'Same as the baseline.' : 'Differs from the baseline.')));
  const box = [v];
  if (Array.isArray(c.changes) && c.changes.length) {
    const ul = document.createElement('ul');
    ul.className = 'changes';
    for (const ch of c.changes.slice(0, 6)) { const li = document.createElement('li'); li.textContent = ch; ul.appendChild(li); }
    box.push(ul);
  }
  el.compare.replaceChildren(...box);
  el.cmpBaseline.textContent = c.baseline ? `vs ${c.baseline}` : '';
}
function setSide(side) {
  S.side = side;
  el.sideEdit.setAttribute('aria-checked', String(side === 'edit'));
  el.sideBaseline.setAttribute('aria-checked', String(side === 'baseline'));
  status(side === 'edit' ? 'A: the edit' : `B: ${(S.session && S.session.baseline) || 'the baseline'}`);
  if (S.doc) { buildGutter(); scheduleRender(0); }
  if (S.play.playing) play();
}

// ---- folder mode ----
async function loadFolder() {
  let data;
  try { data = await api.get('/api/folder'); } catch (err) { toast(`Folder: ${err.message}`, true); return; }
  const f = document.createDocumentFragment();
  for (const p of data.patterns || []) f.appendChild(folderItem(p));
  el.folderList.replaceChildren(f);
  el.folderCount.textContent = String((data.patterns || []).length);
  const vf = document.createDocumentFragment();
  for (const x of data.findings || []) vf.appendChild(findingItem(x, { fixable: false }));
  el.vocabFindings.replaceChildren(vf);
  if (!(data.findings || []).length) el.vocabFindings.appendChild(Object.assign(document.createElement('li'), { className: 'none', textContent: 'No vocabulary findings.' }));
  highlightFolderItem();
}
function folderItem(p) {
  const li = document.createElement('li');
  li.className = 'folder-item';
  li.setAttribute('role', 'option');
  li.dataset.path = p.path;
  li.tabIndex = 0;
  const play = document.createElement('button');
  play.type = 'button';
  play.className = 'tbtn fplay';
  play.textContent = '▶';
  play.setAttribute('aria-label', `Play ${p.name || p.path}`);
  play.addEventListener('click', (ev) => {
    ev.stopPropagation();
    api.post('/api/play', { path: p.path, from: 0, to: null, loop: false, side: 'edit', entries: null })
      .then((r) => { if (!r.ok) toast(`Play: ${(r.data && r.data.error) || r.status}`, true); });
  });
  const name = div('fname', p.name || p.path);
  name.title = p.path;
  const counts = div('fcounts');
  if (p.errors) { const s = document.createElement('span'); s.className = 'e'; s.textContent = `${p.errors}E `; counts.appendChild(s); }
  if (p.warnings) { const s = document.createElement('span'); s.className = 'w'; s.textContent = `${p.warnings}W`; counts.appendChild(s); }
  const meta = div('fmeta', [p.duration != null ? `${fmt(p.duration)} s` : null, p.tier ? `tier ${p.tier}` : null, p.rarity ? `rarity ${p.rarity}` : null].filter(Boolean).join(' · '));
  li.append(play, name, counts, meta);
  li.addEventListener('click', () => openPattern(p.path));
  li.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') openPattern(p.path); });
  return li;
}
function highlightFolderItem() {
  for (const li of el.folderList.children) li.setAttribute('aria-selected', String(li.dataset.path === S.path));
}

// ---- toast and status ----
let toastTimer = 0;
function toast(msg, isError = false, ms = 4500) {
  el.toast.textContent = '';
  if (msg instanceof Node) el.toast.appendChild(msg); else el.toast.textContent = msg;
  el.toast.classList.toggle('error', !!isError);
  el.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.toast.hidden = true; }, ms);
  status(typeof msg === 'string' ? msg : msg.textContent);
}
function status(msg) { el.statusMsg.textContent = msg; }

async function exportAs(format) {
  if (!S.path) return;
  const r = await api.post('/api/export', { path: S.path, format, profile: S.profile });
  if (!r.ok) { toast(`Export: ${(r.data && r.data.error) || r.status}`, true); return; }
  const box = document.createElement('span');
  const code = document.createElement('code');
  code.textContent = r.data.command || '';
  box.append(document.createTextNode(`Wrote ${r.data.written || format}: `), code);
  toast(box, false, 8000);
}

// ======================================================================
// live updates: one EventSource per tab
// ======================================================================

/**
 * After an edit or a drag: fetches the document when a `document` event announced a revision
 * newer than the one drawn (another program's change); one that is not newer (our own edit,
 * whose event arrived before its answer) is forgotten.
 */
function refreshIfNewer() {
  if (S.inflight || S.drag) return;
  const newer = S.pendingDocRev > (S.doc ? S.doc.revision : 0);
  S.pendingDocRev = 0;
  if (newer) refreshDocument();
}

function connectEvents() {
  const es = new EventSource('/api/events');
  const parse = (e) => { try { return JSON.parse(e.data); } catch (_) { return {}; } };
  es.addEventListener('document', (e) => {
    const d = parse(e);
    if (!S.path || (d.path && d.path !== S.path)) return;
    if (S.doc && d.revision <= S.doc.revision) return;      // our own edit, already drawn
    if (S.inflight || S.drag) { S.pendingDocRev = Math.max(S.pendingDocRev, d.revision); return; }
    refreshDocument();
  });
  es.addEventListener('playing', (e) => {
    const d = parse(e);
    if (d.path && S.path && d.path !== S.path) return;
    startPlayback(d, d.latency);
  });
  es.addEventListener('position', (e) => {
    const d = parse(e);
    if (S.play.playing && (d.id == null || d.id === S.play.id)) correctPlayback(num(d.time));
  });
  es.addEventListener('stopped', (e) => {
    const d = parse(e);
    if (d.id == null || d.id === S.play.id) endPlayback();
  });
  es.addEventListener('folder', () => { if (S.session && S.session.mode === 'folder') loadFolder(); });
  es.addEventListener('open', () => el.device.classList.remove('offline'));
  es.addEventListener('error', () => status('Live updates lost; reconnecting…'));
}

// ======================================================================
// boot
// ======================================================================

function wireControls() {
  el.timeline.addEventListener('pointerdown', onPointerDown);
  el.timeline.addEventListener('dblclick', onDblClick);
  el.timeline.addEventListener('wheel', onWheel, { passive: false });
  el.timeline.addEventListener('auxclick', (ev) => { if (ev.button === 1) ev.preventDefault(); });
  el.timeline.addEventListener('contextmenu', (ev) => ev.preventDefault());
  el.hscroll.addEventListener('pointerdown', onScrollbarDown);
  el.hscroll.addEventListener('keydown', (ev) => {
    const step = (S.width / S.view.pxps) * 0.1;
    if (ev.key === 'ArrowLeft') { ev.preventDefault(); ev.stopPropagation(); setView(S.view.t0 - step, S.view.pxps); }
    if (ev.key === 'ArrowRight') { ev.preventDefault(); ev.stopPropagation(); setView(S.view.t0 + step, S.view.pxps); }
  });
  document.addEventListener('keydown', onKeyDown);
  el.btnPlay.addEventListener('click', play);
  el.btnStop.addEventListener('click', stop);
  el.btnLoop.addEventListener('click', toggleLoop);
  el.btnUndo.addEventListener('click', () => undoRedo('undo'));
  el.btnRedo.addEventListener('click', () => undoRedo('redo'));
  el.btnSnap.addEventListener('click', toggleSnap);
  el.btnAudition.addEventListener('click', () => {
    S.audition = !S.audition;
    el.btnAudition.setAttribute('aria-pressed', String(S.audition));
  });
  $('add-transient').addEventListener('click', () => addAtCursor('transient'));
  $('add-continuous').addEventListener('click', () => addAtCursor('continuous'));
  $('add-curve').addEventListener('click', () => addAtCursor('curve'));
  $('add-parameter').addEventListener('click', () => addAtCursor('parameter'));
  el.zoomIn.addEventListener('click', () => zoomKey(1.5));
  el.zoomOut.addEventListener('click', () => zoomKey(1 / 1.5));
  el.zoomFit.addEventListener('click', () => fitView());
  el.sideEdit.addEventListener('click', () => setSide('edit'));
  el.sideBaseline.addEventListener('click', () => setSide('baseline'));
  el.profile.addEventListener('change', () => { S.profile = el.profile.value; if (S.doc) { buildGutter(); scheduleRender(0); } });
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportAs(b.dataset.export));
  el.btnHelp.addEventListener('click', () => { el.help.hidden = false; el.helpClose.focus(); });
  el.helpClose.addEventListener('click', () => { el.help.hidden = true; });
  el.help.addEventListener('click', (ev) => { if (ev.target === el.help) el.help.hidden = true; });
  el.bannerApply.addEventListener('click', () => {
    const c = S.conflictOps;
    hideBanner();
    if (c) sendEdit(c.ops, c.opts);
  });
  el.bannerKeep.addEventListener('click', () => { hideBanner(); status("Kept the file's version"); });
  el.findings.addEventListener('click', onFindingClick);
  el.findings.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') onFindingClick(ev); });
  for (const d of DYNAMIC) {
    const o = document.createElement('option');
    o.value = d.id;
    o.textContent = d.name;
    el.addParamId.appendChild(o);
  }
}

/** Sizes follow the window: re-plan lane heights and canvases (one read per resize). */
function watchSize() {
  const measure = () => {
    const w = el.timeline.clientWidth, h = el.tracks.clientHeight;
    const changed = w !== S.width || h !== S.tracksH;
    S.width = w || S.width;
    S.tracksH = h || S.tracksH;
    return changed;
  };
  measure();
  new ResizeObserver(() => {
    if (!measure() || !S.doc) return;
    buildTimeline();
    drawCanvases();
    scheduleRender();
  }).observe(el.timeline);
}

function renderSession(s) {
  const dev = s.device || {};
  el.deviceName.textContent = dev.name ? `${dev.name}${dev.open ? '' : ' (closed)'}` : 'no device';
  el.device.classList.toggle('open', !!dev.open && !dev.problem);
  el.device.classList.toggle('problem', !!dev.problem);
  el.device.title = dev.problem || (dev.open ? 'The device is open' : 'No device open');
  el.profile.replaceChildren(...(s.profiles || []).map((p) => {
    const o = document.createElement('option');
    o.value = p.id;
    o.textContent = p.name || p.id;
    return o;
  }));
  S.profile = s.profile || (s.profiles && s.profiles[0] && s.profiles[0].id) || null;
  if (S.profile) el.profile.value = S.profile;
  el.baselineName.textContent = s.baseline || 'baseline';
  el.sidebar.hidden = s.mode !== 'folder';
}

async function boot() {
  wireControls();
  watchSize();
  updateViewAttrs();
  drawRuler();                 // while the session loads: warms up canvas and fonts
  let session;
  try { session = await api.get('/api/session'); } catch (err) {
    toast(`The studio server did not answer: ${err.message}`, true, 60000);
    return;
  }
  S.session = session;
  renderSession(session);
  connectEvents();
  const wanted = new URL(location.href).searchParams.get('path');
  if (session.mode === 'folder') loadFolder();
  const path = (session.mode === 'folder' && wanted) || session.file;
  if (path) await openPattern(path);
  else {
    el.empty.hidden = false;
    renderInspector();
    el.compare.replaceChildren(div('muted', 'Open a pattern to compare it.'));
    drawRuler();
    markReady();
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
})();
