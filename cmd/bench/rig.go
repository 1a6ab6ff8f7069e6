package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/firmakit/firmakit/internal/freeport"
	"github.com/firmakit/firmakit/internal/pgtest"
)

// rig starts what a round measures, on loopback, and stops all of it when
// the round ends: the firmakit binary's reference ('firmakit serve') and
// receiver ('firmakit receive') as processes of their own, in-process
// servers (the reference, a receiver, a gateway), plain HTTP servers, and
// PostgreSQL databases. Every round runs in a rig of its own (withRig), so
// that nothing one round started weighs on the next one's figures.
type rig struct {
	// bin is the firmakit binary (make build); empty for rounds that
	// start firmakit's servers in-process only.
	bin string
	// dir is a temporary folder, removed at close.
	dir string
	// out is where the round prints its figures.
	out io.Writer

	pg    *pgtest.Server
	dbs   int
	stops []func()
}

// withRig runs round in a new rig that prints to out, and stops what the
// round started, the last first, however it ended.
func withRig(out io.Writer, bin string, round func(r *rig) error) error {
	dir, err := os.MkdirTemp("", "firmakit-bench-")
	if err != nil {
		return err
	}
	r := &rig{bin: bin, dir: dir, out: out}
	defer func() {
		for i := len(r.stops) - 1; i >= 0; i-- {
			r.stops[i]()
		}
		os.RemoveAll(dir)
	}()
	return round(r)
}

// printf prints a line of the round's figures.
func (r *rig) printf(format string, a ...any) { fmt.Fprintf(r.out, format, a...) }

// file is the path of a file of the round in its temporary folder, such
// as a receiver's SQLite database.
func (r *rig) file(name string) string { return filepath.Join(r.dir, name) }

// server is a server that runs in the bench's process: a
// *reference.Server, a *receiver.Receiver or a *gateway.Server.
type server interface {
	Open() error
	Close() error
}

// open opens an in-process server, closed when the round ends.
func (r *rig) open(s server) error {
	if err := s.Open(); err != nil {
		return err
	}
	r.stops = append(r.stops, func() { s.Close() })
	return nil
}

// serve serves h on a free loopback port until the round ends, and
// returns its base URL: a webhook sink, a bare handler to compare with, a
// hostile peer.
func (r *rig) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	r.stops = append(r.stops, func() { srv.Close() })
	return "http://" + ln.Addr().String(), nil
}

// database makes a new database on a PostgreSQL server of the round's own
// (Debian's, started in a temporary folder as the tests do, on first
// use) and returns its URL.
func (r *rig) database() (string, error) {
	if r.pg == nil {
		pg, err := pgtest.Start()
		if err != nil {
			return "", err
		}
		r.pg = pg
		r.stops = append(r.stops, pg.Stop)
	}
	r.dbs++
	return r.pg.CreateDatabase(fmt.Sprintf("bench_%d", r.dbs))
}

// reference starts the reference server as its own process, 'firmakit
// serve' with the demo merchant's webhook at webhook and extra flags. Its
// log (errors only, unless extra says otherwise) is counted, not shown:
// a flood of failed deliveries would fill the terminal.
func (r *rig) reference(webhook string, extra ...string) (*proc, error) {
	return r.start("serve", "--addr", append([]string{"--webhook-url", demoMerchant.MerchantID + "=" + webhook, "--log-level", "error"}, extra...), io.Discard)
}

// receiver starts the receiver as its own process, 'firmakit receive' on
// the database db (a file, :memory: or a PostgreSQL URL), keeping every
// record, with extra flags. Its warnings go to standard error.
func (r *rig) receiver(db string, extra ...string) (*proc, error) {
	return r.start("receive", "--listen", append([]string{"--db", db, "--log-level", "warn", "--max-events", "0"}, extra...), os.Stderr)
}

// start runs 'firmakit command' listening on a loopback port the process
// picks itself (the flag listen set to 127.0.0.1:0) with args, its log
// passed on to log, and waits until the URL it prints answers /healthz.
// A port probed here and handed to the process could be taken by a
// process of another test in between; the process would then fail to
// listen, and a round would measure the other process.
func (r *rig) start(command, listen string, args []string, log io.Writer) (*proc, error) {
	lc := &lineCounter{w: log}
	cmd := exec.Command(r.bin, append([]string{command, listen, "127.0.0.1:0"}, args...)...)
	cmd.Stderr = lc
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w (run make build first)", r.bin, err)
	}
	p := &proc{cmd: cmd, stderr: lc, exited: make(chan struct{})}
	base := make(chan string, 1)
	go func() {
		// Waiting for the process reads its output to the end first.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := loopbackURL.FindString(sc.Text()); u != "" {
				select {
				case base <- u:
				default:
				}
			}
		}
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		close(p.exited)
	}()
	r.stops = append(r.stops, func() { p.stop() })
	select {
	case p.base = <-base:
	case <-p.exited:
		return nil, fmt.Errorf("firmakit %s exited at start: %s", command, strings.Join(lc.firstLines(), " / "))
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("firmakit %s printed no address within 10 s", command)
	}
	if err := waitUp(p.base + "/healthz"); err != nil {
		return nil, err
	}
	return p, nil
}

// loopbackURL is the URL a server started by start prints it serves on.
var loopbackURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// proc is a firmakit server run as its own process.
type proc struct {
	cmd    *exec.Cmd
	base   string
	stderr *lineCounter
	exited chan struct{}
}

// pid is the process's id, for reading its memory and descriptors.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop interrupts the server and returns how long it took to exit; one
// that does not within 30 s is killed. A server that has exited already
// takes no time.
func (p *proc) stop() time.Duration {
	start := time.Now()
	select {
	case <-p.exited:
		return 0
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	return time.Since(start)
}

// kill ends the server with SIGKILL, as a crash would, and waits for it.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// lineCounter passes on what a process writes to w, counting its lines
// and keeping the first few.
type lineCounter struct {
	w     io.Writer
	mu    sync.Mutex
	lines int
	first []string
}

// firstLines returns the first lines written.
func (l *lineCounter) firstLines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.first...)
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, "\n") {
			l.lines++
		}
		if len(l.first) < 3 {
			l.first = append(l.first, strings.TrimSpace(line))
		}
	}
	return l.w.Write(p)
}

// freeAddr is a loopback address nothing listens on (freeport.Addr).
func freeAddr() (string, error) { return freeport.Addr() }

// waitUp waits up to 5 s for url to answer.
func waitUp(url string) error {
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New(url + " did not come up")
}
