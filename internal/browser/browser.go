package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
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

// The shared Chromium of this process's tests (Shared), started by the
// first test that asks for a tab, stopped by StopShared.
var shared struct {
	mu   sync.Mutex
	ctx  context.Context
	stop context.CancelFunc
	dir  string
	err  error
}

// Shared returns a chromedp context on a new tab of the process's shared
// headless Chromium, in a browser context of its own (cookies, storage,
// cache: what a fresh profile would give the test), closed with the
// test. Starting a Chromium costs about 2 CPU-seconds and one was started
// per test; a package's tests now share one. Its TestMain stops it with
// StopShared (else the kernel does, with the process: the allocator's
// Pdeathsig). It fails the test when Chromium is not installed, as New.
func Shared(t T) context.Context {
	t.Helper()
	shared.mu.Lock()
	if shared.ctx == nil && shared.err == nil {
		if shared.dir, shared.err = os.MkdirTemp("", "firmakit-chromium-"); shared.err == nil {
			shared.ctx, shared.stop, shared.err = Start(shared.dir)
		}
	}
	parent, err := shared.ctx, shared.err
	shared.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatal(fmt.Errorf("open a tab of the shared chromium: %w", err))
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel() })
	return ctx
}

// StopShared stops the shared Chromium, if a test started it, and
// removes its profile; for a TestMain, once every test has run.
func StopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stop != nil {
		shared.stop()
		os.RemoveAll(shared.dir)
	}
	shared.ctx, shared.stop, shared.err = nil, nil, errors.New("the shared chromium was stopped")
}
