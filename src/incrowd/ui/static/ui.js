// incrowd ui: the page's script. Plain JavaScript, no framework and nothing fetched from
// elsewhere: every request goes to this app, which checks its token cookie and origin.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { opened: null, run: null, timer: null, going: null, ended: false, done: new Map() };
const MODEL = ["k", "l", "t", "suppression_limit", "seed"];
const BOUNDS = ["min_level", "max_level"];  // a quasi-identifier's levels, fields of its row

async function call(method, url, data) {
  const options = { method, headers: {} };
  if (data instanceof Blob) {  // an upload: the file itself is the body
    options.headers["Content-Type"] = "application/octet-stream";
    options.body = data;
  } else if (data !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(data);
  }
  const response = await fetch(url, options);
  let body;
  try { body = await response.json(); } catch (e) { body = { error: await response.text() }; }
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function show(id, on = true) { $(id).hidden = !on; }
function fail(id, message) { $(id).textContent = message; show(id, Boolean(message)); }
function cell(row, text, tag = "td") {
  const td = document.createElement(tag);
  td.textContent = text;
  row.appendChild(td);
  return td;
}
function select(options, value, name) {
  const s = document.createElement("select");
  s.name = name;
  for (const o of options) {
    const opt = document.createElement("option");
    opt.value = o; opt.textContent = o; opt.selected = o === value;
    s.appendChild(opt);
  }
  return s;
}
function list(id, lines) {
  const ul = $(id);
  ul.replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
}

async function choices() {
  // in the page itself (one request fewer before it is ready); else asked for
  const given = document.body.dataset.choices;
  const c = given ? JSON.parse(given) : await call("GET", "/api/choices");
  state.choices = c;
  for (const m of c.methods) $("method").appendChild(new Option(m, m));
  for (const r of c.releases) $("release").appendChild(new Option(r, r));
  for (const name of [...MODEL, "method", "release"]) {
    if ($(name) && c.help[name]) $(name).parentElement.title = c.help[name];
  }
}

// the Open form's reading options (the server's list: a field of Settings each); for
// another file than the one opened, only those the user set (not those the page filled in
// from a job file opened, which belong to it)
function reading(path) {
  const same = state.opened && state.opened.opened === path;
  const out = {};
  for (const { name } of state.choices.read) {
    const field = $(name);
    out[name] = same || field.dataset.given ? field.value : "";
  }
  return out;
}

async function openTable(event) {
  event.preventDefault();
  fail("open-error", "");
  const query = new URLSearchParams({ path: $("path").value, ...reading($("path").value) });
  await opened(() => call("GET", "/api/open?" + query));
}

// a table sent through the file input, or files that belong together (a job file, its
// table and hierarchy files: sent one by one into one folder, the job file last); refused
// here when over the cap, and by the server while it reads each body; then opened as a path
async function uploadTable() {
  const files = [...$("upload").files];
  if (!files.length) return;
  fail("open-error", "");
  const cap = Number($("upload").dataset.max);
  const isJob = (f) => f.name.toLowerCase().endsWith(".toml");
  const isTable = (f) => /\.(parquet|pq|tsv|txt)$/i.test(f.name) ||
    (/\.csv$/i.test(f.name) && !/hierarchy/i.test(f.name));
  const jobs = files.filter(isJob);
  const main = jobs.length ? jobs : files.length === 1 ? files : files.filter(isTable);
  await opened(async () => {
    if (main.length !== 1) {
      throw new Error("choose one table, or a job file (.toml) with its table and hierarchy " +
                      "files");
    }
    const order = [...files.filter((f) => f !== main[0]), main[0]];
    let into = "";
    let view;
    for (const file of order) {
      if (file.size > cap) {
        throw new Error(`refused: ${file.name} is larger than ${cap / 1048576} MiB, ` +
                        "the most this app accepts");
      }
      const last = file === main[0];
      const query = new URLSearchParams({ name: file.name, ...reading(null), into,
                                          open: last ? "1" : "0" });
      const answer = await call("POST", "/api/upload?" + query, file);
      if (last) view = answer; else into = answer.into;
    }
    $("path").value = view.opened;
    return view;
  });
  $("upload").value = "";
}

async function opened(fetchView) {
  const begun = performance.now();  // the browser's own time to a table shown (tests read it)
  let view;
  try {
    view = await fetchView();
  } catch (e) {
    fail("open-error", e.message);
    for (const id of ["table-step", "model-step", "run-step", "save-step"]) show(id, false);
    return;
  }
  state.opened = view;
  $("table-title").textContent = `${view.input}: ${view.n_rows} rows, ${view.columns.length} columns`;
  list("table-warnings", view.warnings);
  const kept = Object.entries(view.form.settings || {});  // a job file's settings with no control
  $("job-settings").textContent = "The job file also sets (kept for the run): " +
    kept.map(([name, value]) => `${name} = ${JSON.stringify(value)}`).join("; ");
  show("job-settings", kept.length > 0);
  const body = $("columns").tBodies[0];
  body.replaceChildren();
  for (const column of view.columns) {
    const form = view.form.columns[column.column];
    const row = body.insertRow();
    row.dataset.column = column.column;
    cell(row, column.column, "th");
    cell(row, column.type);
    cell(row, column.distinct);
    // a proposed marker's cells beside the missing ones, as inspect shows them: 41+29
    cell(row, column.marker_cells ? `${column.missing}+${column.marker_cells}` : column.missing);
    cell(row, column.examples.join(" | "));
    const role = select(state.choices.roles, form.role, "role");
    role.title = `proposed: ${column.role} (${column.role_reason})`;
    cell(row, "").appendChild(role);
    const type = select(state.choices.types, form.type, "type");
    cell(row, "").appendChild(type);
    const spec = document.createElement("input");
    spec.name = "hierarchy"; spec.size = 28; spec.value = form.hierarchy;
    spec.placeholder = column.hierarchy || "";
    spec.title = state.choices.help.hierarchy;
    const td = cell(row, "");
    const pick = document.createElement("select");
    pick.name = "hierarchy-choice"; pick.title = "hierarchies that fit the column's type";
    const offer = () => offered(pick, view, column, type.value, spec.value);
    offer();
    type.addEventListener("change", offer);
    pick.addEventListener("change", () => { spec.value = pick.value; });
    spec.addEventListener("change", offer);
    td.appendChild(pick);
    td.appendChild(spec);
    const look = document.createElement("button");
    look.type = "button"; look.textContent = "levels"; look.className = "show levels";
    look.addEventListener("click", () => levels(column.column));
    td.appendChild(look);
    const bounds = cell(row, "");
    for (const name of BOUNDS) {
      const bound = document.createElement("input");
      bound.name = name; bound.type = "number"; bound.min = "0"; bound.className = "level";
      bound.value = form[name] || ""; bound.placeholder = name === "min_level" ? "0" : "top";
      bound.title = state.choices.help[name] || name;
      bounds.appendChild(bound);
    }
  }
  show("hierarchy-preview", false);
  const preview = $("preview");
  preview.replaceChildren();
  const head = preview.createTHead().insertRow();
  for (const name of view.header) cell(head, name, "th");
  const rows = preview.createTBody();
  for (const values of view.rows) {
    const row = rows.insertRow();
    for (const v of values) cell(row, v);
  }
  for (const name of MODEL) $(name).value = view.form[name] ?? "";
  $("method").value = view.form.method || "";
  $("release").value = view.form.release || "generalized";
  // what the table was read with (a field the user set keeps its mark: it goes with the
  // next file opened too; one the page filled in from a job file does not)
  for (const { name } of state.choices.read) $(name).value = view.form[name] ?? "";
  for (const id of ["table-step", "model-step"]) show(id);
  performance.measure("opened", { start: begun });
}

// the hierarchies offered for a column: those built from the data that fit the type chosen
// (auto: the inferred one), then the hierarchy files beside the table, its own named first
function offered(pick, view, column, chosen, current) {
  const kind = chosen === "auto" ? column.type : chosen;
  const files = view.hierarchy_files || [];
  const mine = files.filter((f) => f.toLowerCase().includes(column.column.toLowerCase()));
  const items = [
    { spec: "", label: "none: the type's default" },
    ...(view.hierarchies[column.column] || []).filter((o) => o.fits === kind),
    ...[...mine, ...files.filter((f) => !mine.includes(f))].map(
      (f) => ({ spec: f, label: `file: ${f}` })),
  ];
  if (!items.some((o) => o.spec === current)) items.push({ spec: current, label: "typed below" });
  pick.replaceChildren(...items.map((o) => new Option(o.label, o.spec, false, o.spec === current)));
}

function form() {
  const columns = {};
  for (const row of $("columns").tBodies[0].rows) {
    const field = (name) => row.querySelector(`[name="${name}"]`).value;
    columns[row.dataset.column] = { role: field("role"), type: field("type"),
                                    hierarchy: field("hierarchy") };
    for (const name of BOUNDS) columns[row.dataset.column][name] = field(name);
  }
  // the table as it was opened (its reading options), and a job file's other settings
  const out = { input: state.opened.input, columns, method: $("method").value,
                release: $("release").value, settings: state.opened.form.settings || {} };
  for (const { name } of state.choices.read) out[name] = state.opened.form[name] ?? "";
  for (const name of MODEL) out[name] = $(name).value;
  return out;
}

// a hierarchy's levels, as the form spells it, built from the data by the server
async function levels(column) {
  const begun = performance.now();
  const box = $("hierarchy-preview");
  box.replaceChildren();
  show("hierarchy-preview");
  let found;
  try {
    found = await call("POST", "/api/hierarchy?" + new URLSearchParams({ column }), form());
  } catch (e) {
    const p = document.createElement("p");
    p.className = "error"; p.textContent = e.message;
    box.appendChild(p);
    return;
  }
  const title = document.createElement("p");
  title.textContent = `${column}: ${found.note}` +
    (found.levels.length ? `; labels per level: ${found.levels.join(" → ")}` : "");
  box.appendChild(title);
  if (!found.rows.length) return;
  const table = document.createElement("table");
  table.className = "grid";
  const head = table.createTHead().insertRow();
  found.levels.forEach((_, level) => cell(head, level ? `level ${level}` : "value", "th"));
  const body = table.createTBody();
  for (const labels of found.rows) {
    const row = body.insertRow();
    for (const label of labels) cell(row, label);
  }
  box.appendChild(table);
  performance.measure("levels", { start: begun });
}

async function run(event) {
  event.preventDefault();
  fail("run-error", "");
  let status;
  try {
    status = await call("POST", "/api/runs", form());
  } catch (e) {
    fail("run-error", e.message);
    return;
  }
  state.run = state.going = status.id;
  delete document.body.dataset.run;
  delete document.body.dataset.saved;
  show("result", false); show("save-step", false);
  $("cancel").disabled = false; $("run").disabled = true;
  show("run-step");
  clearTimeout(state.timer);
  state.ended = false;
  progress(status);
  if (status.state === "running") poll(status.id);
}

// one poll at a time (the next one asked when this one is answered), and a reply that
// comes after the run ended (a cancel) or for an earlier run is dropped
function poll(id) {
  state.timer = setTimeout(async () => {
    let status;
    try {
      status = await call("GET", `/api/runs/${id}`);
    } catch (e) {
      if (state.going === id && !state.ended) fail("run-error", e.message);
      return;
    }
    if (state.going !== id || state.ended) return;
    progress(status);
    if (status.state === "running") poll(id);
  }, 400);
}

function progress(status) {
  if (status.id !== state.going || state.ended) return;
  $("bar").style.width = `${status.percent}%`;
  $("percent").textContent = `${status.percent} % · ${status.seconds} s`;
  $("stage").textContent = {
    running: `stage ${status.step}: ${status.stage}` +
      (status.counted ? `, ${status.counted[0]} of ${status.counted[1]}` : ""),
    done: "done", cancelled: "cancelled: nothing was written", failed: status.error,
  }[status.state];
  if (status.state === "running") return;
  state.ended = true;
  clearTimeout(state.timer);
  $("run").disabled = false; $("cancel").disabled = true;
  document.body.dataset.run = status.state;
  if (status.state === "failed") fail("run-error", status.error);
  if (status.state !== "done") return;
  if (!state.done.has(status.id)) compare(status);
  display(status);
}

function display(status) {
  state.run = status.id;
  const verdict = $("verdict");
  verdict.textContent = status.verdict;
  verdict.className = status.verdict === "warnings" ? "warnings-verdict" : status.verdict;
  $("summary").textContent = status.summary;
  list("run-warnings", status.warnings);
  $("report-link").href = `/runs/${status.id}/report`;
  $("report").src = `/runs/${status.id}/report`;
  showPlots(status.look);
  show("result"); show("save-step");
  list("saved", []);
}

// one row per finished run: its settings and figures, and a button to show it again
function compare(status) {
  state.done.set(status.id, status);
  const names = Object.keys(status.figures);
  const table = $("compare");
  if (!table.tHead.rows.length) {
    const head = table.tHead.insertRow();
    for (const name of ["run", ...names, "verdict", ""]) cell(head, name, "th");
  }
  const row = table.tBodies[0].insertRow();
  row.dataset.run = status.id;
  cell(row, String(state.done.size), "th");
  for (const name of names) cell(row, status.figures[name] ?? "");
  cell(row, status.verdict);
  const button = document.createElement("button");
  button.type = "button"; button.textContent = "show"; button.className = "show";
  button.addEventListener("click", () => {
    display(status);
    for (const r of table.tBodies[0].rows) r.classList.toggle("shown", r === row);
  });
  cell(row, "").appendChild(button);
  for (const r of table.tBodies[0].rows) r.classList.toggle("shown", r === row);
  compareDetail([...state.done.values()]);
  show("compare-step");
}

async function cancel() {
  $("cancel").disabled = true;
  try { progress(await call("POST", `/api/runs/${state.going}/cancel`)); }
  catch (e) { fail("run-error", e.message); }
}

async function save(event) {
  event.preventDefault();
  fail("save-error", "");
  $("save").disabled = true;  // one save at a time (the server refuses a second one too)
  try {
    const saved = await call("POST", `/api/runs/${state.run}/save`,
                             { folder: $("save-folder").value, name: $("save-name").value });
    const wrote = [saved.release, saved.report, saved.job, saved.input,
                   ...(saved.hierarchies || [])].filter((f) => f);
    list("saved", wrote.map((f) => `wrote ${f}`));
    document.body.dataset.saved = "yes";
  } catch (e) {
    fail("save-error", e.message);
  } finally {
    $("save").disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("open-form").addEventListener("submit", openTable);
  $("read-options").addEventListener("input", (e) => { e.target.dataset.given = "yes"; });
  $("upload").addEventListener("change", uploadTable);
  $("model-form").addEventListener("submit", run);
  $("cancel").addEventListener("click", cancel);
  $("save-form").addEventListener("submit", save);
  choices()
    .then(() => {
      document.body.dataset.ready = "yes";
      performance.mark("ready"); // the browser's own time to a usable page (the tests read it)
    })
    .catch((e) => fail("open-error", e.message));
});
