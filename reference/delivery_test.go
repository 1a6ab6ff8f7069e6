package reference_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type hit struct {
	at     time.Time
	header http.Header
	body   []byte
}

// sink is a webhook endpoint that records what it gets and answers the
// statuses it is told, in order, then 200.
type sink struct {
	mu       sync.Mutex
	hits     []hit
	statuses []int
	got      chan struct{}
}

func newSink(t *testing.T, statuses ...int) (*sink, string) {
	sk := &sink{statuses: statuses, got: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sk.mu.Lock()
		sk.hits = append(sk.hits, hit{time.Now(), r.Header.Clone(), b})
		st := 200
		if len(sk.statuses) > 0 {
			st, sk.statuses = sk.statuses[0], sk.statuses[1:]
		}
		sk.mu.Unlock()
		w.WriteHeader(st)
		sk.got <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return sk, srv.URL + "/hook"
}

func (sk *sink) wait(t *testing.T, n int, within time.Duration) []hit {
	t.Helper()
	deadline := time.After(within)
	for i := 0; i < n; i++ {
		select {
		case <-sk.got:
		case <-deadline:
			t.Fatalf("expected %d notifications within %s, got %d", n, within, i)
		}
	}
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return append([]hit(nil), sk.hits...)
}

func openWithWebhook(t *testing.T, url string, change func(*reference.Server)) *reference.Server {
	return MustOpenServer(t, func(s *reference.Server) {
		s.Config = reference.DemoConfig()
		require.NoError(t, s.Config.SetWebhook("merchant_demo", url))
		if change != nil {
			change(s)
		}
	})
}

func createDemo(t *testing.T, s *reference.Server, title string) (firmakit.Envelope, time.Time) {
	t.Helper()
	quoted, _ := json.Marshal(title)
	body := strings.Replace(createBody, `"Contrato 42"`, string(quoted), 1)
	status, out, raw := signed("/v1/signature/merchant_demo", body).do(t, s.URL())
	require.Equal(t, 201, status, raw)
	return *out.Data, time.Now()
}

func TestDemoNotifications(t *testing.T) {
	p := firmakit.BundledProfile()
	for _, st := range firmakit.States {
		t.Run(string(st), func(t *testing.T) {
			sk, url := newSink(t)
			s := openWithWebhook(t, url, nil)
			before := time.Now()
			env, created := createDemo(t, s, st.DemoPrefix()+" contrato ñ 😀")
			h := sk.wait(t, 1, 3*time.Second)[0]
			// The timer starts once the 201 is on the wire, between before
			// and created: never sooner than 500 ms after before.
			assert.GreaterOrEqual(t, h.at.Sub(before), 500*time.Millisecond)
			assert.Less(t, h.at.Sub(created), 1500*time.Millisecond)
			assert.Equal(t, "application/json", h.header.Get("Content-Type"))
			require.NoError(t, p.VerifyWebhook(h.header.Get("X-Service-Signature"), h.body, []string{"whsec_test_demo"}, time.Now()))
			n, raw, err := p.DecodeNotification(h.body)
			require.NoError(t, err)
			assert.Equal(t, st, n.Status)
			assert.Equal(t, env.SignatureID, n.SignatureID)
			assert.Equal(t, env.Title, n.Title)
			assert.Equal(t, "merchant_demo", n.MerchantID)
			assert.Equal(t, firmakit.NotificationType, n.Type)
			assert.True(t, n.Demo)
			assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, n.CreatedAt)
			_, hasURL := raw["document_url"]
			_, hasReason := raw["reason"]
			assert.Equal(t, st.HasDocumentURL(), hasURL)
			assert.Equal(t, st.HasReason(), hasReason)
			if st.HasReason() {
				assert.NotEmpty(t, n.Reason)
			}
			assert.NotContains(t, string(h.body), "null")
			if st == firmakit.StateSigned {
				assert.Equal(t, s.URL()+"/demo/documents/"+env.SignatureID+".pdf", n.DocumentURL)
				resp, err := http.Get(n.DocumentURL)
				require.NoError(t, err)
				pdf, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, 200, resp.StatusCode)
				assert.Equal(t, "application/pdf", resp.Header.Get("Content-Type"))
				assert.True(t, strings.HasPrefix(string(pdf), "%PDF-1.4"))
			}
			// Exactly one notification.
			time.Sleep(300 * time.Millisecond)
			assert.Len(t, sk.wait(t, 0, 0), 1)
			d := s.Deliveries()
			require.Len(t, d, 1)
			assert.Equal(t, reference.OutcomeDelivered, d[0].Outcome)
			assert.Equal(t, n.EventID, d[0].EventID)
		})
	}
}

func TestNonDemoTitlesGetNoNotification(t *testing.T) {
	sk, url := newSink(t)
	s := openWithWebhook(t, url, func(s *reference.Server) { s.DemoDelay = 50 * time.Millisecond })
	for _, title := range []string{"demo_signed x", "x DEMO_SIGNED", "DEMO_SIGN", " DEMO_SIGNED", "Contrato"} {
		createDemo(t, s, title)
	}
	time.Sleep(400 * time.Millisecond)
	assert.Empty(t, sk.wait(t, 0, 0))
	assert.Empty(t, s.Deliveries())
}

