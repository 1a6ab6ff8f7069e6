// postman.mjs converts firmakit's OpenAPI document into a Postman
// collection with openapi-to-postmanv2, adds a collection-level
// pre-request script that signs every request as the bundled profile
// says, runs it with newman against a server, and prints what was sent
// and what came back, one JSON array on stdout, for openapi's Go test to
// judge against the document.
//
//   node postman.mjs DOCUMENT.json BASE_URL KEY SECRET [COLLECTION_OUT]
import { readFileSync, writeFileSync } from "node:fs";
import Converter from "openapi-to-postmanv2";
import newman from "newman";

const [docFile, baseUrl, key, secret, out] = process.argv.slice(2);
if (!docFile || !baseUrl || !key || !secret) {
  console.error("usage: node postman.mjs DOCUMENT.json BASE_URL KEY SECRET [COLLECTION_OUT]");
  process.exit(2);
}

// signScript is the script docs/openapi.md gives: the HMAC-SHA256, in
// lowercase hex, of timestamp, method, path with query and raw body,
// joined by newlines, under the credential's secret.
export const signScript = [
  'const ts = Math.floor(Date.now() / 1000).toString();',
  'const target = pm.variables.replaceIn(pm.request.url.getPathWithQuery());',
  'const body = pm.request.body && pm.request.body.raw ? pm.variables.replaceIn(pm.request.body.raw) : "";',
  'const mac = CryptoJS.HmacSHA256([ts, pm.request.method, target, body].join("\\n"), pm.variables.get("secret"));',
  'pm.request.headers.upsert({ key: "X-Service-Key", value: pm.variables.get("key") });',
  'pm.request.headers.upsert({ key: "X-Service-Timestamp", value: ts });',
  'pm.request.headers.upsert({ key: "X-Service-Signature", value: mac.toString(CryptoJS.enc.Hex) });',
];

function convert(doc) {
  return new Promise((resolve, reject) => {
    Converter.convert({ type: "string", data: doc },
      { folderStrategy: "Paths", requestParametersResolution: "Example", exampleParametersResolution: "Example", parametersResolution: "Example", includeAuthInfoInExample: false },
      (err, result) => {
        if (err) return reject(err);
        if (!result.result) return reject(new Error(result.reason));
        resolve(result.output[0].data);
      });
  });
}

const collection = await convert(readFileSync(docFile, "utf8"));
collection.event = [{ listen: "prerequest", script: { type: "text/javascript", exec: signScript } }];
collection.variable = (collection.variable || []).filter((v) => !["baseUrl", "key", "secret"].includes(v.key));
collection.variable.push({ key: "baseUrl", value: baseUrl }, { key: "key", value: key }, { key: "secret", value: secret });
// The converter's requests carry the security schemes as headers with
// placeholder values; the script sets them, so the placeholders go.
const schemeHeaders = new Set(["x-service-key", "x-service-timestamp", "x-service-signature"]);
const requests = [];
(function walk(items) {
  for (const it of items || []) {
    if (it.item) walk(it.item);
    if (it.request) {
      it.request.header = (it.request.header || []).filter((h) => !schemeHeaders.has(String(h.key).toLowerCase()));
      it.request.auth = { type: "noauth" };
      requests.push(it.name);
    }
  }
})(collection.item);
if (out) writeFileSync(out, JSON.stringify(collection, null, 2));

newman.run({ collection, reporters: [], timeout: 30000 }, (err, summary) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
  const exchanges = summary.run.executions.map((ex) => ({
    name: ex.item.name,
    method: ex.request.method,
    url: ex.request.url.toString(),
    headers: Object.fromEntries(ex.request.headers.all().map((h) => [h.key, h.value])),
    body: ex.request.body && ex.request.body.raw ? ex.request.body.raw : "",
    status: ex.response ? ex.response.code : 0,
    responseHeaders: ex.response ? Object.fromEntries(ex.response.headers.all().map((h) => [h.key, h.value])) : {},
    responseBody: ex.response ? ex.response.stream.toString("utf8") : "",
    error: ex.requestError ? String(ex.requestError) : "",
  }));
  process.stdout.write(JSON.stringify({ requests, exchanges }));
});
