// gpuhub web page: a clean URL on submit, at most 4 compare picks, and the price-against-VRAM chart (plain SVG).
"use strict";
(function () {
  const MAX_PICKS = 4;
  const form = document.getElementById("search");
  const svgNS = "http://www.w3.org/2000/svg";
  const COLOURS = ["#0b5cad", "#d1242f", "#1a7f37", "#8250df", "#bc4c00", "#0a7f86", "#bf3989", "#57606a"];

  // Submitting leaves empty fields out of the URL, so a link says only what was asked.
  if (form) {
    form.addEventListener("submit", function () {
      for (const el of form.elements) {
        if (el.name && (el.value === "" || (el.name === "page"))) el.disabled = true;
      }
      setTimeout(function () { for (const el of form.elements) el.disabled = false; }, 0);
    });
  }

  function picks() { return Array.from(document.querySelectorAll("input[name=pick]")).filter(
    (el) => el.type === "hidden" || el.checked); }
  function limitPicks() {
    const full = picks().length >= MAX_PICKS;
    for (const box of document.querySelectorAll("input.pick")) box.disabled = full && !box.checked;
    const button = document.getElementById("compare-button");
    if (button) button.textContent = "Compare selected (" + picks().length + "/" + MAX_PICKS + ")";
  }
  document.addEventListener("change", function (e) { if (e.target.classList.contains("pick")) limitPicks(); });
  limitPicks();

  function togglePick(key) {
    const url = new URL(window.location.href);
    const chosen = url.searchParams.getAll("pick");
    const next = chosen.includes(key) ? chosen.filter((k) => k !== key) : chosen.concat([key]).slice(-MAX_PICKS);
    url.searchParams.delete("pick");
    for (const k of next) url.searchParams.append("pick", k);
    window.location.assign(url.toString());
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(svgNS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function describe(p) {
    return p.provider + " " + p.instance_type + " " + p.region + ": " + p.gpu_count + " × " + p.gpu_name + " (" +
      p.gpu_memory_gib + " GiB each), " + p.price_per_hour + " " + p.currency + "/h, " +
      p.price_per_gpu_hour.toFixed(4) + " per GPU-hour (rank " + (p.rank + 1) + ")";
  }

  function draw(box, data) {
    const pts = data.points;
    const W = 800, H = 420, L = 64, R = 16, T = 16, B = 48;
    const lx = (v) => Math.log2(v), ly = (v) => Math.log10(v);
    const xs = pts.map((p) => lx(p.gpu_memory_gib)), ys = pts.map((p) => ly(p.price_per_gpu_hour));
    const x0 = Math.floor(Math.min(...xs, 2)), x1 = Math.ceil(Math.max(...xs, 3));
    const y0 = Math.floor(Math.min(...ys, -1)), y1 = Math.ceil(Math.max(...ys, 0));
    const sx = (v) => L + (v - x0) / (x1 - x0 || 1) * (W - L - R);
    const sy = (v) => H - B - (v - y0) / (y1 - y0 || 1) * (H - T - B);
    const svg = el("svg", {viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": pts.length + " offers: USD per GPU-hour against VRAM per GPU"});
    el("title", {}, svg).textContent = "USD per GPU-hour against VRAM per GPU, " + pts.length + " offers";
    const axes = el("g", {class: "axes", "font-size": "11", fill: "#57606a"}, svg);
    for (let e = x0; e <= x1; e++) {
      el("line", {x1: sx(e), x2: sx(e), y1: T, y2: H - B, stroke: "#eaeef2"}, axes);
      el("text", {x: sx(e), y: H - B + 14, "text-anchor": "middle"}, axes).textContent = String(2 ** e);
    }
    for (let e = y0; e <= y1; e++) {
      el("line", {x1: L, x2: W - R, y1: sy(e), y2: sy(e), stroke: "#eaeef2"}, axes);
      el("text", {x: L - 6, y: sy(e) + 4, "text-anchor": "end"}, axes).textContent = String(10 ** e);
    }
    el("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle"}, axes).textContent = "VRAM per GPU, GiB";
    el("text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle",
      transform: "rotate(-90 14 " + (T + H - B) / 2 + ")"}, axes).textContent = "USD per GPU-hour";
    const providers = Array.from(new Set(pts.map((p) => p.provider))).sort();
    const colour = (name) => COLOURS[providers.indexOf(name) % COLOURS.length];
    const chosen = new URL(window.location.href).searchParams.getAll("pick");
    const tip = document.getElementById("tooltip");
    const layer = el("g", {class: "points"}, svg);
    pts.forEach(function (p, i) {
      // A small deterministic spread across so that offers with equal VRAM do not hide each other.
      const jitter = ((p.rank * 7919) % 17 - 8) * 0.6;
      const c = el("circle", {class: "point" + (chosen.includes(p.key) ? " picked" : ""), cx: sx(xs[i]) + jitter,
        cy: sy(ys[i]), r: 4, fill: colour(p.provider), "data-key": p.key, "data-provider": p.provider}, layer);
      el("title", {}, c).textContent = describe(p);
      c.addEventListener("mouseenter", function () {
        tip.textContent = describe(p);
        const row = document.querySelector('tr[data-key="' + CSS.escape(p.key) + '"]');
        for (const r of document.querySelectorAll("tr.highlight")) r.classList.remove("highlight");
        if (row) row.classList.add("highlight");
      });
      c.addEventListener("click", function () { togglePick(p.key); });
    });
    box.replaceChildren(svg);
    const legend = document.createElement("ul");
    legend.className = "legend";
    legend.setAttribute("aria-label", "providers");
    for (const name of providers) {
      const li = document.createElement("li");
      const dot = document.createElement("span");
      dot.style.background = colour(name);
      li.append(dot, name + " (" + pts.filter((p) => p.provider === name).length + ")");
      legend.appendChild(li);
    }
    box.appendChild(legend);
    box.dataset.points = String(pts.length);
  }

  const box = document.getElementById("chart");
  if (box) {
    fetch(box.dataset.src).then((r) => r.json()).then(function (data) {
      if (data.error) { box.textContent = data.error.parameter + ": " + data.error.message; return; }
      draw(box, data);
    }).catch(function (e) { box.textContent = "chart failed: " + e; });
  }
})();
