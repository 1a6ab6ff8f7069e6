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
import { httpbis, createVerifier } from "http-message-signatures";

const [lib, secret] = process.argv.slice(2);
const stripe = new Stripe("sk_test_interop");

async function verify(body, h, reqURL, raw) {
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
    case "http-message-signatures":
    case "http-message-signatures-no-digest": {
      // RFC 9421 with the npm library; SECRET is [keyid:]key, the key a
      // base64 HMAC secret or a whpk_ Ed25519 public key. The library
      // checks the signature, the covered fields and created; the
      // Content-Digest (RFC 9530) is checked here, as the library leaves it.
      const at = secret.indexOf(":");
      const material = at > 0 ? secret.slice(at + 1) : secret;
      const ed = material.startsWith("whpk_");
      const alg = ed ? "ed25519" : "hmac-sha256";
      const key = ed
        ? crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(material.slice(5), "base64")]), format: "der", type: "spki" })
        : Buffer.from(material.replace(/^whsec_/, ""), "base64");
      const verifier = createVerifier(key, alg);
      const ok = await httpbis.verifyMessage({
        // The key is found by the signature's keyid, as the library's
        // README shows: a signature of a key the endpoint does not hold
        // (a retired one beside the valid one) is not verified. The keyid
        // is the key's own ("k1:" before it) or, for a key given bare,
        // the name firmakit gives it (its whpk_ public key).
        async keyLookup(params) {
          const id = at > 0 ? secret.slice(0, at) : material;
          return params.keyid === id ? { id, algs: [alg], verify: verifier } : null;
        },
        requiredFields: ["@method", "@path", "content-digest", "content-type"],
        requiredParams: ["created"],
        tolerance: 300,
        maxAge: 600,
      }, { method: "POST", url: "http://" + h.host + reqURL, headers: h });
      if (ok !== true) throw new Error("no signature verifies");
      if (lib === "http-message-signatures-no-digest") return; // a fault: the body is never compared with its digest
      const want = "sha-256=:" + crypto.createHash("sha256").update(raw).digest("base64") + ":";
      const got = (h["content-digest"] || "").split(",").map((s) => s.trim());
      if (!got.includes(want)) throw new Error("Content-Digest does not match the body");
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
    const raw = Buffer.concat(chunks);
    const body = raw.toString("utf8");
    try {
      await verify(body, req.headers, req.url, raw);
      res.writeHead(204).end();
    } catch (e) {
      res.writeHead(400, { "Content-Type": "text/plain" }).end(String(e && e.message));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log("listening " + server.address().port));
