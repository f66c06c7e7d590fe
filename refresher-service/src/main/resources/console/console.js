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
        location.hash = "#/hot";
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

async function hotKeys() {
  const hot = await api("GET", "/v1/hot?limit=1000");
  const filter = el("input", { id: "search", type: "search", placeholder: "Filter keys", "aria-label": "Filter keys" });
  const holder = el("div");
  const columns = [
    { title: "Key", value: (k) => k.key, cell: (k) => el("a", { href: `#/key/${encodeURIComponent(k.key)}` }, k.key) },
    { title: "Reads/s", numeric: true, value: (k) => k.rate, cell: (k) => rate(k.rate) },
    { title: "TTR", numeric: true, value: (k) => k.ttrMillis ?? -1, cell: (k) => (k.ttrMillis == null ? "–" : `${k.ttrMillis} ms`) },
    { title: "Next refresh", value: (k) => k.nextRefreshAt ?? "", cell: (k) => when(k.nextRefreshAt) },
    { title: "Source", value: (k) => k.source ?? "", cell: (k) => k.source ?? "–" },
    { title: "Template", value: (k) => k.template ?? "", cell: (k) => k.template ?? "–" },
  ];
  const draw = () => {
    const text = filter.value.trim().toLowerCase();
    holder.replaceChildren(sortableTable(columns, hot.items.filter((k) => k.key.toLowerCase().includes(text)), "hot-keys"));
  };
  filter.oninput = draw;
  draw();
  return [el("h2", {}, `Hot keys (${hot.size})`), el("p", { class: "muted" }, `Hot at ${hot.hotThreshold} reads/s or more.`), filter, holder];
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
  const [configured, templates, refill] = await Promise.all([
    api("GET", "/v1/sources"), api("GET", "/v1/templates?limit=1000"), api("GET", "/v1/prewarm")]);
  const load = refill.load ?? {};
  const bound = (datasource) => load[datasource];
  const sourceColumns = [
    { title: "Source", value: (x) => x.name, cell: (x) => x.name },
    { title: "Kind", value: (x) => x.kind, cell: (x) => x.kind },
    { title: "Datasource or endpoint", value: (x) => x.datasource ?? x.endpoint ?? "", cell: (x) => x.datasource ?? x.endpoint ?? "–" },
    { title: "Parameters", value: (x) => Object.keys(x.params ?? {}).join(","), cell: (x) => Object.entries(x.params ?? {}).map(([n, t]) => `${n}: ${t}`).join(", ") || "–" },
    { title: "Timeout", value: (x) => x.timeout, cell: (x) => x.timeout },
    { title: "Revalidates", value: (x) => String(x.revalidates), cell: (x) => (x.revalidates ? "yes" : "no") },
    { title: "Load bound (queries/s, at once)", value: (x) => bound(x.datasource)?.maxQueriesPerSecond ?? -1,
      cell: (x) => { const b = bound(x.datasource); return b ? `${b.maxQueriesPerSecond || "∞"}/s, ${b.maxConcurrent || "∞"}` : "none"; } },
    { title: "Waiting now", numeric: true, value: (x) => bound(x.datasource)?.waitingNow ?? 0, cell: (x) => bound(x.datasource)?.waitingNow ?? "–" },
    { title: "Throttled", numeric: true, value: (x) => bound(x.datasource)?.throttled ?? 0, cell: (x) => bound(x.datasource)?.throttled ?? "–" },
  ];
  const templateColumns = [
    { title: "Template", value: (t) => t.name, cell: (t) => t.name },
    { title: "Pattern", value: (t) => t.pattern, cell: (t) => el("code", {}, t.pattern) },
    { title: "Source", value: (t) => t.source, cell: (t) => t.source },
    { title: "TTL", value: (t) => t.ttl, cell: (t) => t.ttl },
    { title: "Parameters", value: (t) => JSON.stringify(t.params ?? {}), cell: (t) => JSON.stringify(t.params ?? {}) },
  ];
  return [
    el("h2", {}, "Templates"),
    templates.items.length ? sortableTable(templateColumns, templates.items, "templates") : el("p", { class: "muted", id: "templates" }, "No template."),
    el("h2", {}, "Sources"),
    sortableTable(sourceColumns, configured.sources, "sources")];
}

async function prewarm() {
  const view = await api("GET", "/v1/prewarm");
  const run = view.prewarm ?? {};
  const total = (run.done ?? 0) + (run.left ?? 0) + (run.failed ?? 0);
  const start = el("button", {
    class: "action", id: "start-prewarm", type: "button", disabled: role !== "admin" || run.state === "running",
    onclick: async () => { await api("POST", "/v1/prewarm"); route(); },
  }, "Start a refill");
  timer = setTimeout(() => route(), 1000);
  return [
    el("h2", {}, "Prewarm"),
    el("dl", { id: "prewarm-facts" },
      [["State", run.state ?? "none"], ["Trigger", run.trigger ?? "–"], ["Done", run.done ?? 0], ["Left", run.left ?? 0], ["Failed", run.failed ?? 0]]
        .map(([label, value]) => [el("dt", {}, label), el("dd", { "data-fact": label }, value)])),
    el("progress", { max: total || 1, value: run.done ?? 0, "aria-label": "Refill progress" }),
    el("p", {}, start)];
}

// Each navigation has a number; a page whose data came back after the operator moved on is not shown.
let routing = 0;

async function route() {
  clearTimeout(timer);
  const mine = ++routing;
  const hash = location.hash || "#/hot";
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
    else nodes = await hotKeys();
    if (mine === routing) show(...nodes);
  } catch (error) {
    if (error.message !== "unauthorized" && mine === routing) failure(error);
  }
}

window.addEventListener("hashchange", () => { route(); });
route();
