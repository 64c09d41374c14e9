// The toolguard inbox: lists requests, approves (as they are, edited, or
// with a new allow rule) and rejects them, and reloads on every event of
// /v1/events. Every text from a request is set with textContent: a preview
// is the agent's text, never markup.
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const statusLine = document.getElementById("status");
const pendingBox = document.getElementById("pending");
const decidedBox = document.getElementById("decided");
const template = document.getElementById("card");

function say(text) { statusLine.textContent = text; }

async function api(method, path, body) {
  const opts = { method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-CSRF-Token"] = csrf;
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) {
    throw new Error((data && data.error) || (res.status + " " + res.statusText));
  }
  return data;
}

// what is the main text of a card: the command, the content, the edits,
// the patch or the input.
function what(r) {
  const p = r.preview || {};
  if (p.command) return p.command;
  const parts = [];
  if (p.path) parts.push((r.kind || "file") + " " + p.path + (p.size ? " (" + p.size + " bytes)" : ""));
  if (p.diff) return parts.join("\n"); // the diff (showDiff) shows the content or the edits
  if (p.content) parts.push(p.content);
  for (const e of p.edits || []) {
    parts.push("- " + e.old.split("\n").join("\n- ") + "\n+ " + e.new.split("\n").join("\n+ ") + (e.replace_all ? "\n(every occurrence)" : ""));
  }
  if (p.patch) parts.push(p.patch);
  if (p.mcp_server || p.mcp_tool) parts.push("MCP " + (p.mcp_server || "") + "/" + (p.mcp_tool || ""));
  if (p.input) parts.push(p.input);
  return parts.length ? parts.join("\n\n") : (r.summary || "");
}

// showDiff appends a unified diff to pre, a line each, marked as added,
// removed or a hunk header for the style sheet (text only, never markup).
function showDiff(pre, note, diff) {
  if (note) pre.append("\n" + note);
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    const span = document.createElement("span");
    span.className = line.startsWith("@@") ? "hunk" : line.startsWith("+") && !line.startsWith("+++") ? "add" :
      line.startsWith("-") && !line.startsWith("---") ? "del" : "ctx";
    span.textContent = line;
    pre.append("\n", span);
  }
  pre.classList.add("diff");
}

function fact(dl, name, value) {
  if (!value) return;
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.textContent = value;
  dl.append(dt, dd);
}

// editedText is the field a human edited, from a grant's edit.
function editedText(e) {
  try {
    const v = JSON.parse(e.input)[e.field];
    if (typeof v === "string") return e.field + " " + v;
  } catch (err) { /* not JSON: show the field's name only */ }
  return e.field;
}

// busy: the human has a form of this card open, is opening one, has text
// typed in it or an error to read; a reload leaves such a card alone while
// it still waits.
function busy(node) {
  const err = node.querySelector(".form-error");
  return node.dataset.opening === "1" || (err && !err.hidden) || [...node.querySelectorAll("form.edit, form.amend")].some(f => !f.hidden) ||
    [...node.querySelectorAll("form.reject textarea")].some(t => t.value);
}

// drawn is the request each card was drawn from (JSON), so that a reload
// keeps a card whose request did not change: a click on it is not lost.
const drawn = new WeakMap();

