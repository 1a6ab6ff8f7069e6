#!/usr/bin/env node
// A merchant's signature webhook, Node core modules only.
//
// Usage: node endpoint.js [PORT] [SECRET ...]
//    or: ENDPOINT_PORT=0 WEBHOOK_SECRETS=whsec_a,whsec_b node endpoint.js
// Listens on 127.0.0.1 (ENDPOINT_HOST to change), any path. Port 0 picks a
// free port; the real port is printed on stdout once listening.
'use strict';
const http = require('http');
const crypto = require('crypto');

const port = Number(process.argv[2] ?? process.env.ENDPOINT_PORT ?? 0);
const secrets = process.argv.length > 3
  ? process.argv.slice(3)
  : (process.env.WEBHOOK_SECRETS || '').split(',').filter(Boolean);
const TOLERANCE = 300;
const seen = new Set();

if (secrets.length === 0) {
  console.error('endpoint.js: no webhook secret (argv or WEBHOOK_SECRETS)');
  process.exit(2);
}

function answer(res, code, payload) {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}

function verify(header, raw) {
  let t;
  const v1 = [];
  for (const part of String(header || '').split(',')) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim();
    if (key === 't') t = part.slice(i + 1).trim();
    else if (key === 'v1') v1.push(part.slice(i + 1).trim());
  }
  if (t === undefined || !/^\d+$/.test(t) || v1.length === 0) return [400, 'unparseable X-Service-Signature'];
  if (Math.abs(Date.now() / 1000 - Number(t)) > TOLERANCE) return [401, 'stale timestamp'];
  const signed = Buffer.concat([Buffer.from(t + '.'), raw]);
  const ok = secrets.some((secret) => {
    const expected = crypto.createHmac('sha256', secret).update(signed).digest();
    return v1.some((sig) => {
      const got = Buffer.from(sig, 'hex');
      return got.length === expected.length && sig.length === 2 * got.length && crypto.timingSafeEqual(got, expected);
    });
  });
  return ok ? null : [401, 'invalid signature'];
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' });
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > 1 << 20) { answer(res, 413, { error: 'body too large' }); req.destroy(); }
    else chunks.push(c);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const fault = verify(req.headers['x-service-signature'], raw);
    if (fault) return answer(res, fault[0], { error: fault[1] });
    let event;
    try { event = JSON.parse(raw.toString('utf8')); } catch { event = null; }
    const id = event && typeof event === 'object' ? event.event_id : undefined;
    if (typeof id !== 'string' || id === '') return answer(res, 400, { error: 'body is not a notification' });
    const duplicate = seen.has(id);
    seen.add(id);
    if (!duplicate) console.error(JSON.stringify(event));
    answer(res, 200, { received: true, duplicate });
  });
});

server.listen(port, process.env.ENDPOINT_HOST || '127.0.0.1', () => {
  console.log(String(server.address().port));
});
