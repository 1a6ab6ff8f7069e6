package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
)

// benchMemory measures the in-memory receiver (the one certify runs)
// under senders of 1 MiB bodies: its peak RSS, and what it kept and
// dropped to stay within its budget.
func benchMemory(r *rig, d time.Duration, senders int) error {
	p, err := r.receiver(":memory:")
	if err != nil {
		return err
	}
	prof := firmakit.BundledProfile()
	// One 1 MiB notification (the default --max-body), signed once: the
	// senders spend their time sending, not signing.
	n := firmakit.Notification{EventID: "memory", Type: firmakit.NotificationType, MerchantID: demoMerchant.MerchantID,
		SignatureID: "memory", Status: firmakit.StateSigned, Demo: true, CreatedAt: firmakit.FormatTime(time.Now())}
	b, _ := prof.EncodeNotification(n)
	var body []byte
	for pad := 1<<20 - len(b); ; {
		n.Title = strings.Repeat("x", pad)
		body, _ = prof.EncodeNotification(n)
		if len(body) <= 1<<20 {
			break
		}
		pad -= len(body) - 1<<20
	}
	sig := prof.WebhookSignature(demoMerchant.WebhookSecrets, time.Now(), body)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders, MaxConnsPerHost: senders}}
	t := hammer(senders, d, func(int) error {
		resp, err := client.Do(hookRequest(context.Background(), p.base, demoMerchant.MerchantID, body, sig))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("answered %d", resp.StatusCode)
		}
		return nil
	})
	var st struct{ Count, Dropped int64 }
	var info struct {
		MaxBytes int64 `json:"max_bytes"`
		MaxBody  int64 `json:"max_body"`
	}
	if err := getInto(p.base+"/api/stats", &st); err != nil {
		return err
	}
	if err := getInto(p.base+"/api/info", &info); err != nil {
		return err
	}
	r.printf("%d senders of %d-byte notifications for %s: %d stored with a 200 (%.0f MB/s), %d refused or failed\n",
		senders, len(body), d, t.ok, float64(t.ok)*float64(len(body))/t.elapsed.Seconds()/1e6, t.failed)
	r.printf("in-memory store budget %d MiB: %d records kept, %d oldest dropped\n", info.MaxBytes>>20, st.Count, st.Dropped)
	r.printf("receiver peak memory (VmHWM): %s, now %s\n", peakRSS(p.pid()), residentRSS(p.pid()))
	return nil
}

// benchIdle opens idle connections to the receiver (half never send a
// byte, half after one keep-alive request), times a notification in their
// midst, and counts what the receiver still holds after wait.
func benchIdle(r *rig, conns int, wait time.Duration) error {
	p, err := r.receiver(":memory:")
	if err != nil {
		return err
	}
	addr := strings.TrimPrefix(p.base, "http://")
	open := make([]net.Conn, 0, conns)
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := 0; i < conns; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i+1, err)
		}
		open = append(open, c)
		if i%2 == 1 {
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				// Made room for a newer connection meanwhile: still counted.
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	time.Sleep(200 * time.Millisecond)
	held := sockets(p.pid())
	b, sig := notification1KiB(firmakit.BundledProfile(), "idle-round", "idle-round")
	t0 := time.Now()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(hookRequest(context.Background(), p.base, demoMerchant.MerchantID, b, sig))
	if err != nil {
		return fmt.Errorf("a notification among %d idle connections: %w", conns, err)
	}
	resp.Body.Close()
	took := time.Since(t0)
	var st struct {
		ConnectionsEvicted int64 `json:"connections_evicted"`
	}
	_ = getInto(p.base+"/api/stats", &st)
	r.printf("%d idle connections opened: the receiver holds %d of them (cap 1024 by default), %d idle ones closed to make room\n",
		conns, held-1, st.ConnectionsEvicted)
	r.printf("a notification among them: %d in %s\n", resp.StatusCode, took.Round(100*time.Microsecond))
	time.Sleep(wait)
	// All at once, each with time to see its end: a deadline already past
	// when the read starts would count an ended connection as open.
	var closed atomic.Int64
	var wg sync.WaitGroup
	for _, c := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(time.Second))
			_, err := io.Copy(io.Discard, c)
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				closed.Add(1)
			}
		}()
	}
	wg.Wait()
	r.printf("after %s idle: the receiver holds %d connections; %d of the %d were closed by it\n",
		wait, sockets(p.pid())-1, closed.Load(), conns)
	return nil
}