function card(r) {
  const node = template.content.firstElementChild.cloneNode(true);
  drawn.set(node, JSON.stringify(r));
  node.dataset.id = r.id;
  node.id = r.id;
  node.dataset.status = r.status;
  node.setAttribute("aria-label", r.status + " request " + r.id);
  const badge = node.querySelector(".badge");
  badge.textContent = r.status;
  badge.classList.add(r.status);
  node.querySelector(".id").textContent = r.id;
  const created = node.querySelector(".created");
  created.textContent = new Date(r.created).toLocaleString();
  created.dateTime = r.created;
  node.querySelector(".what").textContent = what(r);
  const p = r.preview || {};
  if (p.diff) showDiff(node.querySelector(".what"), r.kind === "write" ? "replaces the file's current content:" : "", p.diff);
  const desc = node.querySelector(".description");
  if (p.description) desc.textContent = "Agent's description: " + p.description; else desc.remove();
  const dl = node.querySelector(".facts");
  fact(dl, "tool", r.tool + (r.kind ? " (" + r.kind + ")" : ""));
  fact(dl, "cwd", r.cwd);
  fact(dl, "workspace", p.workspace);
  fact(dl, "session", r.session);
  fact(dl, "agent", r.provider);
  fact(dl, "permission mode", p.permission_mode);
  fact(dl, "problem", r.problem);
  const rules = node.querySelector(".rules");
  const rp = p.rules && p.rules.length ? p.rules : (r.rules || []).map(id => ({ rule: id }));
  for (const m of rp) {
    const li = document.createElement("li");
    let t = m.rule;
    if (m.decision) t += " (" + m.decision + (m.layer ? ", " + m.layer : "") + (m.source ? " " + m.source : "") + ")";
    if (m.justification) t += ": " + m.justification;
    li.textContent = t;
    rules.append(li);
  }
  if (!rp.length && r.reason) {
    const li = document.createElement("li");
    li.textContent = r.reason;
    rules.append(li);
  }
  const decision = node.querySelector(".decision");
  if (r.status === "pending") {
    decision.remove();
  } else {
    const g = r.grant;
    let t = r.status;
    if (r.decided) t += " " + new Date(r.decided).toLocaleString();
    if (g) t += " by " + (g.approver.user || "?") + " (" + g.approver.fingerprint + "), " + g.uses_left + " of " + g.uses + " use(s) left, until " + new Date(g.expires).toLocaleString();
    if (g && g.edit) t += "; approved as edited: " + editedText(g.edit);
    if (r.reject_reason) t += ": " + r.reject_reason;
    if (r.stop) t += r.stop_delivered ? " (turn stopped)" : " (the turn stops at the session's next call)";
    decision.textContent = t;
  }
  const approve = node.querySelector("form.approve");
  const reject = node.querySelector("form.reject");
  const err = node.querySelector(".form-error");
  if (r.status !== "pending") {
    node.querySelector(".actions").remove();
    return node;
  }
  const fail = e => { err.hidden = false; err.textContent = e.message; };
  const clear = () => { err.hidden = true; err.textContent = ""; };
  const base = "/v1/approvals/" + encodeURIComponent(r.id);
  // what every approval sends: the uses and expiry chosen in the card
  const grant = () => ({ uses: parseInt(approve.elements.uses.value, 10), ttl: approve.elements.ttl.value, session: r.session || undefined });
  approve.addEventListener("submit", async ev => {
    ev.preventDefault();
    clear();
    try {
      await api("POST", base + "/approve", grant());
      say("Approved " + r.id + ".");
      await load();
    } catch (e) { fail(e); }
  });

  // Edit: the server names the field (command, content, new text) and its
  // text; the edited call is judged by the policy before it is approved.
  const edit = node.querySelector("form.edit");
  const amend = node.querySelector("form.amend");
  let field = "";
  // opening: the form's text is on its way; a reload meanwhile keeps the card
  const opening = async (f) => {
    clear();
    node.dataset.opening = "1";
    try { await f(); } catch (e) { fail(e); } finally { delete node.dataset.opening; }
  };
  approve.querySelector("button.edit").addEventListener("click", () => opening(async () => {
    const e = await api("GET", base + "/edit");
    field = e.field;
    edit.querySelector(".edit-label").textContent = "Edited " + e.field + (e.kind === "shell" ? "" : " of " + e.call) +
      " (the agent is handed, or told to run, exactly this)";
    edit.elements.text.value = e.text;
    amend.hidden = true;
    edit.hidden = false;
    edit.elements.text.focus();
  }));
  edit.addEventListener("submit", async ev => {
    ev.preventDefault();
    clear();
    try {
      const out = await api("POST", base + "/approve", { ...grant(), edit: { field, text: edit.elements.text.value } });
      edit.hidden = true;
      say(out.grant && out.grant.edit ? "Approved " + r.id + " as edited." : "Approved " + r.id + " as it was: the edit changed nothing.");
      await load();
    } catch (e) { fail(e); }
  });

  // Approve and add rule: the server shows the rule and the file; what
  // was shown is what it writes (it refuses a rule that changed since).
  let snippet = "";
  approve.querySelector("button.amend").addEventListener("click", () => opening(async () => {
    const a = await api("GET", base + "/amend");
    snippet = a.snippet;
    amend.querySelector(".amend-file").textContent = "Adds rule " + a.rule + " to " + a.file + ":";
    amend.querySelector("pre.snippet").textContent = a.snippet.replace(/^\n+/, "");
    edit.hidden = true;
    amend.hidden = false;
    amend.querySelector("button.ok").focus();
  }));
  amend.addEventListener("submit", async ev => {
    ev.preventDefault();
    clear();
    try {
      await api("POST", base + "/approve", { ...grant(), amend: { snippet } });
      amend.hidden = true;
      say("Approved " + r.id + " and added its rule to the policy.");
      await load();
    } catch (e) { fail(e); }
  });
  for (const f of [edit, amend]) {
    f.querySelector("button.cancel").addEventListener("click", () => { f.hidden = true; clear(); approve.querySelector("button.ok").focus(); });
  }
  reject.addEventListener("submit", async ev => {
    ev.preventDefault();
    const reason = reject.elements.reason.value.trim();
    if (!reason) { fail(new Error("A rejection needs a reason: the agent reads it.")); reject.elements.reason.focus(); return; }
    try {
      const stop = reject.elements.stop.checked;
      await api("POST", "/v1/approvals/" + encodeURIComponent(r.id) + "/reject", stop ? { reason, stop } : { reason });
      reject.elements.reason.value = "";
      say((stop ? "Rejected " + r.id + " and stopped the turn." : "Rejected " + r.id + "."));
      await load();
    } catch (e) { fail(e); }
  });
  return node;
}

