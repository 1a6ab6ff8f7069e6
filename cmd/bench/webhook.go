package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
)

// runWebhook measures certify-webhook, both languages, against an
// endpoint that verifies every notification with the bundled profile and
// answers after a delay: at once, and as slowly as the flag says. Each
// run's wall time is printed beside its floor, the longest chain of
// deliveries one scenario must wait for in turn (the six events of one
// contract of @WH-EVENTS-OVER-TIME, each answered after the delay).
func runWebhook(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("webhook", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	runs := fs.Int("runs", 3, "runs for each delay")
	slow := fs.Duration("delay", 3*time.Second, "the slow endpoint's delay before each answer")
	lang := fs.String("lang", "all", "the languages certify-webhook runs")
	_ = fs.Parse(args)
	for _, delay := range []time.Duration{0, *slow} {
		url, stop, err := slowEndpoint(delay)
		if err != nil {
			return err
		}
		floor := 6 * delay
		fmt.Fprintf(out, "endpoint answering after %s: floor %.1f s (six deliveries in turn, each answered after the delay)\n", delay, floor.Seconds())
		for i := 1; i <= *runs; i++ {
			wall, line, err := certifyRun(context.Background(), *bin, "certify-webhook", "--endpoint", url, "--webhook-secret", benchSecret,
				"--lang", *lang, "--format", "firmakit")
			if err != nil {
				stop()
				return err
			}
			ratio := ""
			if floor > 0 {
				ratio = fmt.Sprintf(", %.2fx the floor", wall.Seconds()/floor.Seconds())
			}
			fmt.Fprintf(out, "run %d: wall time %.1f s%s; %s\n", i, wall.Seconds(), ratio, line)
		}
		stop()
	}
	return nil
}

// benchSecret is the slow endpoint's webhook secret.
const benchSecret = "whsec_bench_endpoint"

// slowEndpoint starts, on loopback, an endpoint that verifies each
// notification under the bundled profile and answers 204, or 401 to one
// that does not verify, after delay.
func slowEndpoint(delay time.Duration) (url string, stop func(), err error) {
	p := firmakit.BundledProfile()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		status := http.StatusNoContent
		if err != nil || p.VerifyWebhookHeaders(r.Header, body, []string{benchSecret}, time.Now()) != nil {
			status = http.StatusUnauthorized
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.WriteHeader(status)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/webhook", func() { _ = srv.Close() }, nil
}
