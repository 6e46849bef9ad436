extension ReportWriter {
    /// The page: data embedded as JSON, drawn by a small script into SVG.
    static let template = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>
  body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #1d1d1f; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
  .meta { color: #555; } .pass { color: #1a7f37; } .fail { color: #cf222e; font-weight: 600; }
  table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
  th { font-weight: 600; color: #555; }
  svg text { font-size: 11px; fill: #333; }
  .lane-label { font-weight: 600; } .tick-info { fill: #0a66c2; } .tick-warning { fill: #d4a017; } .tick-error { fill: #cf222e; }
  .hr { fill: none; stroke: #d62d20; stroke-width: 1.5; } .axis { stroke: #bbb; stroke-width: 1; }
  #log { font: 12px ui-monospace, Menlo, monospace; max-height: 320px; overflow: auto; background: #f6f8fa; padding: 8px; white-space: pre; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div class="meta" id="meta"></div>
<h2>Expectations</h2>
<table id="verdicts"><thead><tr><th></th><th>expectation</th><th>result</th></tr></thead><tbody></tbody></table>
<h2>Timeline</h2>
<svg id="swimlanes" width="1100" height="250" role="img" aria-label="events by lane over emulated time"></svg>
<h2>Heart rate per workout</h2>
<div id="charts"></div>
<h2>Counters</h2>
<table id="counters"><tbody></tbody></table>
<h2>Events</h2>
<div id="log"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const s = data.summary;
  const NS = "http://www.w3.org/2000/svg";
  const el = (name, attrs, parent) => { const n = document.createElementNS(NS, name); for (const k in attrs) n.setAttribute(k, attrs[k]); if (parent) parent.appendChild(n); return n; };
  const time = ms => { const d = Math.floor(ms / 86400000); ms %= 86400000; const h = Math.floor(ms / 3600000), m = Math.floor(ms / 60000) % 60, sec = Math.floor(ms / 1000) % 60;
    const two = x => String(x).padStart(2, "0"); return (d ? d + "d " : "") + two(h) + ":" + two(m) + ":" + two(sec); };
  document.getElementById("title").textContent = "Scenario " + s.scenario + (s.passed ? " — passed" : " — FAILED");
  document.getElementById("title").className = s.passed ? "pass" : "fail";
  document.getElementById("meta").textContent = s.mode + ", seed " + s.seed + ", " + s.duration + " emulated, " + s.events + " events";
  const vt = document.querySelector("#verdicts tbody");
  for (const v of s.expectations) { const tr = document.createElement("tr"); tr.className = v.passed ? "pass" : "fail";
    tr.innerHTML = "<td>" + (v.passed ? "✔" : "✘") + "</td><td></td><td></td>"; tr.children[1].textContent = v.label; tr.children[2].textContent = v.detail; vt.appendChild(tr); }
  for (const f of s.failedCommands) { const tr = document.createElement("tr"); tr.className = "fail"; tr.innerHTML = "<td>✘</td><td>timeline command failed</td><td></td>"; tr.children[2].textContent = f; vt.appendChild(tr); }
  // Swimlanes: one row per lane, one tick per event on an emulated-time axis.
  const lanes = ["watch", "healthkit", "cloudkit", "phone"];
  const svg = document.getElementById("swimlanes");
  const left = 90, width = 1000, rowH = 50, top = 10, end = Math.max(1, data.end);
  const x = t => left + Math.min(1, Math.max(0, t / end)) * width;
  lanes.forEach((lane, i) => {
    const g = el("g", { "class": "lane", "data-lane": lane }, svg);
    const y = top + i * rowH;
    el("line", { x1: left, x2: left + width, y1: y + rowH / 2, y2: y + rowH / 2, "class": "axis" }, g);
    el("text", { x: 4, y: y + rowH / 2 + 4, "class": "lane-label" }, g).textContent = lane;
    for (const e of data.events) { if (e[1] !== lane) continue;
      const r = el("rect", { x: x(e[0]) - 1, y: y + 8, width: 2, height: rowH - 16, "class": "tick-" + e[3] }, g);
      el("title", {}, r).textContent = e[4]; }
  });
  for (let k = 0; k <= 10; k++) { const t = end * k / 10; el("text", { x: x(t) - (k === 10 ? 50 : 20), y: top + lanes.length * rowH + 14 }, svg).textContent = time(t); }
  // One chart per workout.
  const charts = document.getElementById("charts");
  if (!data.charts.length) charts.textContent = "No workouts.";
  for (const c of data.charts) {
    const box = document.createElement("div");
    const title = document.createElement("div"); box.appendChild(title);
    title.textContent = c.activity + " " + c.uuid + " at " + time(c.start) + (c.values ? " — average " + c.average + ", max " + c.max + ", min " + c.min + " bpm" : " — no heart-rate samples");
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
    charts.appendChild(box);
  }
  const ct = document.querySelector("#counters tbody");
  const rows = Object.entries(s.counters).concat(Object.entries(s.channels).map(([k, v]) => [k, v.messages + " messages, " + v.bytes + " bytes"]));
  for (const [k, v] of rows) { const tr = document.createElement("tr"); tr.innerHTML = "<th></th><td></td>"; tr.children[0].textContent = k; tr.children[1].textContent = v; ct.appendChild(tr); }
  document.getElementById("log").textContent = data.events.slice(0, 5000).map(e => e[4].padEnd(0)).map((line, i) => data.events[i][1].padEnd(9) + " " + line).join("\n");
})();
</script>
</body>
</html>
"""#
}
