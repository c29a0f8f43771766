// The search page: plain DOM, no build step. One state object, one render function.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { request: null, offset: 0, k: 10 };

function headers(json) {
  const h = json ? { "Content-Type": "application/json" } : {};
  const key = $("api-key").value.trim();
  if (key) h["X-API-Key"] = key;
  return h;
}

function filters() {
  const num = (id) => ($(id).value === "" ? null : Number($(id).value));
  const text = (id) => $(id).value.trim() || null;
  return { year_min: num("year-min"), year_max: num("year-max"), venue: text("venue"), domain: text("domain") };
}

// `label`: how the status line names a paper search (its title, not its id); never sent to the server.
async function run(request, offset, label) {
  if (label !== undefined) state.label = label;
  if (!request.query) $("query").value = "";  // the box never shows a query that is not the one on screen
  state.request = request;
  state.offset = offset;
  state.k = Number($("k").value);
  $("status").textContent = "Searching…";
  $("status").className = "muted";
  let response;
  try {
    if (request.file) {
      const form = new FormData();
      form.append("file", request.file);
      form.append("k", state.k);
      form.append("offset", offset);
      for (const [name, value] of Object.entries(filters())) if (value !== null) form.append(name, value);
      response = await fetch("/search/file", { method: "POST", body: form, headers: headers(false) });
    } else {
      const body = { ...request, k: state.k, offset, filters: filters() };
      response = await fetch("/search", { method: "POST", body: JSON.stringify(body), headers: headers(true) });
    }
    const data = await response.json();
    if (!response.ok) throw new Error(data.error ? data.error.message : response.statusText);
    render(data, request);
  } catch (err) {
    $("hits").replaceChildren();
    $("pager").hidden = true;
    $("status").textContent = "Error: " + err.message;
    $("status").className = "error";
  }
}

function describe(request, data) {
  if (request.query) return `“${request.query}”`;
  if (request.paper_id) return `papers like “${state.label || request.paper_id}”`;
  return `papers like the uploaded “${data.paper ? data.paper.title : request.file.name}”`;
}

function render(data, request) {
  const list = $("hits");
  list.start = data.offset + 1;
  list.replaceChildren(...data.hits.map(hitItem));
  const shown = data.hits.length ? `${data.offset + 1}–${data.offset + data.hits.length}` : "no hits";
  $("status").textContent = `${describe(request, data)}: ${shown} · ${data.took_ms.toFixed(1)} ms` +
    (data.notes.length ? " · " + data.notes.join("; ") : "");
  $("status").className = "muted";
  $("status").dataset.took = data.took_ms;
  $("pager").hidden = !(data.offset > 0 || data.more);
  $("prev").disabled = data.offset === 0;
  $("next").disabled = !data.more;
  $("page").textContent = `page ${Math.floor(data.offset / data.k) + 1}`;
}

function hitItem(hit) {
  const li = document.createElement("li");
  li.className = "hit";
  li.dataset.id = hit.id;
  const title = document.createElement("div");
  title.className = "title";
  title.textContent = hit.title || hit.id;
  const meta = document.createElement("div");
  meta.className = "meta";
  const view = hit.view === "ta" ? "title+abstract" : `${hit.view}${hit.section !== null ? " §" + (hit.section + 1) : ""}`;
  const venue = hit.venue_short || hit.venue;
  for (const part of [hit.year, venue, hit.domain, `score ${hit.score.toFixed(3)}`, `matched: ${view}`, hit.id]) {
    if (part === null || part === undefined || part === "") continue;
    const span = document.createElement("span");
    span.textContent = part;
    if (part === venue && hit.venue_short && hit.venue) { span.title = hit.venue; span.className = "venue"; }
    meta.append(span);
  }
  const authors = document.createElement("div");
  authors.className = "authors";
  const names = hit.authors || [];
  authors.textContent = names.length > 6 ? `${names.slice(0, 6).join(", ")} and ${names.length - 6} more` : names.join(", ");
  const snip = document.createElement("p");
  snip.className = "snippet";
  snip.textContent = hit.snippet;
  const similar = document.createElement("button");
  similar.type = "button";
  similar.className = "link similar";
  similar.textContent = "similar papers";
  similar.addEventListener("click", () => run({ paper_id: hit.id }, 0, hit.title || hit.id));
  li.append(title, ...(names.length ? [authors] : []), meta, snip, similar);
  return li;
}

