// Refresher's console: a page per view, the admin API as its only data source, the token the
// operator signs in with kept in sessionStorage (gone with the tab) and sent as the bearer token.
// Every text from the API is set as text, never as HTML.

const TOKEN = "refresher.token";
const page = document.getElementById("page");
let role = null;
let timer = null;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "onclick" || name === "oninput" || name === "onsubmit") node[name] = value;
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

async function api(method, path) {
  const token = sessionStorage.getItem(TOKEN);
  const response = await fetch(path, { method, headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
  if (response.status === 401) {
    signOut("That token is not accepted.");
    throw new Error("unauthorized");
  }
  const body = await response.text();
  const json = body ? JSON.parse(body) : null;
  if (!response.ok) throw new Error(json?.message ?? `HTTP ${response.status}`);
  return json;
}

function show(...children) {
  page.replaceChildren(...children);
}

function failure(error) {
  show(el("p", { class: "error", role: "alert" }, `Could not load: ${error.message}`));
}

function rate(value) {
  return Number(value).toFixed(1);
}

function when(value) {
  return value ? new Date(value).toLocaleTimeString() : "–";
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN);
  role = null;
  location.hash = "#/signin";
  if (message) sessionStorage.setItem("refresher.signin-message", message);
}

function signIn() {
  const message = sessionStorage.getItem("refresher.signin-message");
  sessionStorage.removeItem("refresher.signin-message");
  const input = el("input", { id: "token", type: "password", autocomplete: "off", required: true, "aria-describedby": "token-help" });
  show(
    el("h2", {}, "Sign in"),
    el("form", {
      class: "signin",
      onsubmit: async (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN, input.value.trim());
        location.hash = "#/overview";
      },
    },
      el("label", { for: "token" }, "Admin or read token"),
      input,
      el("p", { id: "token-help", class: "muted" }, "Kept in this tab only. A read token sees everything and changes nothing."),
      message ? el("p", { class: "error", role: "alert" }, message) : "",
      el("button", { class: "action", type: "submit", id: "signin" }, "Sign in")));
  input.focus();
}

function sortableTable(columns, rows, id) {
  let sortBy = null;
  let descending = false;
  const body = el("tbody");
  const render = () => {
    const sorted = [...rows];
    if (sortBy !== null) {
      const key = columns[sortBy].value;
      sorted.sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (descending ? -1 : 1));
    }
    body.replaceChildren(...sorted.map((row) => el("tr", {}, columns.map((column) => el("td", { class: column.numeric ? "num" : "" }, column.cell(row))))));
  };
  const head = el("tr", {}, columns.map((column, index) =>
    el("th", { class: column.numeric ? "num" : "", scope: "col" },
      el("button", { type: "button", onclick: () => { descending = sortBy === index ? !descending : column.numeric; sortBy = index; render(); } }, column.title))));
  render();
  return el("table", { id }, el("thead", {}, head), body);
}

const PAGE_SIZE = 50;

// A table of many rows, a page at a time: filtered by the search box, sorted by a column's button.
function pagedTable(columns, rows, id, filter) {
  let sortBy = null;
  let descending = false;
  let first = 0;
  const body = el("tbody");
  const status = el("span", { id: `${id}-page`, class: "muted", "aria-live": "polite" });
  const previous = el("button", { class: "action", type: "button", id: `${id}-previous`, onclick: () => { first -= PAGE_SIZE; render(); } }, "Previous");
  const next = el("button", { class: "action", type: "button", id: `${id}-next`, onclick: () => { first += PAGE_SIZE; render(); } }, "Next");
  const render = () => {
    const text = filter.value.trim().toLowerCase();
    const shown = rows.filter((row) => columns[0].value(row).toLowerCase().includes(text));
    if (sortBy !== null) {
      const key = columns[sortBy].value;
      shown.sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (descending ? -1 : 1));
    }
    first = Math.max(0, Math.min(first, Math.floor(Math.max(shown.length - 1, 0) / PAGE_SIZE) * PAGE_SIZE));
    body.replaceChildren(...shown.slice(first, first + PAGE_SIZE).map((row) =>
      el("tr", {}, columns.map((column) => el("td", { class: column.numeric ? "num" : "" }, column.cell(row))))));
    status.textContent = shown.length ? `${first + 1}–${Math.min(first + PAGE_SIZE, shown.length)} of ${shown.length}` : "none";
    previous.disabled = first === 0;
    next.disabled = first + PAGE_SIZE >= shown.length;
  };
  const head = el("tr", {}, columns.map((column, index) =>
    el("th", { class: column.numeric ? "num" : "", scope: "col" },
      el("button", { type: "button", onclick: () => { descending = sortBy === index ? !descending : column.numeric; sortBy = index; render(); } }, column.title))));
  filter.oninput = () => { first = 0; render(); };
  render();
  return [el("table", { id }, el("thead", {}, head), body), el("p", { class: "pager" }, previous, next, status)];
}

