import hashlib, hmac, json, sys
v = json.load(open(sys.argv[1], encoding="utf-8"))
for c in v["cases"]:
    h = {k.lower(): x for k, x in c["headers"].items()}.get(v["signature_header"].lower(), "")
    items = [i.strip().split("=", 1) for i in h.split(",") if "=" in i]
    ts, sigs = [x for k, x in items if k == "t"], [x for k, x in items if k == "v1"]
    mac = lambda t: hmac.new(v["secret"].encode(), (t + v["payload_separator"] + c["body"]).encode(), hashlib.sha256).hexdigest()
    ok = len(ts) == 1 and ts[0].isascii() and ts[0].isdigit() and abs(v["reference_time"] - int(ts[0])) <= v["tolerance_s"] \
        and any(hmac.compare_digest(mac(ts[0]), s) for s in sigs)
    assert ok == (c["expect"] == "accept") or c.get("lenient"), c["code"]
print(len(v["cases"]), "cases agree")
