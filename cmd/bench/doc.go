// Command bench measures firmakit's figures on loopback. Every load it
// makes targets 127.0.0.1 only, is bounded in time and count, and stops by
// itself. Each round runs in a rig of its own (rig.go), which starts the
// reference, the receiver, gateways and PostgreSQL and stops them when
// the round ends; the package's test runs every round briefly.
//
//	go run ./cmd/bench load  [--duration 10s] [--conns 32]
//	go run ./cmd/bench demo  [--bin bin/firmakit] [--n 1000] [--rate 200]
//	go run ./cmd/bench receiver [--bin bin/firmakit] ...
//	go run ./cmd/bench verdict [--bin bin/firmakit] [--hogs 4] [--runs 20] [--tags EXPR] [--faults …]
//	go run ./cmd/bench reference [--bin bin/firmakit] [--only blackhole|burst]
//	go run ./cmd/bench dashboard [--stored 1000] [--rate 200] [--duration 5s]
//	go run ./cmd/bench abuse [--bin bin/firmakit] [--only memory|slow|headers|delayed] [--duration 10s] [--ceiling 256]
//	go run ./cmd/bench sandbox [--bin bin/firmakit] [--only a|b|c|d] [--rate R] [--tls] [-- certify flags]
//	go run ./cmd/bench tests [--n 10] [go-test-json-file ...]
//	go run ./cmd/bench suite [--bin bin/firmakit] [--runs 3] [--serial=false] [--lang all] [--tags EXPR]
package main
