package dashbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit"
)

// Config is one run: Stored records before the page opens, then Rate
// notifications a second for Duration, with Clicks clicks spread over it.
type Config struct {
	URL      string // the receiver, with the demo merchant's secret
	Stored   int
	Rate     int
	Duration time.Duration
	Clicks   int
}

// Result is what a run measured.
type Result struct {
	Sent      int       // notifications sent while streaming (all answered 200)
	Stored    int64     // records the receiver holds at the end
	Total     int64     // the total the page shows at the end
	Loaded    int       // records the page holds (first page + live)
	MaxRows   int       // most row elements in the page at once
	FPS       float64   // animation frames a second while streaming
	ClickMS   []float64 // each click: ms from the click to the frame after its detail showed
	Opened    int       // clicks whose detail showed the clicked record
	StreamFor time.Duration
}

// MaxClickMS is the slowest click.
func (r Result) MaxClickMS() float64 {
	m := 0.0
	for _, v := range r.ClickMS {
		m = max(m, v)
	}
	return m
}

func (r Result) String() string {
	return fmt.Sprintf("%d stored before, %d sent in %s: %.1f frames/s, clicks %v ms (slowest %.1f), %d/%d opened the clicked record, "+
		"at most %d row elements for %d loaded, page total %d of %d stored",
		r.Stored-int64(r.Sent), r.Sent, r.StreamFor.Round(time.Millisecond), r.FPS, rounded(r.ClickMS), r.MaxClickMS(),
		r.Opened, len(r.ClickMS), r.MaxRows, r.Loaded, r.Total, r.Stored)
}

func rounded(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(int(x*10)) / 10
	}
	return out
}

var profile = firmakit.BundledProfile()

// poster sends signed notifications of the demo merchant.
type poster struct {
	url string
	n   atomic.Int64
	hc  *http.Client
}

func (p *poster) send() error {
	i := p.n.Add(1)
	body, err := profile.EncodeNotification(firmakit.Notification{EventID: fmt.Sprintf("ev-%d-%d", time.Now().UnixNano(), i),
		Type: firmakit.NotificationType, MerchantID: "merchant_demo", SignatureID: fmt.Sprintf("sig-%d", i),
		Title: "DEMO_SIGNED contrato " + strconv.FormatInt(i, 10), Status: firmakit.StateSigned, Demo: true,
		CreatedAt: time.Now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return err
	}
	req, _ := http.NewRequest("POST", p.url+"/hooks/merchant_demo", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(profile.Webhook.SignatureHeader, profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return nil
}

// measure counts frames and the most row elements in the page.
const measure = `(() => {
  window.__fk = { frames: 0, maxRows: 0 };
  (function loop() {
    window.__fk.frames++;
    const n = document.querySelectorAll("#rows tr").length;
    if (n > window.__fk.maxRows) { window.__fk.maxRows = n; }
    requestAnimationFrame(loop);
  })();
})()`

// click clicks the fourth row in view and resolves, once the frame after
// the detail showed has run, to the time it took and whether the detail is
// the clicked record's; then it closes the detail with Esc.
const click = `new Promise(resolve => {
  const rows = [...document.querySelectorAll("#rows tr")];
  const tr = rows[Math.min(3, rows.length - 1)];
  const id = tr.dataset.id, t0 = performance.now();
  tr.click();
  requestAnimationFrame(() => setTimeout(() => {
    const d = document.getElementById("detail");
    const ok = !d.hidden && d.getBoundingClientRect().width > 0 && document.getElementById("d-id").textContent === "#" + id;
    const ms = performance.now() - t0;
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    resolve({ ms, ok });
  }, 0));
})`

var countsRe = regexp.MustCompile(`^(\d+) records · (\d+) loaded`)

// Run fills the receiver, opens the dashboard in ctx (a chromedp
// context, English), streams and clicks, and waits until the page has
// every record sent. It fails when a notification is refused or the page
// never catches up.
func Run(ctx context.Context, c Config) (Result, error) {
	var res Result
	p := &poster{url: c.URL, hc: &http.Client{Timeout: 10 * time.Second}}
	if err := parallel(c.Stored, 8, p.send); err != nil {
		return res, fmt.Errorf("filling the receiver: %w", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr`)),
	); err != nil {
		return res, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](measure)); err != nil {
		return res, err
	}

	// Stream at the rate, in ticks of 10 ms, from a few senders.
	var sendErr atomic.Value
	var wg sync.WaitGroup
	jobs := make(chan struct{}, c.Rate)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if err := p.send(); err != nil {
					sendErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	start := time.Now()
	startFrames, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__fk.frames`))
	streamed := make(chan int)
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		sent := 0
		for time.Since(start) < c.Duration {
			<-tick.C
			due := int(time.Since(start).Seconds() * float64(c.Rate))
			for ; sent < due; sent++ {
				jobs <- struct{}{}
			}
		}
		close(jobs)
		streamed <- sent
	}()
	for i := range c.Clicks {
		time.Sleep(time.Until(start.Add(c.Duration * time.Duration(i+1) / time.Duration(c.Clicks+1))))
		var out struct {
			MS float64 `json:"ms"`
			OK bool    `json:"ok"`
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](click, chromedp.EvalAwaitPromise))
		if err != nil {
			return res, err
		}
		if err := json.Unmarshal(v, &out); err != nil {
			return res, err
		}
		res.ClickMS = append(res.ClickMS, out.MS)
		if out.OK {
			res.Opened++
		}
	}
	res.Sent = <-streamed
	endFrames, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__fk.frames`))
	if err != nil {
		return res, err
	}
	res.StreamFor = time.Since(start)
	res.FPS = float64(endFrames-startFrames) / res.StreamFor.Seconds()
	wg.Wait()
	if err, _ := sendErr.Load().(error); err != nil {
		return res, fmt.Errorf("sending: %w", err)
	}

	// Every record reaches the page: the total shown is what is stored.
	var st struct{ Count int64 }
	if resp, err := http.Get(c.URL + "/api/stats"); err == nil {
		_ = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
	}
	res.Stored = st.Count
	// The page loaded the newest 100 of those stored before it opened,
	// then every one streamed.
	want := fmt.Sprintf("%d records · %d loaded", st.Count, min(c.Stored, 100)+res.Sent)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("counts").textContent.startsWith(`+strconv.Quote(want)+`)`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		counts, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#counts")))
		return res, fmt.Errorf("the page shows %q, want %q", counts, want)
	}
	counts, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#counts")))
	if err != nil {
		return res, err
	}
	if m := countsRe.FindStringSubmatch(counts); m != nil {
		res.Total, _ = strconv.ParseInt(m[1], 10, 64)
		res.Loaded, _ = strconv.Atoi(m[2])
	}
	res.MaxRows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`window.__fk.maxRows`))
	return res, err
}

// parallel runs fn n times from workers goroutines; the first error wins.
func parallel(n, workers int, fn func() error) error {
	var next atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := fn(); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return err
	}
	return nil
}
