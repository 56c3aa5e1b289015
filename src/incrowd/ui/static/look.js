// incrowd ui: what the page shows of finished runs beside the report: the report's own
// plots of the shown run, and the runs' figures side by side. The plots are SVG images the
// server drew (data: URIs, shown as images: no script of theirs runs); every text is set as
// text, never as markup.
"use strict";

const SVG = "data:image/svg+xml;base64,";

function plotFigure(plot, note = "") {
  const figure = document.createElement("figure");
  const image = document.createElement("img");
  if (plot.image.startsWith(SVG)) image.src = plot.image;
  image.alt = plot.alt;
  const caption = document.createElement("figcaption");
  caption.textContent = note ? `${plot.caption}: ${note}` : plot.caption;
  figure.append(image, caption);
  return figure;
}

// the shown run: each quasi-identifier before and after, the risk and the class sizes
function showPlots(look) {
  const pairs = look.plots.distributions.flatMap(
    (d) => [plotFigure(d.before), plotFigure(d.after, d.note)]);
  document.getElementById("distributions").replaceChildren(...pairs);
  const more = [look.plots.risk, look.plots.classes].filter(Boolean).map((p) => plotFigure(p));
  document.getElementById("risk-plots").replaceChildren(...more);
  document.getElementById("look").hidden = false;
}

// every finished run a column: loss per attribute, risk, classes, and the classes by size
function compareDetail(runs) {
  const table = document.getElementById("compare-detail");
  const text = (row, value, tag) => {
    const td = document.createElement(tag);
    td.textContent = value;
    row.appendChild(td);
    return td;
  };
  table.tHead.replaceChildren();
  const head = table.tHead.insertRow();
  text(head, "", "th");
  runs.forEach((s, i) => {
    const f = s.figures;
    text(head, `run ${i + 1}: k = ${f.k}${f.l ? `, l = ${f.l}` : ""}${f.t ? `, t = ${f.t}` : ""}` +
      `, ${f.method}`, "th");
  });
  const body = table.tBodies[0];
  body.replaceChildren();
  const groups = [...new Set(runs.flatMap((s) => Object.keys(s.look.compare)))];
  for (const group of groups) {
    const title = body.insertRow();
    title.className = "group";
    text(title, group, "th").colSpan = runs.length + 1;
    const rows = runs.map((s) => s.look.compare[group] || []);
    const labels = [...new Set(rows.flatMap((r) => r.map((entry) => entry[0])))];
    for (const label of labels) {
      const row = body.insertRow();
      row.dataset.measure = label;
      text(row, label, "th");
      for (const found of rows.map((r) => r.find((entry) => entry[0] === label))) {
        const td = text(row, found ? found[1] : "—", "td");
        if (found && found[2]) td.title = found[2];
      }
    }
  }
  const sizes = body.insertRow();
  sizes.dataset.measure = "classes by size";
  text(sizes, "classes by size", "th");
  for (const s of runs) {
    const td = text(sizes, "", "td");
    if (s.look.plots.classes) td.appendChild(plotFigure(s.look.plots.classes));
  }
}
