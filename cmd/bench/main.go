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
		fmt.Fprintln(os.Stderr, "usage: bench load|demo|receiver|reference|verdict|dashboard|sandbox|abuse [flags]")
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
	default:
		err = fmt.Errorf("unknown benchmark %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
