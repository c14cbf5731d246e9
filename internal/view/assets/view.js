// The index of toolgrade view: the runs from /api/runs, filtered by suite
// and model, each suite's trend, two runs picked for a comparison, and the
// progress of the runs being written, polled from /api/progress. Every text
// from a run goes in through textContent or an attribute, never as markup.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const COLORS = ['#2857b8', '#c0392b', '#1d8348', '#8e44ad', '#d68910', '#17a589', '#5d6d7e', '#a04000'];
let runs = [];
const picked = [];
const polling = new Set();

function el(tag, attrs, ...kids) {
  const e = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

function pct(x) { return (100 * x).toFixed(1); }

function rate(r) {
  return r && r.n ? `${pct(r.value)}% [${pct(r.lo)}–${pct(r.hi)}] (${r.k}/${r.n})` : '–';
}

function label(row) { return row.variant ? `${row.model} (${row.variant})` : row.model; }

function when(t) { return t ? new Date(t).toLocaleString() : ''; }

async function load() {
  const res = await fetch('api/runs');
  runs = await res.json();
  fillFilter('suite', runs.map(r => r.suite));
  fillFilter('model', runs.flatMap(r => r.models || []));
  render();
}

function fillFilter(id, values) {
  const sel = document.getElementById(id);
  const keep = sel.value;
  sel.replaceChildren(el('option', { value: '' }, 'all'));
  for (const v of [...new Set(values.filter(Boolean))].sort()) sel.append(el('option', { value: v }, v));
  sel.value = keep;
}

function shown() {
  const suite = document.getElementById('suite').value;
  const model = document.getElementById('model').value;
  return runs.filter(r => (!suite || r.suite === suite) && (!model || (r.models || []).includes(model)));
}

function render() {
  const list = shown();
  const body = document.querySelector('#runs tbody');
  body.replaceChildren(...list.map(row));
  document.getElementById('empty').hidden = list.length > 0;
  renderTrends(list);
  for (const r of list) if (r.status === 'running' && !r.error) poll(r.id);
}

function row(r) {
  const name = r.dir.split(/[\\/]/).filter(Boolean).pop() || r.dir;
  const open = el('a', { href: 'run?id=' + encodeURIComponent(r.id), class: 'open', title: r.dir }, name);
  if (r.error) {
    const tr = el('tr', { class: 'error', 'data-id': r.id }, el('td'), el('td', { colspan: 7, class: 'err' }, r.error), el('td', { title: r.dir }, name));
    return tr;
  }
  const box = el('input', { type: 'checkbox', class: 'pick', 'aria-label': 'pick ' + r.dir });
  box.checked = picked.includes(r.id);
  box.addEventListener('change', () => pick(r.id, box.checked));
  const rates = el('td', { class: 'rates' }, ...(r.rows || []).map(x => el('div', {}, `${label(x)}: ${rate(x.pass)}`)));
  const status = el('td', { class: 'status status-' + r.status }, r.status);
  return el('tr', { 'data-id': r.id }, el('td', {}, box), el('td', {}, when(r.start)), el('td', { class: 'suite' }, r.suite),
    el('td', {}, (r.models || []).join(', ')), el('td', {}, (r.variants || []).join(', ')), status, rates,
    el('td', {}, el('code', {}, r.commit || '')), el('td', {}, open));
}

function pick(id, on) {
  const i = picked.indexOf(id);
  if (on && i < 0) picked.push(id);
  if (!on && i >= 0) picked.splice(i, 1);
  while (picked.length > 2) picked.shift();
  for (const b of document.querySelectorAll('#runs tr[data-id]')) {
    const box = b.querySelector('input.pick');
    if (box) box.checked = picked.includes(b.dataset.id);
  }
  const a = document.getElementById('compare');
  const ready = picked.length === 2;
  a.classList.toggle('disabled', !ready);
  a.setAttribute('aria-disabled', String(!ready));
  document.getElementById('picked').textContent = ready ? '' : 'pick two runs to compare them';
  if (!ready) { a.removeAttribute('href'); return; }
  // The base is the run that started first.
  const [x, y] = picked.map(id => runs.find(r => r.id === id)).sort((p, q) => new Date(p.start) - new Date(q.start));
  a.href = `compare?a=${encodeURIComponent(x.id)}&b=${encodeURIComponent(y.id)}`;
}

async function poll(id) {
  if (polling.has(id)) return;
  polling.add(id);
  try {
    for (;;) {
      const res = await fetch('api/progress?id=' + encodeURIComponent(id));
      if (!res.ok) return;
      const p = await res.json();
      const cell = document.querySelector(`#runs tr[data-id="${CSS.escape(id)}"] td.status`);
      if (p.status !== 'running') { await load(); return; }
      if (cell) cell.textContent = `running: ${p.done}/${p.total} trials`;
      await new Promise(ok => setTimeout(ok, 1000));
    }
  } finally {
    polling.delete(id);
  }
}

function renderTrends(list) {
  const bySuite = new Map();
  for (const r of list) {
    if (r.error || !r.rows) continue;
    if (!bySuite.has(r.suite)) bySuite.set(r.suite, []);
    bySuite.get(r.suite).push(r);
  }
  const model = document.getElementById('model').value;
  const boxes = [];
  for (const [suite, rs] of [...bySuite].sort()) {
    rs.sort((a, b) => new Date(a.start) - new Date(b.start));
    const box = el('div', { class: 'trend', 'data-suite': suite }, el('h2', {}, `${suite}: ${rs.length} run${rs.length === 1 ? '' : 's'}`));
    const series = seriesOf(rs, model);
    box.append(chart('pass', rs, series, 'pass'), chart('tool selection', rs, series, 'tool_selection'), legend(series));
    boxes.push(box);
  }
  document.getElementById('trends').replaceChildren(...boxes);
}

// seriesOf is each model's (and variant's) line: its label, colour, and the
// run index of each point.
function seriesOf(rs, model) {
  const lines = new Map();
  rs.forEach((r, i) => {
    for (const x of r.rows) {
      if (model && x.model !== model) continue;
      const k = label(x);
      if (!lines.has(k)) lines.set(k, { label: k, color: COLORS[lines.size % COLORS.length], points: [] });
      lines.get(k).points.push({ i, row: x, run: r });
    }
  });
  return [...lines.values()];
}

function chart(title, rs, series, key) {
  const W = 420, H = 160, L = 40, R = 10, T = 18, B = 30, PAD = 30;
  // Points sit PAD inside the axes, so the first and last labels fit.
  const x = i => L + PAD + (rs.length === 1 ? (W - L - R - 2 * PAD) / 2 : i * (W - L - R - 2 * PAD) / (rs.length - 1));
  const y = v => T + (1 - v) * (H - T - B);
  const svg = el('svg:svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'chart chart-' + key, role: 'img', 'aria-label': title });
  svg.append(el('svg:text', { x: L, y: 12, 'font-size': 12, 'font-weight': 600 }, title));
  for (const v of [0, 0.5, 1]) {
    svg.append(el('svg:line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e3e6eb' }),
      el('svg:text', { x: L - 6, y: y(v) + 4, 'font-size': 10, 'text-anchor': 'end', fill: '#555e6e' }, pct(v).replace('.0', '') + '%'));
  }
  rs.forEach((r, i) => svg.append(el('svg:text', { x: x(i), y: H - 10, 'font-size': 9, 'text-anchor': 'middle', fill: '#555e6e' }, r.commit ? r.commit.slice(0, 7) : new Date(r.start).toLocaleDateString())));
  for (const s of series) {
    const pts = s.points.filter(p => p.row[key] && p.row[key].n);
    svg.append(el('svg:polyline', { points: pts.map(p => `${x(p.i)},${y(p.row[key].value)}`).join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2 }));
    for (const p of pts) {
      const r = p.row[key];
      const g = el('svg:g', { class: 'point' }, el('svg:title', {}, `${s.label} ${p.run.dir}: ${rate(r)}`),
        el('svg:line', { x1: x(p.i), x2: x(p.i), y1: y(r.lo), y2: y(r.hi), stroke: s.color, 'stroke-opacity': 0.45, 'stroke-width': 5 }),
        el('svg:circle', { cx: x(p.i), cy: y(r.value), r: 3.5, fill: s.color }));
      svg.append(g);
    }
  }
  return svg;
}

function legend(series) {
  return el('div', { class: 'legend' }, ...series.map(s => el('span', {}, swatch(s.color), s.label)));
}

document.getElementById('suite').addEventListener('change', render);
document.getElementById('model').addEventListener('change', render);
load();

// swatch is a legend's colour box, styled through the DOM: the page's policy
// allows no inline style attribute.
function swatch(color) {
  const i = el('i');
  i.style.background = color;
  return i;
}
