# firmakit: build, test, measure.
GO      ?= go
BIN     ?= bin/firmakit
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
# Debian packages the tests drive: a real browser for the dashboard, a real
# PDF reader for the demo documents, curl for the printed curl lines,
# python3 for the README's check of the webhook test vectors, Node and npm
# for the interop tests against the webhook schemes' own libraries, and
# PostgreSQL's server for the receiver's tests on PostgreSQL (they start
# their own, from /usr/lib/postgresql/*/bin, which is not on PATH).
DEBS    := chromium poppler-utils curl python3 nodejs npm postgresql
FUZZTIME ?= 30s

.PHONY: build test test-times power deps lint bench bench-verify bench-load bench-demo bench-receiver bench-replicas bench-suite bench-webhook bench-verdict bench-dashboard bench-sandbox bench-abuse fuzz clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/firmakit

# The test command of the README: installs what the tests need if it is
# missing, then .ci/test runs the stages and prints each one's wall time
# at the end: vet; the race-enabled tests of every package; beside them
# (they mostly wait), the suite's power and precision tests (every named
# fault of the reference must fail the suite, every liberty pass it),
# which run the suite a couple of hundred times and so run without -race,
# with the whole-suite tests of steps and openapi in both languages
# (under -race each runs one: steps/suite_test.go); last, the example of
# docs/godog-suite.md, a team's own suite in its own module, so that the
# steps' API for such suites cannot break unnoticed, and the client
# oapi-codegen generates from firmakit's OpenAPI document (its own module
# too), which must still be that document's and get a 200 and a 201.
# About 9 minutes on a quiet 2-core machine (docs/figures.md).
test: deps
	@GO=$(GO) bash .ci/test