// A notification's link followed before sign-in (signin.js kept it):
// open its card now, once, if it was followed within 30 minutes.
try {
  const next = JSON.parse(localStorage.getItem("toolguard.next") || "null");
  localStorage.removeItem("toolguard.next");
  if (next && location.hash.length <= 1 && /^#req_[A-Za-z0-9_-]{1,64}$/.test(next.hash) &&
      Date.now() - next.at >= 0 && Date.now() - next.at < 30 * 60 * 1000) {
    history.replaceState(null, "", next.hash);
  }
} catch (e) { /* no storage, or not ours: the inbox opens without a card */ }

// show puts nodes into box in this order, moving, adding or removing only
// what changed: a card left in place keeps its focus, its typed text and
// a click on its way.
function show(box, nodes) {
  let at = box.firstChild;
  for (const n of nodes) {
    if (n === at) { at = at.nextSibling; continue; }
    box.insertBefore(n, at);
  }
  while (at) { const next = at.nextSibling; at.remove(); at = next; }
}

let loading = null;
let hashDone = false;
async function load() {
  if (loading) return loading;
  loading = (async () => {
    try {
      const reqs = await api("GET", "/v1/approvals");
      const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".card");
      const keep = focused ? focused.dataset.id : null;
      const pending = reqs.filter(r => r.status === "pending");
      const decided = reqs.filter(r => r.status !== "pending");
      // Leave a card the human is typing in, or has a form of open, alone
      // while it still waits.
      const active = document.activeElement;
      const kept = box => r => {
        const old = box.querySelector('[data-id="' + CSS.escape(r.id) + '"]');
        return old && (drawn.get(old) === JSON.stringify(r) || r.status === "pending" && busy(old)) ? old : card(r);
      };
      show(pendingBox, pending.map(kept(pendingBox)));
      if (active && active.isConnected && active !== document.body) {
        if (document.activeElement !== active) active.focus();
      } else if (keep) {
        const again = pendingBox.querySelector('[data-id="' + CSS.escape(keep) + '"]');
        if (again) again.focus();
      }
      show(decidedBox, decided.map(kept(decidedBox)));
      document.getElementById("pending-count").textContent = "(" + pending.length + ")";
      if (!pending.length) {
        const p = document.createElement("p");
        p.textContent = "Nothing waits for a decision.";
        pendingBox.append(p);
      }
      // A link from a notification (/#req_…) focuses its card once.
      if (!hashDone && location.hash.length > 1) {
        const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (target && target.classList.contains("card")) { hashDone = true; target.focus(); target.scrollIntoView(); }
      }
      say("Up to date " + new Date().toLocaleTimeString() + ".");
    } catch (e) {
      say("Could not load the requests: " + e.message);
    } finally {
      loading = null;
    }
  })();
  return loading;
}

function listen() {
  const es = new EventSource("/v1/events");
  for (const name of ["approval.request", "approval.decision", "approval.result"]) {
    es.addEventListener(name, () => load());
  }
  es.addEventListener("ready", () => load());
  es.onerror = () => say("Live updates interrupted; retrying…");
}

load();
listen();
