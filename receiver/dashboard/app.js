// firmakit receiver dashboard. Every value that came in a notification is
// untrusted: it is only ever put in the page as text (textContent), never
// as HTML.
(function () {
  "use strict";

  var T = {
    es: {
      subtitle: "notificaciones de firma", connecting: "conectando…", open: "en vivo", closed: "desconectado, reintentando…",
      pause: "Pausar", resume: "Reanudar", channel: "Canal", state: "Estado", verdict: "Firma", all: "todos",
      received: "Recibida", delay: "Demora", record: "Registro", copycurl: "Copiar como curl", copied: "¡Copiado!",
      headers: "Cabeceras", body: "Cuerpo", empty: "Aún no llegan notificaciones. Envíalas a la URL de arriba.",
      demo: "Crear contrato demo:", shown: "{n} mostradas", paused: "{n} en espera", duplicate: "duplicada",
      hint: "Envía notificaciones a {url}", size: "bytes", verdictOf: "firma",
      answer: "Respuesta", forwarded: "Reenviada a tu endpoint", forwarding: "; cada una se reenvía a {url}",
      endpoint: "endpoint", noanswer: "sin respuesta", answered: "respondió {status} en {ms} ms", answeredUs: "se respondió {status} al servicio"
    },
    en: {
      subtitle: "signature notifications", connecting: "connecting…", open: "live", closed: "disconnected, retrying…",
      pause: "Pause", resume: "Resume", channel: "Channel", state: "State", verdict: "Signature", all: "all",
      received: "Received", delay: "Delay", record: "Record", copycurl: "Copy as curl", copied: "Copied!",
      headers: "Headers", body: "Body", empty: "No notification yet. Send them to the URL above.",
      demo: "Create demo contract:", shown: "{n} shown", paused: "{n} waiting", duplicate: "duplicate",
      hint: "Send notifications to {url}", size: "bytes", verdictOf: "signature",
      answer: "Answer", forwarded: "Forwarded to your endpoint", forwarding: "; each is forwarded to {url}",
      endpoint: "endpoint", noanswer: "no answer", answered: "answered {status} in {ms} ms", answeredUs: "the service was answered {status}"
    }
  };
  var MAX_ROWS = 1000;
  var lang = localStorage.getItem("firmakit.lang") || ((navigator.language || "es").slice(0, 2) === "en" ? "en" : "es");
  var records = new Map();  // id -> record
  var order = [];           // ids, newest first
  var lastId = 0;
  var paused = false;
  var waiting = [];
  var selected = null;
  var ws = null;
  var backoff = 500;
  var connState = "connecting";
  var info = null;

  function $(id) { return document.getElementById(id); }
  function t(key, vars) {
    var s = (T[lang] && T[lang][key]) || T.en[key] || key;
    if (vars) { Object.keys(vars).forEach(function (k) { s = s.replace("{" + k + "}", vars[k]); }); }
    return s;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function applyLang() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-i18n]").forEach(function (e) { e.textContent = t(e.getAttribute("data-i18n")); });
    $("lang").value = lang;
    $("pause").textContent = paused ? t("resume") : t("pause");
    setConn(connState);
    if (info) { showHint(); }
    renderAll();
    if (selected !== null && records.has(selected)) { showDetail(records.get(selected)); }
  }

  function showHint() {
    $("hint").textContent = t("hint", { url: info.hooks_url }) + (info.forward_to ? t("forwarding", { url: info.forward_to }) : "");
  }

  function setConn(state) {
    connState = state;
    $("conn").setAttribute("data-state", state);
    $("conn-text").textContent = t(state);
  }

  function bodyText(r) {
    if (typeof r.body === "string") { return r.body; }
    if (typeof r.body_base64 === "string") { return "(base64) " + r.body_base64; }
    return "";
  }

  function pretty(r) {
    var s = bodyText(r);
    try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { return s; }
  }

  function shellQuote(s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; }

  function curlOf(r) {
    var url = location.origin + r.path + (r.query ? "?" + r.query : "");
    var parts = ["curl -X " + r.method + " " + shellQuote(url)];
    var skip = { "Content-Length": 1, "Host": 1, "Connection": 1, "Accept-Encoding": 1, "User-Agent": 1 };
    Object.keys(r.headers || {}).sort().forEach(function (k) {
      if (skip[k]) { return; }
      (r.headers[k] || []).forEach(function (v) { parts.push("-H " + shellQuote(k + ": " + v)); });
    });
    if (typeof r.body === "string" && r.body.length) { parts.push("--data-binary " + shellQuote(r.body)); }
    return parts.join(" \\\n  ");
  }

  function fmtTime(r) {
    // received_at has microseconds; show milliseconds, local time.
    var d = new Date(r.received_at);
    if (isNaN(d)) { return r.received_at; }
    var pad = function (n, w) { return String(n).padStart(w || 2, "0"); };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }

  function matches(r) {
    var ch = $("f-channel").value.trim(), st = $("f-state").value, vd = $("f-verdict").value;
    return (!ch || r.channel === ch) && (!st || r.state === st) && (!vd || r.verdict === vd);
  }

  function rowOf(r) {
    var tr = el("tr");
    tr.setAttribute("data-id", r.id);
    tr.appendChild(el("td", "time", fmtTime(r)));
    tr.appendChild(el("td", "channel", r.channel));
    var st = el("td");
    st.appendChild(el("span", "badge state-" + (/^[A-Z]+$/.test(r.state || "") ? r.state : "none"), r.state || "—"));
    tr.appendChild(st);
    var vd = el("td");
    vd.appendChild(el("span", "verdict verdict-" + r.verdict, r.verdict));
    if (r.duplicate) { vd.appendChild(el("span", "dup", t("duplicate"))); }
    if (r.reason) { vd.title = r.reason; }
    tr.appendChild(vd);
    tr.appendChild(el("td", "ids event", r.event_id || ""));
    tr.appendChild(el("td", "ids signature", r.signature_id || ""));
    tr.appendChild(el("td", "delay", typeof r.delay_ms === "number" ? Math.round(r.delay_ms) + " ms" : ""));
    var an = el("td", "answer");
    an.appendChild(el("span", "status status-" + String(r.answer_status || 0).charAt(0) + "xx", r.answer_status || ""));
    if (r.forward) {
      var f = el("span", "fwd" + (r.forward.error ? " fwd-failed" : ""),
        t("endpoint") + " " + (r.forward.status || t("noanswer")) + " · " + Math.round(r.forward.latency_ms) + " ms");
      if (r.forward.error) { f.title = r.forward.error; }
      an.appendChild(f);
    }
    tr.appendChild(an);
    if (r.id === selected) { tr.classList.add("selected"); }
    return tr;
  }

  function renderAll() {
    var tbody = $("rows");
    var frag = document.createDocumentFragment();
    var shown = 0;
    order.forEach(function (id) {
      var r = records.get(id);
      if (r && matches(r)) { frag.appendChild(rowOf(r)); shown++; }
    });
    tbody.replaceChildren(frag);
    updateCounts(shown);
  }

  function updateCounts(shown) {
    if (shown === undefined) { shown = $("rows").children.length; }
    var s = t("shown", { n: shown });
    if (paused && waiting.length) { s += " · " + t("paused", { n: waiting.length }); }
    $("counts").textContent = s;
    $("empty").hidden = order.length > 0;
  }

  function add(r, live) {
    if (records.has(r.id)) { return; }
    records.set(r.id, r);
    if (r.id > lastId) { lastId = r.id; }
    order.unshift(r.id);
    order.sort(function (a, b) { return b - a; });
    while (order.length > MAX_ROWS) { records.delete(order.pop()); }
    if (!matches(r)) { updateCounts(); return; }
    var tr = rowOf(r);
    if (live) { tr.classList.add("fresh"); }
    var tbody = $("rows");
    var after = null;
    for (var i = 0; i < tbody.children.length; i++) {
      if (Number(tbody.children[i].getAttribute("data-id")) < r.id) { after = tbody.children[i]; break; }
    }
    tbody.insertBefore(tr, after);
    while (tbody.children.length > MAX_ROWS) { tbody.removeChild(tbody.lastChild); }
    updateCounts();
  }

  function receive(r) {
    if (r.id > lastId) { lastId = r.id; }
    if (paused) { waiting.push(r); updateCounts(); return; }
    add(r, true);
  }

  function showDetail(r) {
    selected = r.id;
    $("detail").hidden = false;
    $("d-id").textContent = "#" + r.id;
    $("d-summary").textContent = [r.method + " " + r.path + (r.query ? "?" + r.query : ""), r.size + " " + t("size"),
      t("verdictOf") + ": " + r.verdict + (r.reason ? " (" + r.reason + ")" : ""), r.remote_addr].join(" · ");
    var h = Object.keys(r.headers || {}).sort().map(function (k) { return k + ": " + (r.headers[k] || []).join(", "); }).join("\n");
    $("d-headers").textContent = h;
    var f = r.forward;
    $("d-forward").hidden = !f;
    if (f) {
      $("d-forward-summary").textContent = ["POST " + f.url,
        f.status ? t("answered", { status: f.status, ms: f.latency_ms }) : t("noanswer") + " (" + f.latency_ms + " ms)",
        t("answeredUs", { status: r.answer_status })].join(" · ");
      $("d-forward-error").textContent = f.error || "";
      $("d-forward-error").hidden = !f.error;
      $("d-forward-body").textContent = f.body + (f.body_truncated ? "…" : "");
    }
    $("d-body").textContent = pretty(r);
    $("d-curl").textContent = curlOf(r);
    document.querySelectorAll("#rows tr.selected").forEach(function (e) { e.classList.remove("selected"); });
    var tr = document.querySelector('#rows tr[data-id="' + r.id + '"]');
    if (tr) { tr.classList.add("selected"); }
  }

  function copy(text, button) {
    var done = function () { var old = button.textContent; button.textContent = t("copied"); setTimeout(function () { button.textContent = old; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else { fallbackCopy(text); done(); }
  }
  function fallbackCopy(text) {
    var ta = el("textarea"); ta.value = text; document.body.appendChild(ta); ta.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    ta.remove();
  }

  function connect() {
    setConn("connecting");
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/api/stream?after=" + lastId);
    ws.onopen = function () { backoff = 500; setConn("open"); };
    ws.onmessage = function (ev) {
      var r;
      try { r = JSON.parse(ev.data); } catch (e) { return; }
      receive(r);
    };
    ws.onclose = function () {
      setConn("closed");
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 5000);
    };
  }

  function loadInitial() {
    return fetch("/api/events?limit=200").then(function (res) {
      if (!res.ok) { throw new Error("HTTP " + res.status); }
      return res.json();
    }).then(function (data) {
      (data.events || []).slice().reverse().forEach(function (r) { add(r, false); });
    }).catch(function () { /* the stream sends the backlog anyway */ });
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("lang").addEventListener("change", function () { lang = this.value; localStorage.setItem("firmakit.lang", lang); applyLang(); });
    $("pause").addEventListener("click", function () {
      paused = !paused;
      this.textContent = paused ? t("resume") : t("pause");
      if (!paused) { var w = waiting; waiting = []; w.forEach(function (r) { add(r, true); }); }
      updateCounts();
    });
    ["f-channel", "f-state", "f-verdict"].forEach(function (id) { $(id).addEventListener("input", renderAll); });
    $("rows").addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr");
      if (tr) { var r = records.get(Number(tr.getAttribute("data-id"))); if (r) { showDetail(r); } }
    });
    $("close-detail").addEventListener("click", function () { $("detail").hidden = true; selected = null; renderAll(); });
    $("copy-curl").addEventListener("click", function () { if (records.has(selected)) { copy(curlOf(records.get(selected)), this); } });
    document.querySelectorAll("[data-demo]").forEach(function (b) {
      b.addEventListener("click", function () {
        fetch("/api/demo", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ state: b.getAttribute("data-demo") }) });
      });
    });
    fetch("/api/info").then(function (r) { return r.json(); }).then(function (i) {
      info = i;
      showHint();
      $("demo").hidden = !i.demo;
    }).catch(function () {});
    applyLang();
    loadInitial().then(connect);
  });
})();
