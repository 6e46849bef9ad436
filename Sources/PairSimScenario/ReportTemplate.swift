extension ReportWriter {
    /// Styles shared by report.html and compare.html.
    static let style = #"""
<style>
  body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #1d1d1f; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
  .meta { color: #555; } .pass { color: #1a7f37; } .fail { color: #cf222e; font-weight: 600; }
  table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
  th { font-weight: 600; color: #555; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
  td.more { color: #cf222e; } td.less { color: #1a7f37; }
  svg text { font-size: 11px; fill: #333; }
  .lane-label { font-weight: 600; } .axis { stroke: #bbb; stroke-width: 1; }
  .lvl-warning { stroke: #d4a017; stroke-width: 1; } .lvl-error { stroke: #cf222e; stroke-width: 1.5; }
  .link { fill: none; stroke-width: 1.5; opacity: 0.8; } .link-dot { stroke: #fff; stroke-width: 1; }
  .hr { fill: none; stroke: #d62d20; stroke-width: 1.5; } .bar { fill: #0a66c2; }
  .legend span { display: inline-block; margin-right: 12px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
  .histograms { display: flex; gap: 24px; flex-wrap: wrap; }
  #log { font: 12px ui-monospace, Menlo, monospace; max-height: 320px; overflow: auto; background: #f6f8fa; padding: 8px; white-space: pre; }
</style>
"""#

    /// Drawing code shared by report.html and compare.html: a timeline (lanes, state bands, ticks
    /// coloured by kind, causal links), delay histograms, tables.
    static let drawing = #"""
const NS = "http://www.w3.org/2000/svg";
const el = (name, attrs, parent) => { const n = document.createElementNS(NS, name); for (const k in attrs) n.setAttribute(k, attrs[k]); if (parent) parent.appendChild(n); return n; };
const html = (name, text, parent, cls) => { const n = document.createElement(name); if (text !== undefined) n.textContent = text; if (cls) n.className = cls; if (parent) parent.appendChild(n); return n; };
const time = ms => { const d = Math.floor(ms / 86400000); ms %= 86400000; const h = Math.floor(ms / 3600000), m = Math.floor(ms / 60000) % 60, sec = Math.floor(ms / 1000) % 60;
  const two = x => String(x).padStart(2, "0"); return (d ? d + "d " : "") + two(h) + ":" + two(m) + ":" + two(sec); };
const KINDS = [["workout", "#8250df", ["workout.", "sample", "samples."]], ["sync", "#8c959f", ["sync."]],
  ["store", "#0969da", ["hk.", "record.", "ck."]], ["lifecycle", "#bf8700", ["app.", "device.", "auth."]],
  ["delivery", "#1a7f37", ["observer.", "bgdelivery."]], ["refresh", "#e16f24", ["coordinator.", "cache.", "snapshot.", "tab."]],
  ["user", "#cf222e", ["notification.", "detail."]], ["node", "#57606a", ["node.", "command.", "wire."]]];
const kindOf = name => (KINDS.find(k => k[2].some(p => name.startsWith(p))) || KINDS[KINDS.length - 1]);
const STATES = { foreground: "#c9f0cd", inactive: "#e3efc4", background: "#ffe9a8", suspended: "#e1e4e8", notRunning: "#ffffff", forceQuit: "#ffc9c9", locked: "#57606a" };
const LINK_COLOURS = ["#8250df", "#0969da", "#cf222e", "#1a7f37", "#bf8700", "#e16f24"];
const LANES = ["watch", "healthkit", "cloudkit", "watchconnectivity", "phone"];

function legend(parent) {
  const box = html("div", undefined, parent, "legend");
  for (const [name, colour] of KINDS) { const s = html("span", undefined, box); const i = html("i", undefined, s); i.style.background = colour; s.appendChild(document.createTextNode(name)); }
  for (const state in STATES) { const s = html("span", undefined, box); const i = html("i", undefined, s); i.style.background = STATES[state]; i.style.border = "1px solid #ccc"; s.appendChild(document.createTextNode(state)); }
}

// One row per lane on an emulated-time axis; the phone lane carries the app's states as bands.
function timeline(svg, data, endMs) {
  const left = 90, width = 1000, rowH = 50, top = 10, end = Math.max(1, endMs);
  const x = t => left + Math.min(1, Math.max(0, t / end)) * width;
  const laneY = lane => top + LANES.indexOf(lane) * rowH;
  svg.setAttribute("height", top + LANES.length * rowH + 24);
  LANES.forEach(lane => {
    const g = el("g", { "class": "lane", "data-lane": lane }, svg);
    const y = laneY(lane);
    // The lock is drawn last, as a bar under the app's state bands.
    const bands = lane === "phone" ? data.bands.filter(b => b[2] !== "locked").concat(data.bands.filter(b => b[2] === "locked")) : [];
    for (const [from, to, state] of bands) {
      const locked = state === "locked";
      const r = el("rect", { x: x(from), width: Math.max(0.5, x(to) - x(from)), y: locked ? y + rowH - 7 : y + 4, height: locked ? 5 : rowH - 12,
        fill: STATES[state] || "#fff", "class": "band", "data-band": state }, g);
      el("title", {}, r).textContent = state + " " + time(from) + " – " + time(to);
    }
    el("line", { x1: left, x2: left + width, y1: y + rowH / 2, y2: y + rowH / 2, "class": "axis" }, g);
    el("text", { x: 4, y: y + rowH / 2 + 4, "class": "lane-label" }, g).textContent = lane;
    for (const e of data.events) { if (e[1] !== lane) continue;
      const kind = kindOf(e[2]);
      const r = el("rect", { x: x(e[0]) - 1, y: y + 10, width: 2, height: rowH - 20, fill: kind[1], "class": "tick lvl-" + e[3], "data-kind": kind[0] }, g);
      el("title", {}, r).textContent = e[4]; }
  });
  (data.links || []).forEach((link, n) => {
    const colour = LINK_COLOURS[n % LINK_COLOURS.length];
    const g = el("g", { "class": "causal", "data-link": link.uuid }, svg);
    const points = link.steps.map(s => [x(s[0]), laneY(s[1]) + rowH / 2]);
    el("polyline", { points: points.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" "), stroke: colour, "class": "link" }, g);
    link.steps.forEach((s, i) => { const c = el("circle", { cx: points[i][0], cy: points[i][1], r: 3.5, fill: colour, "class": "link-dot" }, g);
      el("title", {}, c).textContent = time(s[0]) + " " + s[2]; });
  });
  for (let k = 0; k <= 10; k++) { const t = end * k / 10; el("text", { x: x(t) - (k === 10 ? 50 : 20), y: top + LANES.length * rowH + 14 }, svg).textContent = time(t); }
}

function histograms(parent, histos) {
  for (const channel in histos) {
    const h = histos[channel], total = h.counts.reduce((a, b) => a + b, 0), max = Math.max(1, ...h.counts);
    const box = html("div", undefined, parent);
    html("div", channel + " — " + total + " message(s) received, send → receipt", box);
    const w = 40 + h.counts.length * 44, ht = 140, base = 110;
    const svg = el("svg", { width: w, height: ht, "class": "histogram", "data-histogram": channel }, null); box.appendChild(svg);
    el("line", { x1: 30, x2: w, y1: base, y2: base, "class": "axis" }, svg);
    h.counts.forEach((n, i) => { const bh = n / max * 90, bx = 34 + i * 44;
      const r = el("rect", { x: bx, y: base - bh, width: 36, height: bh, "class": "bar" }, svg); el("title", {}, r).textContent = h.labels[i] + ": " + n;
      el("text", { x: bx, y: base + 14 }, svg).textContent = h.labels[i];
      if (n) el("text", { x: bx + 4, y: base - bh - 3 }, svg).textContent = n; });
  }
}
"""#

    /// Both pages open alike: title, style, heading and the line of run facts.
    static let pageHead = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
__STYLE__
</head>
<body>
<h1 id="title"></h1>
<div class="meta" id="meta"></div>

"""#

    /// report.html: data embedded as JSON, drawn by the script into SVG.
    static let template = pageHead + #"""
<h2>Expectations</h2>
<table id="verdicts"><thead><tr><th></th><th>expectation</th><th>result</th></tr></thead><tbody></tbody></table>
<h2>Timeline</h2>
<div id="legend"></div>
<svg id="swimlanes" width="1100" height="250" role="img" aria-label="events by lane over emulated time"></svg>
<div class="meta">Bands on the phone lane: the app's state (grey bar below: locked). Lines: each workout from the watch to the phone's notification. Hover for details.</div>
<h2>Channel delays</h2>
<div id="histograms" class="histograms"></div>
<h2>Device clocks</h2>
<table id="clocks"><thead><tr><th>true time</th><th>what happened</th><th>phone reads</th><th>watch reads</th></tr></thead><tbody></tbody></table>
<h2>Heart rate per workout</h2>
<div id="charts"></div>
<h2>Cost counters</h2>
<table id="counters"><thead><tr><th>counter</th><th>value</th></tr></thead><tbody></tbody></table>
<h2>Events</h2>
<div id="log"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
__DRAWING__
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const s = data.summary;
  document.getElementById("title").textContent = "Scenario " + s.scenario + (s.passed ? " — passed" : " — FAILED");
  document.getElementById("title").className = s.passed ? "pass" : "fail";
  document.getElementById("meta").textContent = s.mode + ", seed " + s.seed + ", " + s.duration + " emulated, " + s.events + " events";
  const vt = document.querySelector("#verdicts tbody");
  for (const v of s.expectations) { const tr = html("tr", undefined, vt, v.passed ? "pass" : "fail");
    html("td", v.passed ? "✔" : "✘", tr); html("td", v.label, tr); html("td", v.detail, tr); }
  for (const f of s.failedCommands) { const tr = html("tr", undefined, vt, "fail"); html("td", "✘", tr); html("td", "timeline command failed", tr); html("td", f, tr); }
  legend(document.getElementById("legend"));
  timeline(document.getElementById("swimlanes"), data, data.end);
  histograms(document.getElementById("histograms"), data.histograms);
  const clocks = document.querySelector("#clocks tbody");
  if (!data.clocks.length) { const tr = html("tr", undefined, clocks); html("td", "Both devices keep true time in UTC.", tr); }
  for (const c of data.clocks) { const tr = html("tr", undefined, clocks);
    html("td", time(c[0]), tr); html("td", c[1], tr); html("td", c[2], tr); html("td", c[3], tr); }
  const charts = document.getElementById("charts");
  if (!data.charts.length) charts.textContent = "No workouts.";
  for (const c of data.charts) {
    const box = html("div", undefined, charts);
    html("div", c.activity + " " + c.uuid + " at " + time(c.start) + (c.values ? " — average " + c.average + ", max " + c.max + ", min " + c.min + " bpm" : " — no heart-rate samples"), box);
    const w = 520, h = 120, pad = 30;
    const chart = el("svg", { width: w, height: h, "class": "hr-chart", "data-workout": c.uuid }, null); box.appendChild(chart);
    el("line", { x1: pad, x2: w, y1: h - pad, y2: h - pad, "class": "axis" }, chart);
    if (c.values && c.values.length) {
      const lo = Math.floor(c.min / 10) * 10, hi = Math.max(lo + 10, Math.ceil(c.max / 10) * 10), span = Math.max(1, c.end - c.start);
      const pts = c.offsets.map((o, i) => (pad + o / span * (w - pad)).toFixed(1) + "," + (h - pad - (c.values[i] - lo) / (hi - lo) * (h - 2 * pad)).toFixed(1));
      el("polyline", { points: pts.join(" "), "class": "hr" }, chart);
      el("text", { x: 0, y: pad }, chart).textContent = hi;
      el("text", { x: 0, y: h - pad }, chart).textContent = lo;
    }
  }
  const ct = document.querySelector("#counters tbody");
  const rows = Object.entries(s.counters).concat(Object.entries(s.channels).map(([k, v]) => [k, v.messages + " messages, " + v.bytes + " bytes"]));
  for (const [k, v] of rows) { const tr = html("tr", undefined, ct); html("th", k, tr); html("td", String(v), tr, "num"); }
  document.getElementById("log").textContent = data.events.slice(0, 5000).map(e => e[1].padEnd(9) + " " + e[4]).join("\n");
})();
</script>
</body>
</html>
"""#

    /// compare.html: two runs' counters side by side and their timelines on one axis.
    static let compareTemplate = pageHead + #"""
<h2>Cost counters</h2>
<table id="compare-counters"><thead><tr><th>counter</th><th id="name-a"></th><th id="name-b"></th><th>B − A</th></tr></thead><tbody></tbody></table>
<h2>Expectations</h2>
<table id="compare-verdicts"><tbody></tbody></table>
<h2>Timelines</h2>
<div id="legend"></div>
<div id="timelines"></div>
<h2>Channel delays</h2>
<div id="histograms"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
__DRAWING__
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const [a, b] = data.runs;
  const name = r => r.label + " (" + r.summary.scenario + ", " + r.summary.mode + ", seed " + r.summary.seed + ")";
  document.getElementById("title").textContent = "Compare: " + a.label + " vs " + b.label;
  document.getElementById("meta").textContent = "A = " + name(a) + "; B = " + name(b);
  document.getElementById("name-a").textContent = "A: " + a.label; document.getElementById("name-b").textContent = "B: " + b.label;
  const tb = document.querySelector("#compare-counters tbody");
  const keys = Object.keys(a.summary.counters).concat(Object.keys(b.summary.counters).filter(k => !(k in a.summary.counters)));
  const rows = keys.map(k => [k, a.summary.counters[k], b.summary.counters[k]]);
  for (const ch of Object.keys(a.summary.channels)) rows.push([ch + " messages", a.summary.channels[ch].messages, (b.summary.channels[ch] || {}).messages]);
  rows.push(["events", a.summary.events, b.summary.events]);
  for (const [k, va, vb] of rows) { const tr = html("tr", undefined, tb); tr.setAttribute("data-counter", k); html("th", k, tr);
    html("td", va === undefined ? "—" : String(va), tr, "num"); html("td", vb === undefined ? "—" : String(vb), tr, "num");
    const d = (vb || 0) - (va || 0); html("td", (d > 0 ? "+" : "") + d, tr, "num " + (d > 0 ? "more" : d < 0 ? "less" : "")); }
  const vt = document.querySelector("#compare-verdicts tbody");
  for (const r of data.runs) { const tr = html("tr", undefined, vt, r.summary.passed ? "pass" : "fail"); html("th", r.label, tr);
    html("td", (r.summary.passed ? "passed" : "FAILED") + ": " + r.summary.expectations.filter(v => v.passed).length + "/" + r.summary.expectations.length + " expectations", tr); }
  legend(document.getElementById("legend"));
  const end = Math.max(a.end, b.end);
  for (const r of data.runs) { const box = html("div", undefined, document.getElementById("timelines")); html("h3", r.label, box);
    const svg = el("svg", { width: 1100, height: 250, "class": "compare-timeline", "data-run": r.label }, null); box.appendChild(svg);
    timeline(svg, r, end); }
  for (const r of data.runs) { const box = html("div", undefined, document.getElementById("histograms")); html("h3", r.label, box);
    const row = html("div", undefined, box, "histograms"); histograms(row, r.histograms); }
})();
</script>
</body>
</html>
"""#
}
