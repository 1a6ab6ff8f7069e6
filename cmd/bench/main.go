// Command bench measures firmakit's figures on loopback. Every load it
// makes targets 127.0.0.1 only, is bounded in time and count, and stops by
// itself.
//
//	go run ./cmd/bench load  [--duration 10s] [--conns 32]
//	go run ./cmd/bench demo  [--bin bin/firmakit] [--n 1000] [--rate 200]
//	go run ./cmd/bench receiver [--bin bin/firmakit] ...
//	go run ./cmd/bench verdict [--bin bin/firmakit] [--hogs 4] [--runs 20] [--faults …]
//	go run ./cmd/bench reference [--bin bin/firmakit] [--only blackhole|burst]
//	go run ./cmd/bench dashboard [--stored 1000] [--rate 200] [--duration 5s]
//	go run ./cmd/bench abuse [--bin bin/firmakit] [--only memory|slow|headers|delayed] [--duration 10s] [--ceiling 256]
//	go run ./cmd/bench sandbox [--bin bin/firmakit] [--only a|b|c] [--rate R] [--tls] [-- certify flags]
//	go run ./cmd/bench tests [--n 10] [go-test-json-file ...]
//	go run ./cmd/bench suite [--bin bin/firmakit] [--runs 3] [--serial=false]
package main

import (
	"fmt"
	"github.com/firmakit/firmakit"
	"os"
)

// demoMerchant is the bundled demo merchant every round talks as.
var demoMerchant = firmakit.Demo()

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench load|demo|receiver|reference|verdict|dashboard|sandbox|abuse|tests|suite [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "load":
		err = runLoad(os.Args[2:])
	case "demo":
		err = runDemo(os.Args[2:])
	case "receiver":
		err = runReceiver(os.Args[2:])
	case "verdict":
		err = runVerdict(os.Args[2:])
	case "reference":
		err = runReference(os.Args[2:])
	case "dashboard":
		err = runDashboard(os.Args[2:])
	case "sandbox":
		err = runSandbox(os.Args[2:])
	case "abuse":
		err = runAbuse(os.Args[2:])
	case "tests":
		err = runTests(os.Args[2:])
	case "suite":
		err = runSuite(os.Args[2:])
	default:
		err = fmt.Errorf("unknown benchmark %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
