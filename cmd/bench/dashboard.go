package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/internal/dashbench"
	"github.com/firmakit/firmakit/receiver"
)

// runDashboard measures the receiver's dashboard in headless Chromium:
// --stored records, then --rate notifications a second for --duration,
// clicking rows meanwhile. It fails below --min-fps frames a second or
// when a click takes --max-click or more to show its record.
func runDashboard(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("dashboard", flag.ExitOnError)
	stored := fs.Int("stored", 1000, "records stored before the page opens")
	rate := fs.Int("rate", 200, "notifications per second while measuring")
	duration := fs.Duration("duration", 5*time.Second, "how long the stream runs")
	clicks := fs.Int("clicks", 10, "clicks on rows while streaming")
	minFPS := fs.Float64("min-fps", 30, "frames per second the page must keep")
	maxClick := fs.Duration("max-click", 100*time.Millisecond, "time a click may take to show its record")
	_ = fs.Parse(args)
	return withRig(out, "", func(r *rig) error {
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: r.file("dash.db")}
		if err := r.open(rv); err != nil {
			return err
		}
		ctx, stop, err := browser.Start(r.file("chromium"))
		if err != nil {
			return err
		}
		defer stop()
		res, err := dashbench.Run(ctx, dashbench.Config{URL: rv.URL(), Stored: *stored, Rate: *rate, Duration: *duration, Clicks: *clicks})
		if err != nil {
			return err
		}
		r.printf("%s\n", res)
		switch {
		case res.FPS < *minFPS:
			return fmt.Errorf("%.1f frames/s, under %.0f", res.FPS, *minFPS)
		case res.MaxClickMS() >= float64(maxClick.Milliseconds()):
			return fmt.Errorf("a click took %.1f ms to show its record, not under %s", res.MaxClickMS(), *maxClick)
		case res.Opened != len(res.ClickMS):
			return fmt.Errorf("%d of %d clicks did not show the clicked record", len(res.ClickMS)-res.Opened, len(res.ClickMS))
		case res.Total != res.Stored:
			return fmt.Errorf("the page shows a total of %d, %d are stored", res.Total, res.Stored)
		}
		r.printf("ok: at least %.0f frames/s and every click under %s\n", *minFPS, *maxClick)
		return nil
	})
}