$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = $("query").value.trim();
  if (!query) { $("status").textContent = "Type a query first."; return; }
  run({ query }, 0);
});
$("file").addEventListener("change", () => { if ($("file").files.length) run({ file: $("file").files[0] }, 0); });
const drop = $("upload");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  if (e.dataTransfer.files.length) run({ file: e.dataTransfer.files[0] }, 0);
});
$("prev").addEventListener("click", () => run(state.request, Math.max(0, state.offset - state.k)));
$("next").addEventListener("click", () => run(state.request, state.offset + state.k));

// "Add a paper": shown when the server takes writes (open, or with the API key typed in the filters).
function showAdd() {
  const writes = state.writes || "closed";
  $("add-paper").hidden = !(writes === "open" || (writes === "key" && $("api-key").value.trim() !== ""));
}

// Pasted JSON: one paper, a list of papers, or {"papers": [...]}; the id box names a single paper.
function pastedPapers(text, id) {
  let data;
  try { data = JSON.parse(text); } catch (err) { throw new Error(`the pasted text is not JSON (${err.message})`); }
  const papers = Array.isArray(data) ? data : Array.isArray(data.papers) ? data.papers : [data];
  if (id && papers.length === 1) papers[0] = { ...papers[0], id };
  else if (id) throw new Error("an id names one paper; the JSON holds " + papers.length);
  return papers;
}

async function addPaper() {
  const status = $("add-status");
  const file = $("add-file").files[0];
  const text = $("add-json").value.trim();
  const id = $("add-id").value.trim();
  status.className = "muted";
  if (!file && !text) { status.textContent = "Choose a file or paste a paper's JSON first."; return; }
  status.textContent = "Adding…";
  try {
    let response;
    if (file) {
      const form = new FormData();
      form.append("file", file);
      if (id) form.append("id", id);
      response = await fetch("/papers/file", { method: "POST", body: form, headers: headers(false) });
    } else {
      const body = JSON.stringify({ papers: pastedPapers(text, id) });
      response = await fetch("/papers", { method: "POST", body, headers: headers(true) });
    }
    const data = await response.json();
    if (!response.ok) throw new Error(data.error ? data.error.message : response.statusText);
    const named = data.ids.map((p) => `${p.id} “${p.title}”`).join(", ");
    const verb = data.replaced && !data.added ? "Replaced" : "Added";
    const rejected = data.rejected ? ` · ${data.rejected} rejected: ${data.rejections.map((r) => r.reason).join(", ")}` : "";
    status.textContent = (named ? `${verb} ${named}` : "Nothing added") + ` · ${data.papers.toLocaleString()} papers${rejected}`;
    status.className = data.ids.length ? "ok" : "error";
    $("add-file").value = "";
    $("add-json").value = "";
    $("add-id").value = "";
  } catch (err) {
    status.textContent = "Error: " + err.message;
    status.className = "error";
  }
}

$("add-form").addEventListener("submit", (event) => { event.preventDefault(); addPaper(); });
$("api-key").addEventListener("input", showAdd);

fetch("/stats", { headers: headers(false) }).then((r) => (r.ok ? r.json() : null)).then((s) => {
  if (!s) return;
  $("stats").textContent = `${s.papers.toLocaleString()} papers · ${s.vectors.toLocaleString()} vectors · ${s.index.kind} · ${s.model.name}`;
  state.writes = s.writes;
  showAdd();
});
