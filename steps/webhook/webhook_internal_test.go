package webhook

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrittenAs: every layout is the same JSON value in other bytes, and
// each departs from the compact encoding the way its name says.
func TestWrittenAs(t *testing.T) {
	p := firmakit.BundledProfile()
	n := firmakit.Notification{EventID: "e1", Type: firmakit.NotificationType, MerchantID: "m", SignatureID: "s1",
		Title: "DEMO_SIGNED Contrato 42 — Ñuñoa 🖋", Status: firmakit.StateSigned, DocumentURL: "https://x.test/a/b.pdf", Demo: true,
		CreatedAt: "2026-11-22T10:00:00.512Z"}
	compact, err := p.EncodeNotification(n)
	require.NoError(t, err)
	var want any
	require.NoError(t, json.Unmarshal(compact, &want))
	for layout, mark := range map[string]string{
		"keys-reversed":   `{"type": "signature.status", "title": `,
		"indented":        "{\n    \"created_at\": ",
		"escaped-unicode": `42 \u2014 \u00d1u\u00f1oa \ud83d\udd8b"`,
		"escaped-slash":   `"https:\/\/x.test\/a\/b.pdf"`,
	} {
		b, err := writtenAs(compact, layout)
		require.NoError(t, err, layout)
		assert.NotEqual(t, compact, b, layout)
		assert.Contains(t, string(b), mark, layout)
		var got any
		require.NoError(t, json.Unmarshal(b, &got), layout)
		assert.Equal(t, want, got, "%s: the same value", layout)
		var c bytes.Buffer
		require.NoError(t, json.Compact(&c, b))
		if layout == "escaped-unicode" || layout == "escaped-slash" {
			assert.NotEqual(t, compact, c.Bytes(), "%s: no re-encoding gives the bytes back", layout)
		}
	}
	_, err = writtenAs(compact, "sideways")
	assert.Error(t, err)
}

func TestRedactWebhookSignature(t *testing.T) {
	p := firmakit.BundledProfile()
	for in, want := range map[string]string{
		"t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16": "t=1763805600,v1=<redacted>",
		"t=1763805600,v1=aa,v1=bb":   "t=1763805600,v1=<redacted>,v1=<redacted>",
		"v1=aa":                      "v1=<redacted>",
		"t=1763805600":               "t=1763805600",
		"1763805600,6b3109b25146342": "1763805600,<redacted>",
		"t=now,v1=aa":                "t=now,v1=<redacted>",
		"":                           `"" (empty)`,
	} {
		assert.Equal(t, want, redactWebhookSignature(p, in), in)
	}
}

// TestStraddles: an answer about a t near the tolerance is no verdict
// when, depending on when in the exchange the endpoint read its clock, t
// could have lain on either side of it.
func TestStraddles(t *testing.T) {
	w := &webhookSteps{E: &Endpoint{}}
	at := time.Unix(1795000000, 200e6)
	d := func(offset int64, took time.Duration) *delivery {
		return &delivery{t: at.Unix() + offset, signedAt: at, sentAt: at, latency: took}
	}
	for _, tc := range []struct {
		offset int64
		took   time.Duration
		inside bool
		want   bool
	}{
		{-290, 50 * time.Millisecond, true, false},  // refused in time: a failure
		{290, 50 * time.Millisecond, true, false},   // likewise ahead
		{-290, 10 * time.Second, true, true},        // 300 s old by the answer
		{290, 10 * time.Second, true, false},        // ahead, t only comes nearer
		{-310, 50 * time.Millisecond, false, false}, // accepted in time: a failure
		{310, 50 * time.Millisecond, false, false},
		{310, 10 * time.Second, false, true}, // came within 300 s by the answer
		{-310, 10 * time.Second, false, false},
	} {
		assert.Equal(t, tc.want, w.straddles(d(tc.offset, tc.took), tc.inside), "t %+d s, answer after %s", tc.offset, tc.took)
	}
}

// TestEndpointClientBoundsTheAnswerHeaders: the endpoint's default
// client refuses an answer with 1 MiB of headers; one within the bound
// is read.
func TestEndpointClientBoundsTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	_, err := probe(t.Context(), &Endpoint{URL: bomb.URL, Secret: "s"}, "sig-1", "1700000000")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response headers exceeded")
	fine := httptest.NewServer(peer.HeaderBomb(16 << 10))
	defer fine.Close()
	status, err := probe(t.Context(), &Endpoint{URL: fine.URL, Secret: "s"}, "sig-1", "1700000000")
	require.NoError(t, err)
	assert.Equal(t, 200, status)
}

// godog reports every step of the webhook set at the file of its own
// method, as it does the service set's (package steps has the twin of
// this test): the methods are read from the source, the locations from
// godog's own list of definitions.
func TestEveryStepIsReportedAtItsMethodsFile(t *testing.T) {
	list, err := Sentences()
	require.NoError(t, err)
	require.Len(t, list, 35, "the webhook set's sentences")
	methods := map[string]string{}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && types.ExprString(fd.Recv.List[0].Type) == "*webhookSteps" {
				methods[fd.Name.Name] = name
			}
		}
	}
	var out bytes.Buffer
	godog.TestSuite{ScenarioInitializer: (&webhookSteps{}).InitializeScenario,
		Options: &godog.Options{ShowStepDefinitions: true, NoColors: true, Format: "progress", Output: &out}}.Run()
	reported := regexp.MustCompile(`# ((\S+\.go):\d+)`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, reported, 2*len(list), "godog lists both sentences of each step")
	for i, s := range list {
		file, ok := methods[s.Method]
		require.True(t, ok, "no method %s in the source", s.Method)
		assert.Equal(t, file, reported[2*i][2], "godog reports %s (%q) at its method's file", s.Method, s.English)
		assert.Equal(t, file, reported[2*i+1][2], "godog reports %s (%q) at its method's file", s.Method, s.Spanish)
		assert.Equal(t, reported[2*i][1], s.Location)
	}
}
