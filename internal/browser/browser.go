package browser

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// T is what New needs of a test: testing.TB has it, and asking for no
// more keeps the testing package out of every binary that imports this.
type T interface {
	Helper()
	TempDir() string
	Fatal(args ...any)
	Cleanup(func())
}

// New returns a chromedp context on a fresh headless Chromium, closed with
// the test. It fails the test when Chromium is not installed: `make deps`
// installs Debian's chromium package.
func New(t T) context.Context {
	t.Helper()
	ctx, cancel, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel() })
	return ctx
}

// Start starts a headless Chromium with its profile in dir and a 1400×900
// window, for measurement commands; cancel stops it. It fails when
// Chromium is not installed (`make deps` installs Debian's chromium).
func Start(dir string) (context.Context, context.CancelFunc, error) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		return nil, nil, errors.New("no Chromium found: install Debian's chromium package (make deps)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1400, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	stop := func() { cancel(); cancelAlloc() }
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start chromium: %w", err)
	}
	return ctx, stop, nil
}
