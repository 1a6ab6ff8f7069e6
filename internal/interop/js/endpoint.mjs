// A merchant's webhook endpoint written with a scheme's own library, as
// its users write one: it verifies the raw body with the library and
// answers 204, or 400 when the library refuses the notification.
// Usage: node endpoint.mjs LIB SECRET; prints "listening PORT" when ready.
// For node-ed25519 (Standard Webhooks' v1a, which the scheme's library does
// not support), SECRET is the public key, whpk_<base64>, and the check is
// written from the specification's text with Node's crypto.
import http from "node:http";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import Stripe from "stripe";
import crypto from "node:crypto";

const [lib, secret] = process.argv.slice(2);
const stripe = new Stripe("sk_test_interop");

async function verify(body, h) {
  switch (lib) {
    case "standardwebhooks":
      new StandardWebhook(secret).verify(body, h);
      return;
    case "svix":
      new SvixWebhook(secret).verify(body, h);
      return;
    case "node-ed25519": {
      const ts = h["webhook-timestamp"] || "";
      if (!/^[0-9]+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) throw new Error("timestamp missing or outside the tolerance");
      if (!h["webhook-id"]) throw new Error("no webhook-id");
      const content = Buffer.from(`${h["webhook-id"]}.${ts}.${body}`);
      const raw = Buffer.from(secret.replace(/^whpk_/, ""), "base64");
      const key = crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
      const ok = (h["webhook-signature"] || "").split(" ").some((e) =>
        e.startsWith("v1a,") && crypto.verify(null, content, key, Buffer.from(e.slice(4), "base64")));
      if (!ok) throw new Error("no v1a signature verifies");
      return;
    }
    case "octokit":
      if (!(await octokitVerify(secret, body, h["x-hub-signature-256"] || ""))) throw new Error("signature does not match");
      return;
    case "stripe":
      stripe.webhooks.constructEvent(body, h["stripe-signature"] || "", secret, 300);
      return;
  }
  throw new Error("unknown lib " + lib);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      await verify(body, req.headers);
      res.writeHead(204).end();
    } catch (e) {
      res.writeHead(400, { "Content-Type": "text/plain" }).end(String(e && e.message));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log("listening " + server.address().port));
