// A merchant's webhook endpoint written with a scheme's own library, as
// its users write one: it verifies the raw body with the library and
// answers 204, or 400 when the library refuses the notification.
// Usage: node endpoint.mjs LIB SECRET; prints "listening PORT" when ready.
import http from "node:http";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import Stripe from "stripe";

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
