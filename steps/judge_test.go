package steps

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryCitedSentenceExists reads every breach and warning the steps
// can report (the calls of breaks and warn) and checks that the item of
// the documents each cites exists, so that a failure's citation never
// names a sentence the documents do not have. Refs made at run time
// (fieldRef, the state's row of §6.2) are checked for every value they
// take.
func TestEveryCitedSentenceExists(t *testing.T) {
	fset := token.NewFileSet()
	// Both suites cite through package engine's Breaks, BreaksAs and
	// Warn; package steps/webhook's calls are read too.
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	webhook, err := filepath.Glob("webhook/*.go")
	require.NoError(t, err)
	files = append(files, webhook...)
	consts := map[string]string{}
	called := func(c *ast.CallExpr) string {
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return f.Name
		case *ast.SelectorExpr:
			if pkg, ok := f.X.(*ast.Ident); ok && pkg.Name == "engine" {
				return strings.ToLower(f.Sel.Name[:1]) + f.Sel.Name[1:]
			}
			return f.Sel.Name // a method: sc.answerBreaks
		}
		return ""
	}
	var calls []*ast.CallExpr
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[filepath.Dir(f)+"."+name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			case *ast.CallExpr:
				if refArg(called(n)) >= 0 {
					calls = append(calls, n)
				}
			}
			return true
		})
	}
	require.Greater(t, len(calls), 60, "the steps' breaches and warnings")
	checked := 0
	for _, c := range calls {
		arg := c.Args[refArg(called(c))]
		var ref string
		switch a := arg.(type) {
		case *ast.BasicLit:
			ref, _ = strconv.Unquote(a.Value)
		case *ast.Ident:
			if a.Name == "ref" || a.Name == "basis" {
				continue // a variable: one of the constants, chosen at run time, or passed on
			}
			var ok bool
			ref, ok = consts[filepath.Dir(fset.Position(c.Pos()).Filename)+"."+a.Name]
			require.True(t, ok, "%s: %s is not a constant of the steps", fset.Position(c.Pos()), a.Name)
		default:
			continue // made at run time: checked below
		}
		_, ok := features.ItemText(ref)
		assert.True(t, ok, "%s cites %q, which no item of the documents has", fset.Position(c.Pos()), ref)
		if called(c) != "warn" {
			assert.NotEqual(t, reports.FailureRule, reports.RuleKind(ref), "%s breaks %q, of no part of the documents reports.RuleKind knows", fset.Position(c.Pos()), ref)
		}
		checked++
	}
	assert.Greater(t, checked, 50)
	for _, name := range envelopeKeys {
		_, ok := features.ItemText(fieldRef(name))
		assert.True(t, ok, "fieldRef(%q)", name)
	}
	for _, st := range []string{"CREATED", "BOUNCED", "REJECTED", "CANCELED", "SIGNED"} {
		_, ok := features.ItemText("§6.2 " + demoPrefixOf(st))
		assert.True(t, ok, st)
	}
	for _, label := range authLabels() {
		_, ok := features.ItemText(labelRef(label))
		assert.True(t, ok, label)
	}
}

// refArg is which argument of a call of breaks, breaksAs, answerBreaks or
// warn (name) is the ref it cites; -1 for a call of something else.
func refArg(name string) int {
	switch name {
	case "breaks", "answerBreaks":
		return 0
	case "breaksAs", "warn":
		return 1
	}
	return -1
}

// A failure's kind is what its step said, whatever its wording: a
// breach's own, the kind of the answer it was judged on, or else the
// kind of the rule it breaks; none for an error that is no breach, a
// network error included (the target's own are never failures but
// inconclusive: see TestAnUnreachableTargetIsInconclusiveAndSaysSo).
func TestFailureKindOf(t *testing.T) {
	sc := &scenario{status: 401, resp: map[string]any{"status_code": 401.0, "message": "Invalid signature"}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		err  error
		want reports.FailureKind
	}{
		{engine.Breaks(refCheckOK, "expected 200"), reports.FailureAuthentication},
		{engine.BreaksAs(reports.FailureNotificationLate, refDemo, "late"), reports.FailureNotificationLate},
		{sc.answerBreaks(refCheckOK, "expected 200 %q, %s", "Authenticated", "got 401"), reports.FailureInvalidSignature},
		{fmt.Errorf("reading the receiver: %w", &url.Error{Op: "Get", URL: "http://x", Err: refused}), ""},
		{errors.New("connection refused"), ""},
	} {
		assert.Equal(t, tc.want, engine.FailureKindOf(tc.err), "%v", tc.err)
	}
	sc = &scenario{status: 200, resp: map[string]any{"message": "Authenticated"}}
	assert.Equal(t, reports.FailureAuthentication, engine.FailureKindOf(sc.answerBreaks(refCheckFails, "expected 401")), "an answer of no known kind: the rule's")
}

// A target that refuses every connection leaves its scenarios
// inconclusive, never failed, and says why: the kind that explains it.
func TestAnUnreachableTargetIsInconclusiveAndSaysSo(t *testing.T) {
	addr, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := "http://" + addr.Addr().String()
	require.NoError(t, addr.Close())
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	defer rv.Close()
	target := DemoTarget(u, rv, false)
	target.Retries = 1
	s := &Suite{Target: target, RunOptions: RunOptions{Lang: "en", Tags: "@AUTH-OK", Concurrency: 2, Output: io.Discard}}
	_, err = s.Run()
	require.NoError(t, err)
	var judged int
	for _, r := range s.Results() {
		if r.Requirement != "AUTH-OK" {
			continue
		}
		judged++
		assert.Equal(t, reports.Inconclusive, r.Status, r.Error)
		assert.Equal(t, reports.FailureUnreachable, r.FailureKind, r.Error)
	}
	assert.Positive(t, judged)
	causes := reports.Causes(s.Results())
	require.NotEmpty(t, causes)
	assert.Equal(t, "unreachable", causes[0].Diagnosis)
}

// A refusal added to firmakit.Refusals reaches the steps with no other
// edit: its label cites its check, a refusal of the body may not borrow
// it, and the pre-flight says what it means.
func TestANewRefusalReachesTheSteps(t *testing.T) {
	saved := firmakit.Refusals
	firmakit.Refusals = append(append([]firmakit.Refusal(nil), saved...), firmakit.Refusal{
		Check: 5, Err: errors.New("Request replayed"), Status: http.StatusUnauthorized, Kind: "request-replayed",
		Ref: "defaults §A check 4", Row: "§7 401 Invalid signature", When: "the same signature came before"})
	t.Cleanup(func() { firmakit.Refusals = saved })
	assert.Equal(t, "defaults §A check 4", labelRef("Request replayed"))
	assert.Contains(t, authLabels(), "Request replayed")
	tg := &Target{Profile: firmakit.BundledProfile(), MerchantID: "merchant_demo"}
	assert.Contains(t, tg.refusalMeaning("http://x/v1/check/merchant_demo", http.StatusUnauthorized, "Request replayed"),
		`"Request replayed", which means the same signature came before`)
	assert.Equal(t, refRefusal, labelRef("title is required"), "a label of no refusal cites the refusals of defaults §C")
}
