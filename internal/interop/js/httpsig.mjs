// Signs and verifies RFC 9421 HTTP Message Signatures with the
// http-message-signatures library, an implementation independent of firmakit.
// Reads one JSON request on standard input:
//   {"op":"sign"|"verify","alg":"hmac-sha256"|"ed25519",
//    "key":"<base64 secret>"|"<PEM: PKCS#8 private key to sign, SPKI public key to verify>",
//    "keyid":"...","label":"...","writeAlg":true,"method":"POST","url":"https://...",
//    "headers":{...},"components":["@method",...],"created":1700000000}
// and writes {"headers":{"Signature-Input":"...","Signature":"..."}} for sign,
// {"ok":true} or {"ok":false,"error":"..."} for verify.
import { createPrivateKey, createPublicKey } from "node:crypto";
import { httpbis, createSigner, createVerifier } from "http-message-signatures";

const input = JSON.parse(await new Promise((resolve) => {
  let data = "";
  process.stdin.on("data", (c) => (data += c));
  process.stdin.on("end", () => resolve(data));
}));

function key(r, op) {
  if (r.alg === "hmac-sha256") return Buffer.from(r.key, "base64");
  if (r.alg === "ed25519") return op === "sign" ? createPrivateKey(r.key) : createPublicKey(r.key);
  throw new Error("unknown alg " + r.alg);
}

async function sign(r) {
  const params = ["created"];
  if (r.keyid) params.push("keyid");
  if (r.writeAlg) params.push("alg");
  const signed = await httpbis.signMessage({
    key: createSigner(key(r, "sign"), r.alg, r.keyid || undefined),
    name: r.label || undefined,
    fields: r.components,
    params,
    paramValues: { created: new Date(r.created * 1000) },
  }, { method: r.method, url: r.url, headers: { ...r.headers } });
  return { "Signature-Input": signed.headers["Signature-Input"], Signature: signed.headers["Signature"] };
}

async function verify(r) {
  const verifier = createVerifier(key(r, "verify"), r.alg);
  const result = await httpbis.verifyMessage({
    async keyLookup(params) {
      if ((params.keyid ?? "") !== (r.keyid ?? "")) return null;
      return { id: r.keyid, algs: [r.alg], verify: verifier };
    },
    requiredFields: r.components,
    tolerance: 300,
  }, { method: r.method, url: r.url, headers: r.headers });
  if (result !== true) throw new Error("signature does not verify (library answered " + result + ")");
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