async function hotKeys() {
  const hot = await api("GET", "/v1/hot?limit=1000");
  const filter = el("input", { id: "search", type: "search", placeholder: "Filter keys", "aria-label": "Filter keys" });
  const columns = [
    { title: "Key", value: (k) => k.key, cell: (k) => el("a", { href: `#/key/${encodeURIComponent(k.key)}` }, k.key) },
    { title: "Reads/s", numeric: true, value: (k) => k.rate, cell: (k) => rate(k.rate) },
    { title: "TTR", numeric: true, value: (k) => k.ttrMillis ?? -1, cell: (k) => (k.ttrMillis == null ? "–" : `${k.ttrMillis} ms`) },
    { title: "Last refresh", value: (k) => k.lastRefreshAt ?? "", cell: (k) => when(k.lastRefreshAt) },
    { title: "Outcome", value: (k) => k.lastOutcome ?? "",
      cell: (k) => (k.lastOutcome === "failed" ? el("span", { class: "error" }, `failed ×${k.consecutiveFailures}`) : k.lastOutcome ?? "–") },
    { title: "Next refresh", value: (k) => k.nextRefreshAt ?? "", cell: (k) => when(k.nextRefreshAt) },
    { title: "Source", value: (k) => k.source ?? "", cell: (k) => k.source ?? "–" },
    { title: "Template", value: (k) => k.template ?? "", cell: (k) => k.template ?? "–" },
  ];
  const listed = hot.items.length < hot.size ? ` (the ${hot.items.length} hottest listed)` : "";
  return [
    el("h2", {}, `Hot keys (${hot.size})`),
    el("p", { class: "muted" }, `Hot at ${hot.hotThreshold} reads/s or more${listed}.`),
    filter,
    ...pagedTable(columns, hot.items, "hot-keys", filter)];
}

async function key(name, note = "") {
  const view = await api("GET", `/v1/keys/${encodeURIComponent(name)}`);
  const status = view.status ?? {};
  const admin = role === "admin";
  const outcome = el("p", { id: "outcome", "aria-live": "polite" }, note);
  const refresh = el("button", {
    class: "action", id: "refresh", type: "button", disabled: !admin, title: admin ? "" : "Needs the admin token",
    onclick: async () => {
      refresh.disabled = true;
      try {
        const result = await api("POST", `/v1/keys/${encodeURIComponent(name)}/refresh`);
        const shown = routing;
        const nodes = await key(name, `Refresh: ${result.outcome}${result.error ? ` (${result.error})` : ""}`);
        if (shown === routing) show(...nodes);
      } catch (error) {
        outcome.textContent = `Refresh failed: ${error.message}`;
        refresh.disabled = false;
      }
    },
  }, "Refresh now");
  const remove = el("button", {
    class: "action", id: "delete", type: "button", disabled: !admin || !!view.template, title: admin ? "" : "Needs the admin token",
    onclick: async () => {
      if (!confirm(`Delete the registration of ${name}? Its value expires on its own.`)) return;
      await api("DELETE", `/v1/keys/${encodeURIComponent(name)}`);
      location.hash = "#/hot";
    },
  }, "Delete");
  const facts = [
    ["Source", view.source], ["Parameters", JSON.stringify(view.params)], ["TTL", view.ttl], ["Policy", view.policy ?? "–"],
    ["Template", view.template ?? "–"], ["Last refresh", status.lastRefreshAt ?? "–"], ["Last outcome", status.lastRefreshOutcome ?? "–"],
    ["Computed in", status.lastRefreshMillis == null ? "–" : `${status.lastRefreshMillis} ms`], ["Expires", status.expiresAt ?? "–"],
    ["Next refresh", status.nextRefreshAt ?? "–"], ["Refreshing", String(status.refreshing ?? "–")],
    ["Value", status.valuePresent ? `${status.valueBytes ?? "?"} bytes` : "absent"],
    ["Reads/s", status.hot ? rate(status.hot.rate) : "not hot"],
    ["Last error", status.lastError ? `${status.lastErrorKind}: ${status.lastError} (${status.consecutiveFailures} in a row)` : "–"],
  ];
  return [
    el("h2", { id: "key-name" }, name),
    el("dl", { id: "key-facts" }, facts.map(([label, value]) => [el("dt", {}, label), el("dd", { "data-fact": label }, value ?? "–")])),
    el("p", {}, refresh, remove),
    outcome];
}

