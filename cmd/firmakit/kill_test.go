package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary act as firmakit itself, so that a test can
// run it as a separate process and kill it; the PostgreSQL server some
// tests start is stopped at the end.
func TestMain(m *testing.M) {
	if os.Getenv("FIRMAKIT_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(pgtest.Main(m))
}

// startReceiverProcess runs this test binary as 'firmakit receive' on
// the database db, listening on a loopback port the process picks itself,
// and returns it with the address it printed, once /healthz answers
// there. A port probed here and handed to the process could be taken by
// another test's process in between: it was, the receiver failed to
// listen, and the test talked to a receiver that was not its own.
func startReceiverProcess(t *testing.T, db string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "receive", "--listen", "127.0.0.1:0", "--db", db, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "FIRMAKIT_TEST_AS_MAIN=1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	printed, ended := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := loopbackURL.FindString(sc.Text()); u != "" {
				select {
				case printed <- u:
				default:
				}
			}
		}
	}()
	var addr string
	select {
	case u := <-printed:
		addr = strings.TrimPrefix(u, "http://")
	case <-ended:
		t.Fatal("firmakit receive ended before it printed its address")
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("firmakit receive printed no address within 10 s")
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
	return cmd, addr
}

// loopbackURL is the URL a server this test binary runs prints it
// serves on.
var loopbackURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// TestReceiverKeepsEveryAcknowledgedNotificationAcrossKill9 sends signed
// notifications from several senders, kills the receiver with SIGKILL in
// the middle, restarts it on the same database, and finds every
// notification that got a 2xx.
func TestReceiverKeepsEveryAcknowledgedNotificationAcrossKill9(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kill.db")
	proc, addr := startReceiverProcess(t, db)
	p := firmakit.BundledProfile()

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ev := fmt.Sprintf("w%d-%d", w, i)
				body, _ := p.EncodeNotification(firmakit.Notification{EventID: ev, SignatureID: "kill", Status: firmakit.StateSigned})
				req, _ := http.NewRequest("POST", "http://"+addr+"/hooks/merchant_demo", bytes.NewReader(body))
				req.Header.Set("X-Service-Signature", p.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, ev)
					mu.Unlock()
				}
			}
		}(w)
	}
	time.Sleep(700 * time.Millisecond)
	require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
	_ = proc.Wait()
	close(stop)
	wg.Wait()
	require.NotEmpty(t, acked, "the load got no 2xx before the kill")

	// On the same database; on another port, which the process picks.
	proc2, addr := startReceiverProcess(t, db)
	defer func() { proc2.Process.Signal(os.Interrupt); proc2.Wait() }()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", "http://"+addr+"/api/events/export?format=jsonl", nil)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	stored := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct {
			EventID string `json:"event_id"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		stored[r.EventID] = true
	}
	var lost []string
	for _, ev := range acked {
		if !stored[ev] {
			lost = append(lost, ev)
		}
	}
	assert.Empty(t, lost, "acknowledged but lost: %s", strings.Join(lost, ", "))
	t.Logf("%d acknowledged before kill -9, %d stored after restart", len(acked), len(stored))
}