# The same stages with go test -json, then the ten slowest tests and each
# package's wall time (go run ./cmd/bench tests), so that where the
# minutes go shows; the JSON stays in out/test-times/.
test-times: deps
	@rm -rf out/test-times; GO=$(GO) TEST_JSON=out/test-times bash .ci/test; status=$$?; \
	$(GO) run ./cmd/bench tests out/test-times/*.json; exit $$status

# The power and the precision of both suites, with every verdict in the
# log: the service suite against the reference's named faults and
# liberties, the webhook suite against the endpoint faults and liberties
# of steps/webhook/endpoint_faults_test.go. The last lines say, for each
# suite, faults caught N of N and liberties passed M of M.
power:
	@out=$$(mktemp); \
	$(GO) test -count=1 -v -timeout 45m -parallel 8 -run 'TestEveryFaultIsCaught|TestEveryEndpointFaultIsCaught|TestEveryLibertyIsPassed|TestEveryEndpointLibertyIsPassed' ./steps ./steps/webhook > $$out; status=$$?; \
	grep -E 'faults, each|liberties, each| (failed|passed|passed with warnings); |^(ok|FAIL)|--- FAIL' $$out | grep -vE '(caught|passed) [0-9]+ of'; \
	grep -E '(faults caught|liberties passed) [0-9]+ of' $$out | sed -E 's/^ *[a-z_]+_test\.go:[0-9]+: //'; \
	grep -A12 'faults caught per operator class' $$out | sed -E 's/^ *[a-z_]+_test\.go:[0-9]+: //' | grep -E 'per operator class|caught,'; \
	rm -f $$out; exit $$status

deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v pdftotext >/dev/null 2>&1 || missing="$$missing poppler-utils"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	$(GO) mod download
	cd examples/godog-suite && $(GO) mod download
	cd examples/openapi-client && $(GO) mod download
	@# npm ci again only when package-lock.json changed since the last one
	@# (its sum is kept in node_modules): 12 s of every make test otherwise.
	@for d in internal/interop/js internal/interop/apitools; do \
		sum=$$(sha256sum $$d/package-lock.json | cut -d' ' -f1); \
		[ "$$(cat $$d/node_modules/.firmakit-lock-sum 2>/dev/null)" = "$$sum" ] && continue; \
		echo "cd $$d && npm ci --no-audit --no-fund --ignore-scripts"; \
		(cd $$d && npm ci --no-audit --no-fund --ignore-scripts) && echo "$$sum" >$$d/node_modules/.firmakit-lock-sum || exit 1; \
	done

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt would change the files above"; exit 1; }
	$(GO) vet ./...

bench: bench-verify bench-load bench-demo bench-receiver bench-suite bench-webhook bench-dashboard bench-sandbox

bench-verify:
	$(GO) test -run - -bench 'HMAC|Verify' -benchmem -count 5 .

bench-load: build
	$(GO) run ./cmd/bench load --duration 10s

bench-demo: build
	$(GO) run ./cmd/bench demo --bin $(BIN)

bench-receiver: build
	$(GO) run ./cmd/bench receiver --bin $(BIN)

# The receiver on PostgreSQL (a server of its own, started from Debian's
# package in a temporary folder): ingest beside SQLite and a bare handler,
# one and two replicas, with and without NOTIFY; the delay from one
# replica's 2xx to the other's websocket frame; a kill -9 of one replica
# under load (no acknowledged notification may be lost). Also part of
# bench-receiver.
bench-replicas: build
	$(GO) run ./cmd/bench receiver --bin $(BIN) --only replicas

# The receiver under an outsider's attacks: pages of bodies JSON escapes
# sixfold, stream clients that never read, connections that trickle their
# bodies (the reference too), a peer answering with 8 MiB of headers,
# answers held back, and a flood forwarded to an endpoint that never
# answers (with certify-webhook --max-duration 3s against it); fails when
# a process's resident memory passes 256 MiB.
bench-abuse: build
	$(GO) run ./cmd/bench abuse --bin $(BIN)

# The dashboard in headless Chromium: 1,000 stored records, then 200
# notifications a second for 5 s, clicking rows; fails under 30 frames/s
# or when a click takes 100 ms or more to show its record.
bench-dashboard:
	$(GO) run ./cmd/bench dashboard

# The whole suite, both languages, against the bundled reference: three
# runs at the default concurrency, each wall time beside the run's floor
# (its longest inherent wait, the late-answer delivery scenario's: the
# demo delay, the delivery timeout, the first retry delay and the quiet
# window, about 14.5 s), then one scenario at a time.
bench-suite: build
	$(GO) run ./cmd/bench suite --bin $(BIN)

# certify-webhook, both languages, against an endpoint that answers at
# once and one that answers every notification after 3 s: each run's wall
# time beside its floor (six deliveries of one scenario in turn).
bench-webhook: build
	$(GO) run ./cmd/bench webhook --bin $(BIN)

# certify's verdict on a busy machine: 20 runs against the bundled
# reference with four CPU-bound processes beside them (each must pass),
# then runs against references with a timing fault (each must fail).
bench-verdict: build
	$(GO) run ./cmd/bench verdict --bin $(BIN)

# certify against a sandbox as on the internet: the bundled reference
# behind a loopback gateway with 60 ms each way that rate-limits (20 r/s
# burst 10 with Retry-After; 5 r/s burst 5 without) or fails requests (3%
# 502s, 3% resets). Prints each verdict, its wall time and the gateway's
# counts. SANDBOX_FLAGS adds flags, e.g. --rate 4 or --only c.
bench-sandbox: build
	$(GO) run ./cmd/bench sandbox --bin $(BIN) $(SANDBOX_FLAGS)

fuzz:
	$(GO) test -run - -fuzz FuzzParseWebhookHeader -fuzztime $(FUZZTIME) .
	$(GO) test -run - -fuzz FuzzVerifyWebhook -fuzztime $(FUZZTIME) .
	$(GO) test -run - -fuzz FuzzVerifyRequest -fuzztime $(FUZZTIME) .
	$(GO) test -run - -fuzz FuzzSignedBodies -fuzztime $(FUZZTIME) ./reference
	$(GO) test -run - -fuzz FuzzHook -fuzztime $(FUZZTIME) ./receiver

clean:
	rm -rf bin
