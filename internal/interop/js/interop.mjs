// Signs and verifies notifications with each webhook scheme's own library.
// Reads one JSON request on standard input:
//   {"op":"sign"|"verify","lib":"standardwebhooks"|"svix"|"octokit"|"stripe",
//    "secret":"...","id":"...","timestamp":1700000000,"body":"...","headers":{...}}
// and writes {"headers":{...}} for sign, {"ok":true} or {"ok":false,"error":"..."} for verify.
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import Stripe from "stripe";

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