func TestDeliveryRetriesKeepEventID(t *testing.T) {
	p := firmakit.BundledProfile()
	sk, url := newSink(t, 500, 503)
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		s.RetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	})
	createDemo(t, s, "DEMO_CANCELED retry")
	hits := sk.wait(t, 3, 3*time.Second)
	var ids []string
	for _, h := range hits {
		require.NoError(t, p.VerifyWebhook(h.header.Get("X-Service-Signature"), h.body, []string{"whsec_test_demo"}, time.Now()))
		var n struct {
			EventID string `json:"event_id"`
		}
		require.NoError(t, json.Unmarshal(h.body, &n))
		ids = append(ids, n.EventID)
	}
	assert.Equal(t, ids[0], ids[1])
	assert.Equal(t, ids[0], ids[2])
	require.Eventually(t, func() bool { return s.Deliveries()[0].Outcome == reference.OutcomeDelivered }, time.Second, 10*time.Millisecond)
	d := s.Deliveries()[0]
	require.Len(t, d.Attempts, 3)
	assert.Equal(t, 500, d.Attempts[0].StatusCode)
	assert.Equal(t, "answered 500", d.Attempts[0].Error)
	assert.Equal(t, 200, d.Attempts[2].StatusCode)
	assert.True(t, d.Attempts[1].At.Sub(d.Attempts[0].At) >= 20*time.Millisecond)

	// And the sandbox endpoint shows the same.
	resp, err := http.Get(s.URL() + "/_sandbox/deliveries?event_id=" + d.EventID)
	require.NoError(t, err)
	defer resp.Body.Close()
	var listed struct {
		Count      int                  `json:"count"`
		Deliveries []reference.Delivery `json:"deliveries"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&listed))
	assert.Equal(t, 1, listed.Count)
	assert.Len(t, listed.Deliveries[0].Attempts, 3)
}

func TestDeliveryGivesUpAfterSchedule(t *testing.T) {
	sk, url := newSink(t, 500, 500, 500)
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 5 * time.Millisecond
		s.RetrySchedule = []time.Duration{5 * time.Millisecond, 5 * time.Millisecond}
	})
	createDemo(t, s, "DEMO_BOUNCED")
	sk.wait(t, 3, 2*time.Second)
	require.Eventually(t, func() bool { return s.Deliveries()[0].Outcome == reference.OutcomeFailed }, time.Second, 5*time.Millisecond)
	assert.Len(t, s.Deliveries()[0].Attempts, 3)
}

func TestNoWebhookIsRecordedAsFailed(t *testing.T) {
	s := MustOpenServer(t, nil)
	createDemo(t, s, "DEMO_SIGNED")
	d := s.Deliveries()
	require.Len(t, d, 1)
	assert.Equal(t, reference.OutcomeFailed, d[0].Outcome)
	assert.Contains(t, d[0].Attempts[0].Error, "no signature_webhook configured for merchant merchant_demo")
}

func TestCloseFinishesPendingDeliveries(t *testing.T) {
	sk, url := newSink(t)
	s := openWithWebhook(t, url, func(s *reference.Server) { s.DemoDelay = time.Hour })
	createDemo(t, s, "DEMO_CREATED at shutdown")
	require.NoError(t, s.Close())
	assert.Len(t, sk.wait(t, 1, time.Second), 1)
	assert.Equal(t, reference.OutcomeDelivered, s.Deliveries()[0].Outcome)
}

func TestDemoDocumentIsAValidPDF(t *testing.T) {
	s := MustOpenServer(t, nil)
	env, _ := createDemo(t, s, "DEMO_SIGNED (paréntesis) \\ ñandú 😀")
	resp, err := http.Get(s.URL() + "/demo/documents/" + env.SignatureID + ".pdf")
	require.NoError(t, err)
	pdf, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	checkPDFStructure(t, pdf)

	// A real PDF reader opens it and finds the title and the signers.
	pdftotext, err := exec.LookPath("pdftotext")
	require.NoError(t, err, "pdftotext (Debian poppler-utils) is needed to open the PDF; `make deps` installs it")
	cmd := exec.Command(pdftotext, "-", "-")
	cmd.Stdin = strings.NewReader(string(pdf))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "DEMO_SIGNED (paréntesis) \\ ñandú ?")
	assert.Contains(t, string(out), "signer_1: Ana Pérez <ana@example.com>")
	assert.Contains(t, string(out), env.SignatureID)

	for _, path := range []string{"/demo/documents/nope.pdf", "/demo/documents/" + env.SignatureID} {
		status, _, raw := call{method: "GET", path: path}.do(t, s.URL())
		assert.Equal(t, 404, status, raw)
	}
}

// checkPDFStructure checks that every xref offset points at its object.
func checkPDFStructure(t *testing.T, pdf []byte) {
	t.Helper()
	s := string(pdf)
	require.True(t, strings.HasPrefix(s, "%PDF-1.4\n"))
	require.True(t, strings.HasSuffix(s, "%%EOF\n"))
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindStringSubmatch(s)
	require.NotNil(t, m)
	xref, _ := strconv.Atoi(m[1])
	require.True(t, strings.HasPrefix(s[xref:], "xref\n0 7\n"))
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllStringSubmatch(s[xref:], -1)
	require.Len(t, entries, 6)
	for i, e := range entries {
		off, _ := strconv.Atoi(e[1])
		assert.True(t, strings.HasPrefix(s[off:], strconv.Itoa(i+1)+" 0 obj\n"), "object %d at %d", i+1, off)
	}
}