async function uncovered() {
  const found = await api("GET", "/v1/hot/uncovered?limit=100");
  const columns = [
    { title: "Key", value: (k) => k.key, cell: (k) => k.key },
    { title: "Reads/s", numeric: true, value: (k) => k.rate, cell: (k) => rate(k.rate) },
    { title: "Suggested pattern", value: (k) => k.suggestedPattern, cell: (k) => el("code", {}, k.suggestedPattern) },
  ];
  return [
    el("h2", {}, "Hot keys nothing covers"),
    el("p", { class: "muted" }, "Read often, but no registration or template computes them: a template with the suggested pattern would."),
    sortableTable(columns, found.items, "uncovered")];
}

async function sources() {
  const [configured, templates, refill, activity] = await Promise.all([
    api("GET", "/v1/sources"), api("GET", "/v1/templates?limit=1000"), api("GET", "/v1/prewarm"), api("GET", "/v1/sources/activity")]);
  const load = refill.load ?? {};
  const bound = (datasource) => load[datasource];
  const use = Object.fromEntries(activity.sources.map((x) => [x.name, x]));
  const hotOfTemplate = Object.fromEntries(activity.templates.map((t) => [t.name, t.hotKeys]));
  const since = (x) => use[x.name]?.failingSince;
  const sourceColumns = [
    { title: "Source", value: (x) => x.name, cell: (x) => x.name },
    { title: "Kind", value: (x) => x.kind, cell: (x) => (x.revalidates ? `${x.kind}, revalidates` : x.kind) },
    { title: "Datasource or endpoint", value: (x) => x.datasource ?? x.endpoint ?? "", cell: (x) => x.datasource ?? x.endpoint ?? "–" },
    { title: "Parameters", value: (x) => Object.keys(x.params ?? {}).join(","), cell: (x) => Object.entries(x.params ?? {}).map(([n, t]) => `${n}: ${t}`).join(", ") || "–" },
    { title: "Timeout", value: (x) => x.timeout, cell: (x) => x.timeout },
    { title: "Keys registered", numeric: true, value: (x) => use[x.name]?.keysRegistered ?? 0, cell: (x) => use[x.name]?.keysRegistered ?? 0 },
    { title: "Hot keys", numeric: true, value: (x) => use[x.name]?.hotKeys ?? 0, cell: (x) => use[x.name]?.hotKeys ?? 0 },
    { title: "Refreshed", numeric: true, value: (x) => (use[x.name]?.refreshed ?? 0) + (use[x.name]?.revalidated ?? 0),
      cell: (x) => (use[x.name]?.refreshed ?? 0) + (use[x.name]?.revalidated ?? 0) },
    { title: "Failed", numeric: true, value: (x) => use[x.name]?.failed ?? 0, cell: (x) => use[x.name]?.failed ?? 0 },
    { title: "Failing since", value: (x) => since(x) ?? "",
      cell: (x) => (since(x) ? el("span", { class: "error" }, `${when(since(x))} (${ago(since(x))})`) : "–") },
    { title: "Load bound and its use", value: (x) => bound(x.datasource)?.waitingNow ?? -1,
      cell: (x) => {
        const b = bound(x.datasource);
        return b ? `${b.maxQueriesPerSecond || "∞"}/s, ${b.maxConcurrent || "∞"} at once; ${b.waitingNow} waiting, ${b.throttled} throttled` : "none";
      } },
  ];
  const templateColumns = [
    { title: "Template", value: (t) => t.name, cell: (t) => t.name },
    { title: "Pattern", value: (t) => t.pattern, cell: (t) => el("code", {}, t.pattern) },
    { title: "Source", value: (t) => t.source, cell: (t) => t.source },
    { title: "TTL", value: (t) => t.ttl, cell: (t) => t.ttl },
    { title: "Hot keys kept", numeric: true, value: (t) => hotOfTemplate[t.name] ?? 0, cell: (t) => hotOfTemplate[t.name] ?? 0 },
    { title: "Failing since (its source)", value: (t) => use[t.source]?.failingSince ?? "",
      cell: (t) => (use[t.source]?.failingSince ? el("span", { class: "error" }, ago(use[t.source].failingSince)) : "–") },
    { title: "Parameters", value: (t) => JSON.stringify(t.params ?? {}), cell: (t) => JSON.stringify(t.params ?? {}) },
  ];
  return [
    el("h2", {}, "Templates"),
    templates.items.length ? sortableTable(templateColumns, templates.items, "templates") : el("p", { class: "muted", id: "templates" }, "No template."),
    el("h2", {}, "Sources"),
    el("div", { class: "wide" }, sortableTable(sourceColumns, configured.sources, "sources")),
    el("p", { class: "muted" },
      `Hot keys counted over the ${activity.hotKeysCounted} hottest; refreshed, failed and failing since: this replica, since it started.`)];
}

