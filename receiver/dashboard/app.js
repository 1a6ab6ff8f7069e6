// firmakit receiver dashboard. Every value that came in a notification (or
// in a request to the reference server) is untrusted: it is only ever put
// in the page as text (textContent) or an attribute, never as HTML.
//
// The list is virtual: records of the current filter are loaded page by
// page from the server (newest first), rows have a fixed height, and only
// the rows in view are in the page. Records from the stream are added once
// per animation frame, however fast they come.
(function () {
  "use strict";

  var T = {
    es: {
      subtitle: "notificaciones de firma", connecting: "conectando…", open: "en vivo", closed: "desconectado, reintentando…",
      pause: "Pausar", resume: "Reanudar", channel: "Canal", state: "Estado", check: "Firma del aviso",
      allStates: "todos", allChecks: "todas", search: "Texto en el cuerpo", clearFilter: "Quitar filtro",
      channelPrefixTip: "Canales que empiezan por este texto",
      c_valid: "válida", c_invalid: "inválida", c_missing: "ausente", c_unverified: "sin verificar",
      ct_valid: "La firma HMAC del aviso (X-Service-Signature) coincide con un secreto del canal",
      ct_invalid: "La firma HMAC del aviso no coincide, está mal formada o su hora está fuera de tolerancia",
      ct_missing: "El aviso llegó sin cabecera de firma", ct_unverified: "El receptor no conoce un secreto para este canal",
      s_CREATED: "creado", s_BOUNCED: "rebotado", s_REJECTED: "rechazado", s_CANCELED: "cancelado", s_SIGNED: "firmado",
      received: "Recibida", delay: "Demora", attempt: "Intento", answer: "Respuesta", record: "Registro",
      copycurl: "Copiar como curl", copied: "¡Copiado!", close: "Cerrar",
      headers: "Cabeceras", body: "Cuerpo", empty: "Aún no llegan notificaciones. Envíalas a la URL de arriba.",
      noMatch: "Ningún registro coincide con el filtro.",
      demo: "Crear contrato demo:", demoCreated: "Contrato {state} creado: {id}", demoFailed: "No se pudo crear: {msg}",
      counts: "{total} registros · {n} cargados", countsMatch: "{total} coinciden · {n} cargados", paused: "{n} en espera",
      more: "Desplázate para cargar registros más antiguos", loading: "Cargando…", loadFailed: "No se pudo cargar: {msg}",
      hint: "Envía notificaciones a {url}", size: "bytes", checkOf: "firma del aviso", verifiedBy: "verificada con {key}",
      forwarded: "Reenviada a tu endpoint", forwarding: "; cada una se reenvía a {url}",
      endpoint: "endpoint", noanswer: "sin respuesta", answered: "respondió {status} en {ms} ms", answeredUs: "se respondió {status} al servicio",
      attemptOf: "intento {k} de {n}", retry: "reintento", attempts: "Intentos de este evento",
      attemptLine: "#{id} · {time} · respuesta {status} · firma {check}", attemptsMore: "…y {n} más",
      noEventId: "Sin event_id: no se puede agrupar con otros intentos.",
      whatReceiverDid: "Qué respondió el receptor",
      ans200: "200: aceptada.", ans401: "401: rechazada en modo estricto porque la firma del aviso no es válida.",
      ans413: "413: cuerpo mayor que el máximo; se guardó sin el cuerpo.",
      ansForward: "{status}: lo que respondió tu endpoint (o el error de reenvío).",
      ansOther: "{status}: una respuesta programada (Respuestas programadas) o un error del receptor.",
      delayIn: "{ms} ms desde la creación del contrato: dentro de la ventana de 300–1500 ms",
      delayOut: "{ms} ms desde la creación del contrato: fuera de la ventana de 300–1500 ms",
      delayNoSig: "Sin demora: el aviso no trae signature_id.",
      delayNoContract: "Sin demora: el receptor no sabe cuándo se creó este contrato (POST /api/contracts o firmakit up).",
      delayBadTime: "Sin demora: la hora de creación conocida no es legible ({v}).",
      replay: "Reenviar este registro", replayGo: "Reenviar", replaying: "Reenviando…",
      replayDone: "Respondió {status} en {ms} ms", replayFailed: "Falló: {msg}",
      exportJsonl: "Exportar JSONL", exportHar: "Exportar HAR", exportTip: "Descarga los registros que coinciden con el filtro",
      clearAll: "Borrar todo", clearQuestion: "¿Borrar los {n} registros guardados?", clearYes: "Sí, borrar", cancel: "Cancelar",
      cleared: "{n} registros borrados", failed: "Error: {msg}",
      answersTitle: "Respuestas programadas", answersHelp: "El receptor responderá así a las próximas notificaciones del canal:",
      status: "Estado HTTP", delayField: "Espera", count: "Veces", countTip: "0: hasta quitarla",
      answerSet: "Programar", answerClear: "Quitar las del canal", answersNone: "Ninguna respuesta programada en {ch}.",
      answerRule: "{status}{delay} · {left}", answerLeft: "quedan {n}", answerUntil: "hasta quitarla", answerSig: " (solo {id})",
      bodyDropped: "El cuerpo no se guardó (mayor que el máximo del receptor).",
      curlNoBody: "# el cuerpo no se guardó (mayor que el máximo del receptor): esta línea no lo envía",
      tabEvents: "Notificaciones", tabRequests: "Peticiones recibidas",
      method: "Método", target: "Destino", rverdict: "Resultado", message: "Mensaje", request: "Petición",
      rv_accepted: "aceptada", rv_refused: "rechazada", rv_not_checked: "sin comprobar",
      rEmpty: "Aún no llegan peticiones al servidor de referencia.", rCounts: "{total} peticiones · {n} mostradas",
      cause: "Causa", stringToSign: "Cadena firmada por el servidor",
      noDiag: "Sin diagnóstico: solo las peticiones rechazadas lo tienen, con --explain.",
      f_cause_code: "código", f_string_to_sign_bytes: "bytes de la cadena", f_body_bytes: "bytes del cuerpo",
      f_body_sha256: "SHA-256 del cuerpo", f_server_time: "hora del servidor", f_timestamp: "timestamp enviado",
      f_clock_difference_seconds: "diferencia de reloj (s)", f_method: "método", f_target: "destino",
      f_body_note: "sobre el cuerpo", f_target_escaped: "destino, bytes exactos", f_string_to_sign_note: "sobre la cadena", missingHeader: "(falta)"
    },
    en: {
      subtitle: "signature notifications", connecting: "connecting…", open: "live", closed: "disconnected, retrying…",
      pause: "Pause", resume: "Resume", channel: "Channel", state: "State", check: "Webhook signature",
      allStates: "all", allChecks: "all", search: "Text in the body", clearFilter: "Clear filter",
      channelPrefixTip: "Channels that start with this text",
      c_valid: "valid", c_invalid: "invalid", c_missing: "missing", c_unverified: "unverified",
      ct_valid: "The notification's HMAC signature (X-Service-Signature) matches a secret of the channel",
      ct_invalid: "The notification's HMAC signature does not match, is malformed or its time is out of tolerance",
      ct_missing: "The notification came with no signature header", ct_unverified: "The receiver knows no secret for this channel",
      s_CREATED: "created", s_BOUNCED: "bounced", s_REJECTED: "rejected", s_CANCELED: "canceled", s_SIGNED: "signed",
      received: "Received", delay: "Delay", attempt: "Attempt", answer: "Answer", record: "Record",
      copycurl: "Copy as curl", copied: "Copied!", close: "Close",
      headers: "Headers", body: "Body", empty: "No notification yet. Send them to the URL above.",
      noMatch: "No record matches the filter.",
      demo: "Create demo contract:", demoCreated: "{state} contract created: {id}", demoFailed: "Could not create it: {msg}",
      counts: "{total} records · {n} loaded", countsMatch: "{total} match · {n} loaded", paused: "{n} waiting",
      more: "Scroll to load older records", loading: "Loading…", loadFailed: "Could not load: {msg}",
      hint: "Send notifications to {url}", size: "bytes", checkOf: "webhook signature check", verifiedBy: "verified with {key}",
      forwarded: "Forwarded to your endpoint", forwarding: "; each is forwarded to {url}",
      endpoint: "endpoint", noanswer: "no answer", answered: "answered {status} in {ms} ms", answeredUs: "the service was answered {status}",
      attemptOf: "attempt {k} of {n}", retry: "retry", attempts: "Attempts of this event",
      attemptLine: "#{id} · {time} · answered {status} · signature {check}", attemptsMore: "…and {n} more",
      noEventId: "No event_id: it cannot be grouped with other attempts.",
      whatReceiverDid: "What the receiver answered",
      ans200: "200: accepted.", ans401: "401: refused in strict mode because the webhook signature is not valid.",
      ans413: "413: body over the maximum; recorded without the body.",
      ansForward: "{status}: what your endpoint answered (or the forwarding error).",
      ansOther: "{status}: a programmed answer (Programmed answers) or a receiver error.",
      delayIn: "{ms} ms since the contract was created: within the 300–1500 ms window",
      delayOut: "{ms} ms since the contract was created: outside the 300–1500 ms window",
      delayNoSig: "No delay: the notification has no signature_id.",
      delayNoContract: "No delay: the receiver does not know when this contract was created (POST /api/contracts or firmakit up).",
      delayBadTime: "No delay: the known creation time cannot be read ({v}).",
      replay: "Replay this record", replayGo: "Replay", replaying: "Replaying…",
      replayDone: "Answered {status} in {ms} ms", replayFailed: "Failed: {msg}",
      exportJsonl: "Export JSONL", exportHar: "Export HAR", exportTip: "Downloads the records that match the filter",
      clearAll: "Clear all", clearQuestion: "Delete the {n} stored records?", clearYes: "Yes, delete", cancel: "Cancel",
      cleared: "{n} records deleted", failed: "Error: {msg}",
      answersTitle: "Programmed answers", answersHelp: "The receiver will answer the channel's next notifications so:",
      status: "HTTP status", delayField: "Delay", count: "Times", countTip: "0: until cleared",
      answerSet: "Program", answerClear: "Clear the channel's", answersNone: "No programmed answer on {ch}.",
      answerRule: "{status}{delay} · {left}", answerLeft: "{n} left", answerUntil: "until cleared", answerSig: " (only {id})",
      bodyDropped: "The body was not kept (over the receiver's maximum).",
      curlNoBody: "# the body was not kept (over the receiver's maximum): this line does not send it",
      tabEvents: "Notifications", tabRequests: "Requests received",
      method: "Method", target: "Target", rverdict: "Result", message: "Message", request: "Request",
      rv_accepted: "accepted", rv_refused: "refused", rv_not_checked: "not checked",
      rEmpty: "No request has reached the reference server yet.", rCounts: "{total} requests · {n} shown",
      cause: "Cause", stringToSign: "String the server signed",
      noDiag: "No diagnostic: only refused requests have one, with --explain.",
      f_cause_code: "code", f_string_to_sign_bytes: "string bytes", f_body_bytes: "body bytes",
      f_body_sha256: "body SHA-256", f_server_time: "server time", f_timestamp: "timestamp sent",
      f_clock_difference_seconds: "clock difference (s)", f_method: "method", f_target: "target",
      f_body_note: "about the body", f_target_escaped: "target, exact bytes", f_string_to_sign_note: "about the string", missingHeader: "(missing)"
    }
  };
  var PAGE = 100;          // records a page of the list asks for
  var KEEP = 5000;         // records held in the browser at most
  var OVERSCAN = 6;        // rows rendered beyond each edge of the view
  var WINDOW_MIN = 300, WINDOW_MAX = 1500; // the suite's window for a notification, in ms after the 201
  var REQ_KEEP = 500;      // requests of the reference shown at most
  var FILTERS = [["channel_prefix", "f-channel"], ["state", "f-state"], ["check", "f-check"],
    ["signature_id", "f-signature"], ["event_id", "f-event"], ["q", "f-q"]];
  var CHECKS = ["valid", "invalid", "missing", "unverified"];

  var lang = localStorage.getItem("firmakit.lang") || ((navigator.language || "es").slice(0, 2) === "en" ? "en" : "es");
  var filter = {};          // the active filter, as in the URL's hash
  var list = [];            // loaded records of the filter, newest first
  var byId = new Map();     // id -> record, for the loaded ones
  var groups = new Map();   // event_id -> loaded ids, ascending
  var total = 0;            // records matching the filter on the server
  var hasOlder = false, loadingOlder = false, loaded = false, loadError = "";
  var gen = 0;              // bumps on each filter change: late answers of the old one are dropped
  var lastId = 0;           // greatest id this filter's stream has sent
  var incoming = [];        // arrived, to be added on the next frame
  var waiting = [];         // held back by pause
  var paused = false;
  var frame = 0;
  var pool = new Map();     // id -> its row, for the rows in the page
  var fresh = new Set();    // ids that arrived live, not yet drawn
  var selected = null;
  var ws = null, backoff = 500, connState = "connecting", info = null;

  function $(id) { return document.getElementById(id); }
  function t(key, vars) {
    var s = (T[lang] && T[lang][key]) || T.en[key] || key;
    if (vars) { Object.keys(vars).forEach(function (k) { s = s.split("{" + k + "}").join(String(vars[k])); }); }
    return s;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function str(v) { return v === undefined || v === null ? "" : String(v); }
  // rowHeight is the CSS row height (it changes with the width: rows
  // become cards), read again only on resize.
  var rowH = 0;
  function rowHeight() {
    if (!rowH) { rowH = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--row")) || 34; }
    return rowH;
  }

  // token is the one the page was opened with (?token=). The page sends
  // it with each of its own calls, as a Bearer header, or in the URL where
  // a browser sends no header (websockets, downloads); it is never kept in
  // a cookie, which a browser would send to every port of the host.
  var token = new URLSearchParams(location.search).get("token") || "";
  function withToken(url) {
    return token ? url + (url.indexOf("?") < 0 ? "?" : "&") + "token=" + encodeURIComponent(token) : url;
  }

  // api calls the receiver and resolves to {ok, status, data}; data.error
  // is the receiver's message when it refused.
  function api(method, url, body) {
    var opts = { method: method, headers: {} };
    if (token) { opts.headers.Authorization = "Bearer " + token; }
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    return fetch(url, opts).then(function (res) {
      return res.text().then(function (txt) {
        var data = {};
        try { data = txt ? JSON.parse(txt) : {}; } catch (e) { data = { error: txt.slice(0, 300) }; }
        return { ok: res.ok, status: res.status, data: data || {} };
      });
    }).catch(function (e) { return { ok: false, status: 0, data: { error: String(e && e.message || e) } }; });
  }
  function errorOf(res) { return str(res.data.error) || ("HTTP " + res.status); }

  function say(node, text, bad) {
    node.textContent = text;
    node.classList.toggle("error", !!bad);
  }

  // ----- language -----

  function applyLang() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-i18n]").forEach(function (e) { e.textContent = t(e.getAttribute("data-i18n")); });
    document.querySelectorAll("[data-i18n-title]").forEach(function (e) { e.title = t(e.getAttribute("data-i18n-title")); });
    document.querySelectorAll("[data-i18n-label]").forEach(function (e) { e.setAttribute("aria-label", t(e.getAttribute("data-i18n-label"))); });
    ["export-jsonl", "export-har"].forEach(function (id) { $(id).title = t("exportTip"); });
    document.querySelectorAll("#f-state option[value]").forEach(function (o) { if (o.value) { o.title = t("s_" + o.value); } });
    $("lang").value = lang;
    $("pause").textContent = paused ? t("resume") : t("pause");
    setConn(connState);
    if (info) { showHint(); }
    pool.forEach(function (tr) { tr.remove(); });
    pool.clear();
    render();
    if (selected !== null && byId.has(selected)) { fillDetail(byId.get(selected)); loadAttempts(byId.get(selected)); }
    renderRequests(true);
    if (!$("clear-confirm").hidden) { askClear(); }
    if (!$("answers").hidden) { loadRules(); }
    if (reqSelected !== null && reqById.has(reqSelected)) { fillRequest(reqById.get(reqSelected)); }
  }

  function showHint() {
    $("hint").textContent = t("hint", { url: info.hooks_url }) + (info.forward_to ? t("forwarding", { url: info.forward_to }) : "");
  }

  function setConn(state) {
    connState = state;
    $("conn").setAttribute("data-state", state);
    $("conn-text").textContent = t(state);
  }

  // ----- bodies and curl -----

  function bodyBytes(r) {
    if (typeof r.body_base64 === "string") {
      var bin = atob(r.body_base64), out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
      return out;
    }
    return new TextEncoder().encode(str(r.body));
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

  // printfFormat writes bytes as a printf format that prints exactly them:
  // printable ASCII as itself, every other byte (and %, \ and ') as a
  // three-digit octal escape, which POSIX printf reads in its format.
  function printfFormat(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) {
      var b = bytes[i];
      if (b >= 0x20 && b < 0x7f && b !== 0x25 && b !== 0x5c && b !== 0x27) { s += String.fromCharCode(b); } else { s += "\\" + ("00" + b.toString(8)).slice(-3); }
    }
    return "'" + s + "'";
  }

  // curlOf is a shell command that sends the record again. A body that is
  // not UTF-8 (or holds a NUL, which no shell argument can) is piped in
  // from printf, byte for byte; a body that was not kept is said so.
  function curlOf(r) {
    var url = location.origin + r.path + (r.query ? "?" + r.query : "");
    var parts = ["curl -X " + r.method + " " + shellQuote(url)];
    var skip = { "Content-Length": 1, "Host": 1, "Connection": 1, "Accept-Encoding": 1, "User-Agent": 1 };
    Object.keys(r.headers || {}).sort().forEach(function (k) {
      if (skip[k]) { return; }
      (r.headers[k] || []).forEach(function (v) { parts.push("-H " + shellQuote(k + ": " + v)); });
    });
    var prefix = "";
    if (r.body_dropped) {
      prefix = t("curlNoBody") + "\n";
    } else if (typeof r.body === "string" && r.body.length && r.body.indexOf("\u0000") < 0) {
      parts.push("--data-binary " + shellQuote(r.body));
    } else if (typeof r.body_base64 === "string" || (typeof r.body === "string" && r.body.length)) {
      prefix = "printf " + printfFormat(bodyBytes(r)) + " | ";
      parts.push("--data-binary @-");
    }
    return prefix + parts.join(" \\\n  ");
  }

  // ----- cells -----

  function fmtTime(iso) {
    // received_at has microseconds; show milliseconds, local time.
    var d = new Date(iso);
    if (!iso || isNaN(d)) { return str(iso); }
    var pad = function (n, w) { return String(n).padStart(w || 2, "0"); };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }

  function checkLabel(v) { return CHECKS.indexOf(v) >= 0 ? t("c_" + v) : str(v); }

  function delayOf(r) {
    if (typeof r.delay_ms === "number") {
      var ms = Math.round(r.delay_ms), inWindow = ms >= WINDOW_MIN && ms <= WINDOW_MAX;
      return { text: ms + " ms", cls: inWindow ? "delay-in" : "delay-out", tip: t(inWindow ? "delayIn" : "delayOut", { ms: ms }) };
    }
    var why = r.contract_created_at ? t("delayBadTime", { v: r.contract_created_at }) : (r.signature_id ? t("delayNoContract") : t("delayNoSig"));
    return { text: "—", cls: "delay-unknown", tip: why };
  }

  function attemptOf(r) {
    var g = r.event_id ? groups.get(r.event_id) : null;
    if (g && g.length > 1) { return { text: t("attemptOf", { k: g.indexOf(r.id) + 1, n: g.length }), first: g[0] === r.id && !r.duplicate }; }
    if (r.duplicate) { return { text: t("retry"), first: false }; }
    return null;
  }

  function answerCell(td, r) {
    var code = Number(r.answer_status) || 0;
    td.appendChild(el("span", "status status-" + String(code).charAt(0) + "xx", code || ""));
    if (r.forward) {
      var f = el("span", "fwd" + (r.forward.error ? " fwd-failed" : ""),
        t("endpoint") + " " + (r.forward.status || t("noanswer")) + " · " + Math.round(Number(r.forward.latency_ms) || 0) + " ms");
      if (r.forward.error) { f.title = str(r.forward.error); }
      td.appendChild(f);
    }
  }

  function rowOf(r) {
    var tr = el("tr");
    tr.setAttribute("data-id", r.id);
    tr.tabIndex = 0;
    var cell = function (cls, text, title) {
      var td = el("td", cls, text);
      if (title) { td.title = title; }
      tr.appendChild(td);
      return td;
    };
    cell("time", fmtTime(r.received_at), r.received_at);
    cell("channel", r.channel, r.channel);
    var state = /^[A-Z]+$/.test(str(r.state)) ? r.state : "none";
    var st = cell("state", null, r.state ? t("s_" + r.state) : "");
    st.appendChild(el("span", "badge state-" + state, r.state || "—"));
    var ck = cell("check-cell", null, (r.reason ? r.reason + " · " : "") + (CHECKS.indexOf(r.check) >= 0 ? t("ct_" + r.check) : ""));
    ck.appendChild(el("span", "check check-" + (CHECKS.indexOf(r.check) >= 0 ? r.check : "unverified"), checkLabel(r.check)));
    var at = attemptOf(r), ac = cell("attempt-cell");
    if (at) { ac.appendChild(el("span", "attempt" + (at.first ? " first" : ""), at.text)); ac.title = at.text; }
    cell("ids event", r.event_id || "", r.event_id);
    cell("ids signature", r.signature_id || "", r.signature_id);
    var d = delayOf(r);
    cell("delay " + d.cls, d.text, d.tip);
    answerCell(cell("answer"), r);
    if (r.id === selected) { tr.classList.add("selected"); }
    if (fresh.has(r.id)) { tr.classList.add("fresh"); fresh.delete(r.id); }
    return tr;
  }

  // ----- the list -----

  function filterQuery(f) {
    var p = new URLSearchParams();
    FILTERS.forEach(function (kv) { if (f[kv[0]]) { p.set(kv[0], f[kv[0]]); } });
    return p.toString();
  }
  function filterActive() { return filterQuery(filter) !== ""; }

  function filterFromHash() {
    var p = new URLSearchParams(location.hash.slice(1)), f = {};
    FILTERS.forEach(function (kv) {
      // A link made before the check took its name says verdict=.
      var v = p.get(kv[0]) || (kv[0] === "check" && p.get("verdict")) || "", input = $(kv[1]);
      input.value = v;
      // A value a select does not offer (a typo in a shared link) is
      // left out rather than searched for and shown as a blank choice.
      if (input.tagName === "SELECT" && input.value !== v) { input.value = ""; v = ""; }
      if (v) { f[kv[0]] = v; }
    });
    return f;
  }

  function filterFromInputs() {
    var f = {};
    FILTERS.forEach(function (kv) {
      var v = $(kv[1]).value;
      if (kv[0] !== "q") { v = v.trim(); }
      if (v) { f[kv[0]] = v; }
    });
    return f;
  }

  // setFilter makes f the filter: a new entry in the history (so the back
  // button returns to the previous filter), then the list from the server.
  function setFilter(f) {
    var q = filterQuery(f);
    if (q === filterQuery(filter)) { return; }
    history.pushState(null, "", q ? "#" + q : location.pathname + location.search);
    filter = f;
    reload();
  }

  function noteGroup(r) {
    if (!r.event_id) { return; }
    var g = groups.get(r.event_id);
    if (!g) { groups.set(r.event_id, [r.id]); return; }
    g.push(r.id);
    g.sort(function (a, b) { return a - b; });
    g.forEach(function (id) { var tr = pool.get(id); if (tr && id !== r.id) { tr.remove(); pool.delete(id); } });
  }
  function forgetGroup(r) {
    var g = r.event_id && groups.get(r.event_id);
    if (!g) { return; }
    g.splice(g.indexOf(r.id), 1);
    if (!g.length) { groups.delete(r.event_id); }
  }

  function fetchPage(extra) {
    var q = filterQuery(filter);
    return api("GET", "/api/events?limit=" + PAGE + (q ? "&" + q : "") + extra).then(function (res) {
      if (!res.ok) { throw new Error(errorOf(res)); }
      return res.data;
    });
  }

  function append(recs) {
    (recs || []).forEach(function (r) {
      if (byId.has(r.id)) { return; }
      list.push(r);
      byId.set(r.id, r);
      noteGroup(r);
    });
  }

  function reload() {
    gen++;
    var g = gen;
    if (ws) { ws.onclose = null; ws.onmessage = null; ws.close(); ws = null; }
    pool.forEach(function (tr) { tr.remove(); });
    list = []; byId.clear(); groups.clear(); pool.clear(); fresh.clear();
    incoming = []; waiting = []; total = 0; hasOlder = false; loadingOlder = false; loaded = false; loadError = ""; lastId = 0;
    $("scroller").scrollTop = 0;
    updateExports();
    render();
    fetchPage("").then(function (data) {
      if (g !== gen) { return; }
      total = Number(data.total) || 0;
      append(data.events);
      hasOlder = !!data.next;
      lastId = list.length ? list[0].id : 0;
      loaded = true;
      render();
      connect(g);
    }, function (err) {
      if (g !== gen) { return; }
      loadError = err.message;
      setConn("closed");
      render();
      setTimeout(function () { if (g === gen) { reload(); } }, backoff);
      backoff = Math.min(backoff * 2, 5000);
    });
  }

  function loadOlder() {
    if (!hasOlder || loadingOlder || !list.length) { return; }
    loadingOlder = true;
    var g = gen;
    fetchPage("&before=" + list[list.length - 1].id).then(function (data) {
      if (g !== gen) { return; }
      loadingOlder = false;
      append(data.events);
      hasOlder = !!data.next;
      schedule();
    }, function (err) {
      if (g !== gen) { return; }
      loadingOlder = false;
      loadError = err.message;
      schedule();
    });
  }

  // prepend adds records that arrived (newer than every loaded one, as the
  // stream starts after the newest); the view stays where the reader is.
  function prepend(recs, live) {
    var added = [];
    recs.forEach(function (r) { if (!byId.has(r.id)) { byId.set(r.id, r); added.push(r); } });
    if (!added.length) { return; }
    added.sort(function (a, b) { return b.id - a.id; });
    var oldTop = list.length ? list[0].id : 0;
    list = added.concat(list);
    if (added[added.length - 1].id < oldTop) { list.sort(function (a, b) { return b.id - a.id; }); }
    added.slice().reverse().forEach(function (r) { noteGroup(r); if (live && added.length <= 2) { fresh.add(r.id); } });
    total += added.length;
    var sc = $("scroller");
    if (sc.scrollTop > 0) { sc.scrollTop += added.length * rowHeight(); }
  }

  function trim(lastShown) {
    if (list.length <= KEEP || lastShown > KEEP - PAGE) { return; }
    list.splice(KEEP).forEach(function (r) {
      byId.delete(r.id);
      forgetGroup(r);
      var tr = pool.get(r.id);
      if (tr) { tr.remove(); pool.delete(r.id); }
    });
    hasOlder = true;
  }

  function schedule() { if (!frame) { frame = requestAnimationFrame(flush); } }

  function flush() {
    frame = 0;
    if (incoming.length) {
      var batch = incoming;
      incoming = [];
      if (paused) { waiting = waiting.concat(batch); } else { prepend(batch, true); }
      rulesUsed(batch);
    }
    render();
  }

  function render() {
    var tbody = $("rows"), sc = $("scroller"), h = rowHeight(), n = list.length;
    tbody.style.height = (n * h) + "px";
    var rowsTop = tbody.getBoundingClientRect().top - sc.getBoundingClientRect().top + sc.scrollTop;
    var viewTop = sc.scrollTop - rowsTop;
    var first = Math.max(0, Math.floor(viewTop / h) - OVERSCAN);
    var last = Math.min(n, Math.ceil((viewTop + sc.clientHeight) / h) + OVERSCAN);
    if (first > last) { first = last; }
    var want = new Set();
    for (var i = first; i < last; i++) { want.add(list[i].id); }
    pool.forEach(function (tr, id) { if (!want.has(id)) { tr.remove(); pool.delete(id); } });
    var cursor = tbody.firstChild;
    for (var j = first; j < last; j++) {
      var r = list[j], tr = pool.get(r.id);
      if (!tr) { tr = rowOf(r); pool.set(r.id, tr); }
      var y = j * h;
      if (tr.fkY !== y) { tr.style.transform = "translateY(" + y + "px)"; tr.fkY = y; }
      if (tr === cursor) { cursor = cursor.nextSibling; } else { tbody.insertBefore(tr, cursor); }
    }
    if (hasOlder && last >= n - OVERSCAN) { loadOlder(); }
    trim(last);
    updateCounts();
  }

  function updateCounts() {
    var s = t(filterActive() ? "countsMatch" : "counts", { total: total, n: list.length });
    if (paused && waiting.length) { s += " · " + t("paused", { n: waiting.length }); }
    $("counts").textContent = s;
    var empty = $("empty");
    empty.hidden = !loaded || list.length > 0 || !!loadError;
    empty.textContent = filterActive() ? t("noMatch") : t("empty");
    var more = $("more");
    more.hidden = !(hasOlder || loadError);
    say(more, loadError ? t("loadFailed", { msg: loadError }) : (loadingOlder ? t("loading") : t("more")), !!loadError);
  }

  function updateExports() {
    var q = filterQuery(filter);
    $("export-jsonl").href = withToken("/api/events/export?format=jsonl" + (q ? "&" + q : ""));
    $("export-har").href = withToken("/api/events/export?format=har" + (q ? "&" + q : ""));
  }

  function connect(g) {
    setConn("connecting");
    var proto = location.protocol === "https:" ? "wss:" : "ws:", q = filterQuery(filter);
    var sock = new WebSocket(withToken(proto + "//" + location.host + "/api/stream?after=" + lastId + (q ? "&" + q : "")));
    ws = sock;
    sock.onopen = function () { if (g === gen) { backoff = 500; setConn("open"); } };
    sock.onmessage = function (ev) {
      if (g !== gen) { return; }
      var r;
      try { r = JSON.parse(ev.data); } catch (e) { return; }
      if (!r || typeof r.id !== "number") { return; }
      if (r.id > lastId) { lastId = r.id; }
      incoming.push(r);
      schedule();
    };
    sock.onclose = function () {
      if (g !== gen) { return; }
      ws = null;
      setConn("closed");
      setTimeout(function () { if (g === gen) { connect(g); } }, backoff);
      backoff = Math.min(backoff * 2, 5000);
    };
  }

  // ----- the detail -----

  var opener = null; // the row id (or request id) to give focus back to

  function openOverlay(id) {
    $("backdrop").hidden = false;
    $(id).hidden = false;
  }

  function showDetail(r) {
    selected = r.id;
    opener = r.id;
    document.querySelectorAll("#rows tr.selected").forEach(function (e) { e.classList.remove("selected"); });
    var tr = pool.get(r.id);
    if (tr) { tr.classList.add("selected"); }
    fillDetail(r);
    // Never the receiver itself, which refuses to replay to itself.
    $("replay-url").value = (info && info.forward_to) || "";
    say($("replay-result"), "");
    openOverlay("detail");
    // The dialog itself takes the focus, not its close button, which the
    // key that opened it would otherwise press.
    $("detail").focus({ preventScroll: true });
    loadAttempts(r);
  }

  function fillDetail(r) {
    $("d-id").textContent = "#" + r.id;
    $("d-summary").textContent = [r.method + " " + r.path + (r.query ? "?" + r.query : ""), r.size + " " + t("size"),
      t("checkOf") + ": " + checkLabel(r.check) + (r.reason ? " (" + r.reason + ")" : "") +
        (r.verified_by ? " — " + t("verifiedBy", { key: r.verified_by }) : ""), r.remote_addr].join(" · ");
    var code = Number(r.answer_status) || 0, ans;
    if (r.forward) { ans = t("ansForward", { status: code }); } else if (code === 200) { ans = t("ans200"); } else if (code === 401 && r.check !== "valid") { ans = t("ans401"); } else if (code === 413) { ans = t("ans413"); } else { ans = t("ansOther", { status: code }); }
    if (r.body_dropped && code !== 413) { ans += " " + t("bodyDropped"); }
    say($("d-answer"), ans, code >= 300);
    var d = delayOf(r);
    $("d-delay").textContent = t("delay") + ": " + d.text + " — " + d.tip;
    $("d-delay").className = d.cls;
    var h = Object.keys(r.headers || {}).sort().map(function (k) { return k + ": " + (r.headers[k] || []).join(", "); }).join("\n");
    $("d-headers").textContent = h;
    var f = r.forward;
    $("d-forward").hidden = !f;
    if (f) {
      $("d-forward-summary").textContent = ["POST " + str(f.url),
        f.status ? t("answered", { status: f.status, ms: f.latency_ms }) : t("noanswer") + " (" + f.latency_ms + " ms)",
        t("answeredUs", { status: r.answer_status })].join(" · ");
      $("d-forward-error").textContent = str(f.error);
      $("d-forward-error").hidden = !f.error;
      $("d-forward-body").textContent = str(f.body) + (f.body_truncated ? "…" : "");
    }
    $("d-body").textContent = r.body_dropped ? t("bodyDropped") : pretty(r);
    $("d-curl").textContent = curlOf(r);
  }

  // loadAttempts lists every delivery of the record's event, from the
  // server: the first and each retry, with what each was answered.
  function loadAttempts(r) {
    var ol = $("d-attempts");
    ol.replaceChildren();
    if (!r.event_id) { ol.appendChild(el("li", null, t("noEventId"))); return; }
    ol.appendChild(el("li", null, t("loading")));
    api("GET", "/api/events?order=asc&limit=50&event_id=" + encodeURIComponent(r.event_id)).then(function (res) {
      if (selected !== r.id) { return; }
      ol.replaceChildren();
      if (!res.ok) { ol.appendChild(el("li", "error", t("failed", { msg: errorOf(res) }))); return; }
      var evs = res.data.events || [];
      evs.forEach(function (a, i) {
        var li = el("li", a.id === r.id ? "current" : null, t("attemptOf", { k: i + 1, n: res.data.total || evs.length }) + " · " +
          t("attemptLine", { id: a.id, time: fmtTime(a.received_at), status: a.answer_status, check: checkLabel(a.check) }));
        ol.appendChild(li);
      });
      if ((res.data.total || 0) > evs.length) { ol.appendChild(el("li", null, t("attemptsMore", { n: res.data.total - evs.length }))); }
    });
  }

  function closeOverlays() {
    var wasReq = !$("rdetail").hidden;
    $("detail").hidden = true;
    $("rdetail").hidden = true;
    $("backdrop").hidden = true;
    if (wasReq) { reqSelected = null; focusRequest(opener); return; }
    selected = null;
    document.querySelectorAll("#rows tr.selected").forEach(function (e) { e.classList.remove("selected"); });
    focusRow(opener);
  }

  // focusRow brings the record's row into view (it may have been scrolled
  // out of the page) and gives it the focus.
  function focusRow(id) {
    var i = list.findIndex(function (r) { return r.id === id; });
    if (i < 0) { return; }
    var sc = $("scroller"), h = rowHeight(), tbody = $("rows");
    var rowsTop = tbody.getBoundingClientRect().top - sc.getBoundingClientRect().top + sc.scrollTop;
    var y = rowsTop + i * h, head = $("events").tHead.offsetHeight;
    if (y < sc.scrollTop + head || y + h > sc.scrollTop + sc.clientHeight) { sc.scrollTop = Math.max(0, y - sc.clientHeight / 2); }
    render();
    var tr = pool.get(id);
    if (tr) { tr.focus({ preventScroll: true }); }
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

  // ----- actions -----

  // showRules lists a channel's rules: data.rules holds every one, the
  // channel-wide rule (also in data.rule) first.
  function showRules(data, channel) {
    var rules = Array.isArray(data.rules) ? data.rules : (data.rule ? [data.rule] : []);
    if (!rules.length) { say($("a-rules"), t("answersNone", { ch: channel })); return; }
    say($("a-rules"), rules.map(function (r) {
      return t("answerRule", { status: r.status, delay: r.delay ? " +" + r.delay : "",
        left: r.remaining ? t("answerLeft", { n: r.remaining }) : t("answerUntil") }) + (r.signature_id ? t("answerSig", { id: r.signature_id }) : "");
    }).join("; "));
  }

  // rulesCall numbers the calls about rules: only the latest one's answer
  // is shown, however the answers come back.
  var rulesCall = 0;
  function rulesAPI(method, ch, body) {
    var n = ++rulesCall;
    return api(method, "/api/channels/" + encodeURIComponent(ch) + "/responses", body).then(function (res) {
      if (n !== rulesCall) { return; }
      if (res.ok) { showRules(method === "DELETE" ? {} : res.data, ch); } else { say($("a-rules"), t("failed", { msg: errorOf(res) }), true); }
    });
  }

  function loadRules() {
    var ch = $("a-channel").value.trim();
    if (ch) { rulesAPI("GET", ch); }
  }

  // rulesUsed shows the form's channel's rules again when one of its
  // notifications arrived, which may have used one up.
  function rulesUsed(recs) {
    if ($("answers").hidden) { return; }
    var ch = $("a-channel").value.trim();
    if (recs.some(function (r) { return r.channel === ch; })) { loadRules(); }
  }

  // askClear shows the question of "Clear all" with the number of records
  // stored, which it deletes whatever the filter shows.
  var clearCount = null;
  function askClear() {
    $("clear-question").textContent = t("clearQuestion", { n: clearCount });
  }

  function bindActions() {
    $("clear-all").addEventListener("click", function () {
      api("GET", "/api/stats").then(function (res) {
        if (!res.ok) { say($("action-result"), t("failed", { msg: errorOf(res) }), true); return; }
        clearCount = Number(res.data.count) || 0;
        askClear();
        $("clear-confirm").hidden = false;
        $("clear-no").focus();
      });
    });
    $("clear-no").addEventListener("click", function () { $("clear-confirm").hidden = true; $("clear-all").focus(); });
    $("clear-yes").addEventListener("click", function () {
      $("clear-confirm").hidden = true;
      api("DELETE", "/api/events").then(function (res) {
        if (!res.ok) { say($("action-result"), t("failed", { msg: errorOf(res) }), true); return; }
        say($("action-result"), t("cleared", { n: res.data.deleted || 0 }));
        reload();
      });
    });
    $("answers-toggle").addEventListener("click", function () {
      var form = $("answers");
      form.hidden = !form.hidden;
      this.setAttribute("aria-expanded", String(!form.hidden));
      if (!form.hidden) { loadRules(); }
    });
    $("a-channel").addEventListener("change", loadRules);
    $("answers").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var ch = $("a-channel").value.trim();
      var body = { status: Number($("a-status").value), count: Number($("a-count").value) || 0 };
      if ($("a-delay").value.trim()) { body.delay = $("a-delay").value.trim(); }
      rulesAPI("POST", ch, body);
    });
    $("a-clear").addEventListener("click", function () { rulesAPI("DELETE", $("a-channel").value.trim()); });
    document.querySelectorAll("[data-demo]").forEach(function (b) {
      b.addEventListener("click", function () {
        var state = b.getAttribute("data-demo");
        say($("demo-result"), t("loading"));
        api("POST", "/api/demo", { state: state }).then(function (res) {
          if (res.ok) { say($("demo-result"), t("demoCreated", { state: state, id: str(res.data.signature_id) })); } else { say($("demo-result"), t("demoFailed", { msg: errorOf(res) }), true); }
        });
      });
    });
    $("replay").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var id = selected, out = $("replay-result");
      if (id === null) { return; }
      say(out, t("replaying"));
      api("POST", "/api/events/" + id + "/replay", { url: $("replay-url").value.trim() }).then(function (res) {
        if (selected !== id) { return; }
        if (res.ok) {
          say(out, t("replayDone", { status: res.data.status, ms: Math.round(Number(res.data.latency_ms) || 0) }) + (res.data.note ? " · " + res.data.note : ""), res.data.status >= 300);
        } else { say(out, t("replayFailed", { msg: errorOf(res) }), true); }
      });
    });
  }

  // ----- requests received by the reference server ('firmakit up') -----

  var reqs = [], reqById = new Map(), reqTotal = 0, reqLast = 0, reqIncoming = [], reqFrame = 0, reqSelected = null, reqStarted = false;

  function startRequests() {
    if (reqStarted) { return; }
    reqStarted = true;
    api("GET", "/api/requests?limit=1").then(function (res) {
      if (!res.ok) { $("tabs").hidden = true; return; }
      reqTotal = Number(res.data.total) || 0;
      var last = Number(res.data.last_id) || 0;
      reqLast = Math.max(0, last - REQ_KEEP);
      connectRequests();
      renderRequests(false);
    });
  }

  function connectRequests() {
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    var sock = new WebSocket(withToken(proto + "//" + location.host + "/api/requests/stream?after=" + reqLast));
    var counted = false;
    sock.onmessage = function (ev) {
      var q;
      try { q = JSON.parse(ev.data); } catch (e) { return; }
      if (!q || typeof q.id !== "number" || reqById.has(q.id)) { return; }
      if (q.id > reqLast) { reqLast = q.id; }
      reqIncoming.push(q);
      counted = true;
      if (!reqFrame) { reqFrame = requestAnimationFrame(flushRequests); }
    };
    sock.onclose = function () { setTimeout(connectRequests, counted ? 500 : 2000); };
  }

  function flushRequests() {
    reqFrame = 0;
    var batch = reqIncoming;
    reqIncoming = [];
    batch.forEach(function (q) {
      if (reqById.has(q.id)) { return; }
      reqById.set(q.id, q);
      reqs.push(q);
    });
    reqs.sort(function (a, b) { return b.id - a.id; });
    reqs.splice(REQ_KEEP).forEach(function (q) { reqById.delete(q.id); });
    var maxId = reqs.length ? reqs[0].id : 0;
    reqTotal = Math.max(reqTotal, maxId);
    renderRequests(false);
  }

  // A request's authentication: "check", or "verdict" from a service of
  // an earlier version.
  function authOf(q) {
    var v = str(q.check) || str(q.verdict);
    return /^(accepted|refused|not_checked)$/.test(v) ? v : "not_checked";
  }

  function requestRow(q) {
    var tr = el("tr");
    tr.setAttribute("data-id", q.id);
    tr.tabIndex = 0;
    var cell = function (cls, text, title) { var td = el("td", cls, text); if (title) { td.title = title; } tr.appendChild(td); return td; };
    cell("time", fmtTime(q.received_at), q.received_at);
    cell("method", q.method);
    cell("target", q.target, q.target);
    var code = Number(q.status) || 0;
    cell("status").appendChild(el("span", "status status-" + String(code).charAt(0) + "xx", code || ""));
    var v = authOf(q);
    cell("rverdict").appendChild(el("span", "badge rv-" + v, t("rv_" + v)));
    cell("message", q.message, q.message);
    return tr;
  }

  function renderRequests(all) {
    var tbody = $("r-rows");
    if (all || tbody.children.length !== reqs.length || (reqs.length && Number(tbody.firstChild.getAttribute("data-id")) !== reqs[0].id)) {
      var frag = document.createDocumentFragment();
      reqs.forEach(function (q) { frag.appendChild(requestRow(q)); });
      tbody.replaceChildren(frag);
    }
    $("r-empty").hidden = reqs.length > 0;
    $("r-counts").textContent = t("rCounts", { total: reqTotal, n: reqs.length });
  }

  function showRequest(q) {
    reqSelected = q.id;
    opener = q.id;
    fillRequest(q);
    openOverlay("rdetail");
    $("rdetail").focus({ preventScroll: true });
  }

  function fillRequest(q) {
    $("rd-id").textContent = "#" + q.id;
    $("rd-summary").textContent = [str(q.method) + " " + str(q.target), String(q.status || ""), t("rv_" + authOf(q)),
      q.remote_addr, q.merchant_id ? "merchant_id " + q.merchant_id : "", q.key_id ? "key_id " + q.key_id : "",
      typeof q.body_bytes === "number" ? q.body_bytes + " " + t("size") : ""].filter(Boolean).join(" · ");
    $("rd-message").textContent = str(q.message);
    var d = q.diagnostic && typeof q.diagnostic === "object" ? q.diagnostic : null;
    $("rd-diag").hidden = !d;
    $("rd-nodiag").hidden = !!d;
    if (!d) { return; }
    $("rd-cause").textContent = str(d.cause) || str(d.cause_code);
    var dl = $("rd-fields");
    dl.replaceChildren();
    ["cause_code", "method", "target", "target_escaped", "string_to_sign_bytes", "string_to_sign_note", "body_bytes", "body_sha256", "body_note", "server_time", "timestamp", "clock_difference_seconds"].forEach(function (k) {
      if (d[k] === undefined || d[k] === null || d[k] === "") { return; }
      dl.appendChild(el("dt", null, t("f_" + k)));
      dl.appendChild(el("dd", null, d[k]));
    });
    $("rd-sts").textContent = str(d.string_to_sign);
    // headers: [{name, value, missing}], in the profile's order.
    var h = Array.isArray(d.headers) ? d.headers : [];
    $("rd-headers").textContent = h.map(function (x) {
      x = x && typeof x === "object" ? x : {};
      // value_escaped: the exact bytes, when they are not printable UTF-8.
      return str(x.name) + ": " + (x.missing && !x.value ? t("missingHeader") : str(x.value_escaped || x.value));
    }).join("\n");
  }

  function focusRequest(id) {
    var tr = document.querySelector('#r-rows tr[data-id="' + Number(id) + '"]');
    if (tr) { tr.focus(); }
  }

  function showView(name) {
    $("view-events").hidden = name !== "events";
    $("view-requests").hidden = name !== "requests";
    $("tab-events").setAttribute("aria-pressed", String(name === "events"));
    $("tab-requests").setAttribute("aria-pressed", String(name === "requests"));
    if (name === "events") { render(); }
  }

  // ----- wiring -----

  function bindList() {
    var tbody = $("rows");
    tbody.addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr");
      var r = tr && byId.get(Number(tr.getAttribute("data-id")));
      if (r) { showDetail(r); }
    });
    tbody.addEventListener("keydown", function (ev) {
      var tr = ev.target.closest("tr");
      if (!tr) { return; }
      var id = Number(tr.getAttribute("data-id"));
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        if (byId.has(id)) { showDetail(byId.get(id)); }
      } else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        ev.preventDefault();
        var i = list.findIndex(function (r) { return r.id === id; }) + (ev.key === "ArrowDown" ? 1 : -1);
        if (i >= 0 && i < list.length) { focusRow(list[i].id); }
      }
    });
    $("scroller").addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", function () { rowH = 0; pool.forEach(function (tr) { tr.fkY = -1; }); schedule(); });
    $("r-rows").addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr");
      var q = tr && reqById.get(Number(tr.getAttribute("data-id")));
      if (q) { showRequest(q); }
    });
    $("r-rows").addEventListener("keydown", function (ev) {
      var tr = ev.target.closest("tr");
      var q = tr && reqById.get(Number(tr.getAttribute("data-id")));
      if (q && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); showRequest(q); }
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && (!$("detail").hidden || !$("rdetail").hidden)) { ev.preventDefault(); closeOverlays(); }
    });
    $("backdrop").addEventListener("click", closeOverlays);
    $("close-detail").addEventListener("click", closeOverlays);
    $("close-rdetail").addEventListener("click", closeOverlays);
    $("copy-curl").addEventListener("click", function () { if (byId.has(selected)) { copy(curlOf(byId.get(selected)), this); } });
  }

  function bindFilters() {
    var typing = 0;
    FILTERS.forEach(function (kv) {
      var input = $(kv[1]);
      input.addEventListener(input.tagName === "SELECT" ? "change" : "input", function () {
        clearTimeout(typing);
        if (input.tagName === "SELECT") { setFilter(filterFromInputs()); return; }
        typing = setTimeout(function () { setFilter(filterFromInputs()); }, 300);
      });
      if (input.tagName === "SELECT") { input.addEventListener("input", function () { setFilter(filterFromInputs()); }); }
    });
    $("filters").addEventListener("submit", function (ev) { ev.preventDefault(); clearTimeout(typing); setFilter(filterFromInputs()); });
    $("f-clear").addEventListener("click", function () {
      FILTERS.forEach(function (kv) { $(kv[1]).value = ""; });
      setFilter({});
    });
    window.addEventListener("popstate", function () { filter = filterFromHash(); reload(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("lang").addEventListener("change", function () { lang = this.value; localStorage.setItem("firmakit.lang", lang); applyLang(); });
    $("pause").addEventListener("click", function () {
      paused = !paused;
      this.textContent = paused ? t("resume") : t("pause");
      if (!paused) { var w = waiting; waiting = []; prepend(w, true); }
      schedule();
    });
    $("tab-events").addEventListener("click", function () { showView("events"); });
    $("tab-requests").addEventListener("click", function () { showView("requests"); });
    bindList();
    bindFilters();
    bindActions();
    api("GET", "/api/info").then(function (res) {
      if (!res.ok) { return; }
      info = res.data;
      showHint();
      $("demo").hidden = !info.demo;
      if (info.requests === true) { $("tabs").hidden = false; startRequests(); }
    });
    filter = filterFromHash();
    applyLang();
    reload();
  });
})();
