// Signs and verifies notifications with each webhook scheme's own library.
// Reads one JSON request on standard input:
//   {"op":"sign"|"verify","lib":"standardwebhooks"|"svix"|"node-ed25519"|"octokit"|"stripe",
//    "secret":"...","id":"...","timestamp":1700000000,"body":"...","headers":{...}}
// and writes {"headers":{...}} for sign, {"ok":true} or {"ok":false,"error":"..."} for verify.
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import Stripe from "stripe";
import crypto from "node:crypto";

// Standard Webhooks' v1a (Ed25519) has no support in the scheme's npm
// library, so it is written here from the specification's text with
// Node's own crypto: "{msg_id}.{timestamp}.{payload}" signed with the
// secret key (whsk_ + base64 of the 32-byte seed), verified with the public
// key (whpk_ + base64 of its 32 bytes), "v1a,<base64>" entries separated
// by spaces.
function edPrivate(whsk) {
  const seed = Buffer.from(whsk.replace(/^whsk_/, ""), "base64");
  return crypto.createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
}
function edPublic(whpk) {
  const raw = Buffer.from(whpk.replace(/^whpk_/, ""), "base64");
  return crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
}

const input = JSON.parse(await new Promise((resolve) => {
  let data = "";
  process.stdin.on("data", (c) => (data += c));
  process.stdin.on("end", () => resolve(data));
}));
const stripe = new Stripe("sk_test_interop");

async function sign(r) {
  switch (r.lib) {
    case "standardwebhooks":
      return {
        "webhook-id": r.id,
        "webhook-timestamp": String(r.timestamp),
        "webhook-signature": new StandardWebhook(r.secret).sign(r.id, new Date(r.timestamp * 1000), r.body),
      };
    case "svix":
      return {
        "webhook-id": r.id,
        "webhook-timestamp": String(r.timestamp),
        "webhook-signature": new SvixWebhook(r.secret).sign(r.id, new Date(r.timestamp * 1000), r.body),
      };
    case "node-ed25519":
      return {
        "webhook-id": r.id,
        "webhook-timestamp": String(r.timestamp),
        "webhook-signature": "v1a," + crypto.sign(null, Buffer.from(`${r.id}.${r.timestamp}.${r.body}`), edPrivate(r.secret)).toString("base64"),
      };
    case "octokit":
      return { "X-Hub-Signature-256": await octokitSign(r.secret, r.body) };
    case "stripe":
      return {
        "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload: r.body, secret: r.secret, timestamp: r.timestamp }),
      };
  }
  throw new Error("unknown lib " + r.lib);
}

async function verify(r) {
  const h = Object.fromEntries(Object.entries(r.headers || {}).map(([k, v]) => [k.toLowerCase(), v]));
  switch (r.lib) {
    case "standardwebhooks":
      new StandardWebhook(r.secret).verify(r.body, h);
      return;
    case "svix":
      new SvixWebhook(r.secret).verify(r.body, h);
      return;
    case "node-ed25519": {
      const ts = Number(h["webhook-timestamp"]);
      if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 300) throw new Error("timestamp outside the tolerance");
      const content = Buffer.from(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${r.body}`);
      const key = edPublic(r.secret);
      const ok = (h["webhook-signature"] || "").split(" ").some((e) =>
        e.startsWith("v1a,") && crypto.verify(null, content, key, Buffer.from(e.slice(4), "base64")));
      if (!ok) throw new Error("no v1a signature verifies");
      return;
    }
    case "octokit":
      if (!(await octokitVerify(r.secret, r.body, h["x-hub-signature-256"] || ""))) throw new Error("signature does not match");
      return;
    case "stripe":
      stripe.webhooks.constructEvent(r.body, h["stripe-signature"] || "", r.secret, 300);
      return;
  }
  throw new Error("unknown lib " + r.lib);
}

try {
  if (input.op === "sign") {
    process.stdout.write(JSON.stringify({ headers: await sign(input) }));
  } else {
    await verify(input);
    process.stdout.write(JSON.stringify({ ok: true }));
  }
} catch (e) {
  process.stdout.write(JSON.stringify({ ok: false, error: String(e && e.message ? e.message : e) }));
}