function ago(instant) {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(instant).getTime()) / 1000));
  return seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`;
}

// A small chart of the overview's history: uPlot (served from the service's jar), time on x.
function chart(title, id, samples, series, window, options = {}) {
  const holder = el("figure", { class: "chart", id },
    el("figcaption", {}, title));
  const xs = samples.map((sample) => new Date(sample.at).getTime() / 1000);
  const data = [xs, ...series.map((one) => samples.map(one.value))];
  const colors = ["#1f5fbf", "#b3261e", "#2e7d32", "#8e24aa", "#ef6c00", "#00838f"];
  // Drawn into the figure before it is in the page: with its size given, uPlot measures nothing.
  if (typeof uPlot === "undefined") {
    holder.append(el("p", { class: "error" }, "The chart library did not load."));
  } else {
    new uPlot({
      width: 520, height: 150, legend: { show: true },
      scales: { x: { time: true, range: () => window }, y: { range: options.range ?? ((u, min, max) => [0, Math.max(max, options.floor ?? 1)]) } },
      axes: [{ stroke: "currentColor", grid: { show: false } }, { stroke: "currentColor", size: 55 }],
      series: [{}, ...series.map((one, index) => ({ label: one.label, stroke: colors[index % colors.length], width: 1.5, points: { show: false } }))],
    }, data, holder);
  }
  return holder;
}

async function overview() {
  const view = await api("GET", "/v1/overview");
  const samples = view.samples;
  const latest = samples[samples.length - 1];
  const sources = [...new Set(samples.flatMap((sample) => Object.keys(sample.failuresBySource)))].sort();
  const tile = (label, value, bad = false) =>
    el("div", { class: "tile" }, el("span", { class: "muted" }, label), el("strong", { class: bad ? "error" : "", "data-tile": label }, value));
  const loss = view.latestEpochChange;
  const lossText = loss
    ? `${{ "data-loss": "data loss", failover: "failover", "another-replica": "epoch advanced by another replica" }[loss.cause] ?? loss.cause}, epoch ${loss.epoch}, ${when(loss.at)} (${ago(loss.at)} ago)`
    : "none since this replica started";
  timer = setTimeout(() => route(), view.intervalSeconds * 1000);
  // the x axis spans the history there is (a minute at least), ending at the latest point
  const end = latest ? new Date(latest.at).getTime() / 1000 : Date.now() / 1000;
  const start = samples.length ? Math.min(new Date(samples[0].at).getTime() / 1000, end - 60) : end - 60;
  const span = [start, end];
  return [
    el("h2", {}, "Overview"),
    latest
      ? el("div", { class: "tiles", id: "overview-tiles" },
        tile("Refreshes/s", rate(latest.refreshesPerSecond)),
        tile("Failures/s", rate(latest.failuresPerSecond), latest.failuresPerSecond > 0),
        tile("Lag p99", `${Math.round(latest.lagP99Millis)} ms`),
        tile("Hot keys", `${latest.hotKeys} of ${view.hotKeysCap}`),
        tile("Redis", latest.redisUp ? "up" : "down", !latest.redisUp),
        tile("PostgreSQL", latest.postgresUp ? "up" : "down", !latest.postgresUp))
      : el("p", { class: "muted", id: "overview-tiles" }, `The first figures come within ${2 * view.intervalSeconds} s.`),
    el("p", { id: "latest-data-loss" }, el("span", { class: "muted" }, "Latest data loss: "), lossText),
    el("div", { class: "charts" },
      chart("Refreshes and failures per second", "chart-rate", samples,
        [{ label: "refreshes/s", value: (x) => x.refreshesPerSecond }, { label: "failures/s", value: (x) => x.failuresPerSecond }], span),
      chart("Lag p99 (ms)", "chart-lag", samples, [{ label: "lag p99", value: (x) => x.lagP99Millis }], span),
      chart(`Hot keys (cap ${view.hotKeysCap})`, "chart-hot", samples, [{ label: "hot keys", value: (x) => x.hotKeys }], span),
      chart("Failures by source (per interval)", "chart-failures", samples,
        sources.length ? sources.map((name) => ({ label: name, value: (x) => x.failuresBySource[name] ?? 0 })) : [{ label: "none", value: () => 0 }], span),
      chart("Redis and PostgreSQL up (1) or down (0)", "chart-state", samples,
        [{ label: "Redis", value: (x) => (x.redisUp ? 1 : 0) }, { label: "PostgreSQL", value: (x) => (x.postgresUp ? 1 : 0) }],
        span, { range: () => [0, 1.1] })),
    el("p", { class: "muted", id: "overview-points" },
      `This replica: ${samples.length} points, one every ${view.intervalSeconds} s (the last ${view.keptSamples} are kept); data epoch ${view.epoch}.`)];
}

async function feeds() {
  const view = await api("GET", "/v1/feeds");
  const totals = view.totals;
  const columns = [
    { title: "Datasource", value: (f) => f.datasource, cell: (f) => f.datasource },
    { title: "Kind", value: (f) => f.kind, cell: (f) => (f.kind === "notify" ? "NOTIFY" : "log (capture)") },
    { title: "Channels or slot", value: (f) => f.slot ?? f.channels.join(","), cell: (f) => f.slot ?? f.channels.join(", ") },
    { title: "Here", value: (f) => String(f.here), cell: (f) => (f.here ? (f.kind === "notify" ? "listening" : "reading") : "standing by") },
    { title: "Slot read by a replica", value: (f) => String(f.slotActive), cell: (f) => (f.slotActive == null ? "–" : f.slotActive ? "yes" : el("span", { class: "error" }, "no")) },
    { title: "Slot lag", numeric: true, value: (f) => f.slotLagBytes ?? -1,
      cell: (f) => (f.slotLagBytes == null ? "–" : `${Math.round(f.slotLagBytes)} B, ${rate(f.slotLagSeconds ?? 0)} s`) },
  ];
  timer = setTimeout(() => route(), 2000);
  return [
    el("h2", {}, "Change feeds"),
    view.feeds.length
      ? sortableTable(columns, view.feeds, "feeds")
      : el("p", { class: "muted", id: "feeds" }, "No source refreshes on change (no changes: and no capture: in config.yml)."),
    el("h2", {}, "On this replica since it started"),
    el("dl", { id: "feed-facts" },
      [["Pending", view.pending], ["Received", totals.received], ["Coalesced", totals.coalesced], ["Refreshed", totals.refreshed],
        ["Evicted", totals.evicted], ["Ignored", totals.ignored], ["Deferred", totals.deferred], ["Dropped", totals.dropped],
        ["Retried", totals.retried], ["Failed", totals.failed]]
        .map(([label, value]) => [el("dt", {}, label), el("dd", { "data-fact": label, class: label === "Dropped" && value > 0 ? "error" : "" }, value)])),
    el("p", { class: "muted" }, "One replica listens to each datasource (or reads its log); the others stand by and take over when it goes. Dropped: changes let go when the pending set was full; the keys' scheduled refreshes catch them up.")];
}

// The refill's figures are redrawn every second in place; the start button stays the same element,
// so that it keeps the keyboard's focus (and a click) while the page follows the refill.
async function prewarm() {
  const mine = routing;
  const live = el("div", { id: "prewarm-live", "aria-live": "polite" });
  const start = el("button", {
    class: "action", id: "start-prewarm", type: "button", disabled: true,
    onclick: async () => {
      start.disabled = true;
      try {
        await api("POST", "/v1/prewarm");
      } catch (error) {
        live.append(el("p", { class: "error", role: "alert" }, `Could not start: ${error.message}`));
      }
      await draw();
    },
  }, "Start a refill");
  const draw = async () => {
    const run = (await api("GET", "/v1/prewarm")).prewarm ?? {};
    const total = (run.done ?? 0) + (run.left ?? 0) + (run.failed ?? 0);
    live.replaceChildren(
      el("dl", { id: "prewarm-facts" },
        [["State", run.state ?? "none"], ["Trigger", run.trigger ?? "–"], ["Done", run.done ?? 0], ["Left", run.left ?? 0], ["Failed", run.failed ?? 0]]
          .map(([label, value]) => [el("dt", {}, label), el("dd", { "data-fact": label }, value)])),
      el("progress", { max: total || 1, value: run.done ?? 0, "aria-label": "Refill progress" }));
    start.disabled = role !== "admin" || run.state === "running";
  };
  const follow = async () => {
    if (mine !== routing) return; // the operator moved on
    try {
      await draw();
    } catch (error) {
      // shown again at the next second; a page that cannot load says so through route()
    }
    if (mine === routing) timer = setTimeout(follow, 1000);
  };
  await draw();
  timer = setTimeout(follow, 1000);
  return [el("h2", {}, "Prewarm"), live, el("p", {}, start)];
}

// Each navigation has a number; a page whose data came back after the operator moved on is not shown.
let routing = 0;

async function route() {
  clearTimeout(timer);
  const mine = ++routing;
  const hash = location.hash || "#/overview";
  if (!sessionStorage.getItem(TOKEN) || hash === "#/signin") {
    document.getElementById("who").textContent = "";
    return signIn();
  }
  try {
    if (role === null) {
      const me = await api("GET", "/v1/whoami");
      role = me.role;
      document.getElementById("who").replaceChildren(
        `Signed in (${me.role}, token ${me.tokenId}) `,
        el("button", { class: "action", id: "signout", type: "button", onclick: () => signOut() }, "Sign out"));
    }
    for (const link of document.querySelectorAll("nav a")) {
      if (hash.startsWith(link.getAttribute("href"))) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    let nodes;
    if (hash.startsWith("#/key/")) nodes = await key(decodeURIComponent(hash.slice("#/key/".length)));
    else if (hash === "#/uncovered") nodes = await uncovered();
    else if (hash === "#/prewarm") nodes = await prewarm();
    else if (hash === "#/sources") nodes = await sources();
    else if (hash === "#/feeds") nodes = await feeds();
    else if (hash === "#/hot") nodes = await hotKeys();
    else nodes = await overview();
    if (mine === routing) show(...nodes);
  } catch (error) {
    if (error.message !== "unauthorized" && mine === routing) failure(error);
  }
}

window.addEventListener("hashchange", () => { route(); });
route();
