package explore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
)

// The two endpoints a Request goes to (interface §4.1 and §4.2).
const (
	Check  = "check"     // POST /{api_version}/check/{merchant_id}
	Create = "signature" // POST /v1/signature/{merchant_id}
)

// createVersion is the literal version segment of the create path
// (interface §4.2 and §9).
const createVersion = "v1"

// What a change drawn on a valid request does to it: the check of
// defaults.md A it makes fail (1 to 4), a body the service must refuse
// (check 5 or defaults.md C), none (still valid), a body that the
// documents let the service accept or refuse (open: a refusal is still a
// 400), or a body over 1 MiB (413, at a place among checks 1 to 4 that
// the documents leave open).
const (
	valid            = 0
	checkHeaders     = 1
	checkTimestamp   = 2
	checkCredentials = 3
	checkSignature   = 4
	checkBody        = 5
	open             = 6
	overLimit        = 7
)

// maxBody is the largest body defaults.md A lets through: "A body over 1
// MiB is refused with 413".
const maxBody = 1 << 20

// change is one thing drawn on a valid request: in words, for the row
// that pins a finding, with the check it makes fail and, for a body that
// must be refused, the sentence that says so.
type change struct {
	words string
	check int
	ref   string
}

// Request is one generated request: a valid signed request to one of the
// endpoints with the changes drawn on it. Its fields are what 'firmakit
// sign' takes to send the same request again.
type Request struct {
	// Endpoint is Check or Create; Merchant the merchant segment of its
	// path; Query, when set, the raw query of its URL.
	Endpoint, Merchant, Query string
	// Cred signs the request; credential tells which one it is, for the
	// line that sends it again (see secretArg).
	Cred       firmakit.Credential
	credential string
	// Offset moves the timestamp from now, in seconds. Stamp, when set,
	// is the timestamp's written form (firmakit.TimestampText) instead.
	Offset int64
	Stamp  string
	// Omit and Empty are the authentication headers left out and sent
	// empty, by role: key, timestamp, signature.
	Omit, Empty []string
	// SigForm writes the signature otherwise (firmakit.RewriteSignature);
	// "" leaves it as the profile writes it.
	SigForm string
	// Body is the body as drawn; PadTo, when over its length, is the
	// size it is sent at, padded with spaces (see Sent).
	Body    []byte
	PadTo   int
	changes []change
	sent    []byte
}

// Sent is the body as sent, byte for byte: Body padded to PadTo with
// spaces before its final "}", so that an object stays the same object,
// or at its end.
func (r *Request) Sent() []byte {
	if r.PadTo <= len(r.Body) {
		return r.Body
	}
	if r.sent == nil {
		pad := bytes.Repeat([]byte(" "), r.PadTo-len(r.Body))
		if n := len(r.Body); n > 0 && r.Body[n-1] == '}' {
			r.sent = append(append(append(make([]byte, 0, r.PadTo), r.Body[:n-1]...), pad...), '}')
		} else {
			r.sent = append(append(make([]byte, 0, r.PadTo), r.Body...), pad...)
		}
	}
	return r.sent
}

// Credentials a Request is signed with (Request.credential).
const (
	credOwn      = "own"
	credOther    = "other"
	credDisabled = "disabled"
	credUnknown  = "unknown"
)

// unknownCredential is a key no target knows, with a made-up secret.
var unknownCredential = firmakit.Credential{KeyID: "firmakit_unknown_key", Secret: "firmakit_unknown_secret"}

// note adds a change to the request.
func (r *Request) note(words string, check int, ref string) {
	r.changes = append(r.changes, change{words: words, check: check, ref: ref})
}

// path is the request's target on the wire, its path and query, which
// is signed as sent.
func (r *Request) path(apiVersion string) string {
	query := ""
	if r.Query != "" {
		query = "?" + r.Query
	}
	if r.Endpoint == Check {
		if apiVersion == "" {
			apiVersion = "v1"
		}
		return "/" + apiVersion + "/check/" + r.Merchant + query
	}
	return "/" + createVersion + "/signature/" + r.Merchant + query
}

// build makes the HTTP request signed at now under the profile, as
// 'firmakit sign' with the flags of Command signs it.
func (r *Request) build(ctx context.Context, p *firmakit.Profile, baseURL, apiVersion string, now time.Time) (*http.Request, error) {
	path := r.path(apiVersion)
	body := r.Sent()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(baseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	parts := firmakit.RequestParts{Method: http.MethodPost, RequestTarget: path, Body: body}
	if _, err := p.SignHeaders(req.Header, r.Cred.KeyID, r.Cred.Secret, parts, now.Add(time.Duration(r.Offset)*time.Second),
		firmakit.Otherwise{Stamp: r.Stamp, SigForm: r.SigForm, Omit: r.Omit, Empty: r.Empty}); err != nil {
		return nil, err
	}
	return req, nil
}

// key tells requests apart: two requests with the same key are sent
// alike (but for the time of their timestamp).
func (r *Request) key() string {
	sum := sha256.Sum256(r.Body)
	return strings.Join([]string{r.Endpoint, r.Merchant, r.Query, r.Cred.KeyID, r.Cred.Secret, strconv.FormatInt(r.Offset, 10), r.Stamp,
		strings.Join(r.Omit, ","), strings.Join(r.Empty, ","), r.SigForm, hex.EncodeToString(sum[:]), strconv.Itoa(r.PadTo)}, "\x00")
}

// Words says what was changed on a valid request, "" for nothing.
func (r *Request) Words() string {
	var w []string
	for _, c := range r.changes {
		w = append(w, c.words)
	}
	return strings.Join(w, "; ")
}

// Line is how a finding's request is written again: the command that
// sends it and what it needs to.
type Line struct {
	// BaseURL is the target's base URL as the line names it.
	BaseURL string
	// Profile is the --profile the run was given ("" for the bundled one).
	Profile string
	// APIVersion is the check path's version segment.
	APIVersion string
	// BodyFile, when set, is a file holding the body, which the line
	// names instead of writing a long body out.
	BodyFile string
}

// Command is the 'firmakit sign --curl' command line that prints the
// curl command sending the request again. Secrets are never written out:
// the demo merchant's are published test data and are written as they
// are; any other is named by its FIRMAKIT_ environment variable, which
// the shell fills in.
func (r *Request) Command(l Line) string {
	args := []string{"firmakit", "sign", "--curl", "--url", firmakit.ShellQuote(strings.TrimRight(l.BaseURL, "/") + r.path(l.APIVersion))}
	if l.Profile != "" {
		args = append(args, "--profile", firmakit.ShellQuote(l.Profile))
	}
	if demo := firmakit.Demo().Credential; r.Cred.KeyID != demo.KeyID || r.Cred.Secret != demo.Secret {
		args = append(args, "--key", firmakit.ShellQuote(r.Cred.KeyID), "--secret", r.secretArg())
	}
	switch {
	case r.Stamp != "":
		args = append(args, "--timestamp-text", firmakit.ShellQuote(r.Stamp))
	case r.Offset != 0:
		args = append(args, "--timestamp-offset", strconv.FormatInt(r.Offset, 10)+"s")
	}
	for _, role := range r.Omit {
		args = append(args, "--omit", role)
	}
	for _, role := range r.Empty {
		args = append(args, "--empty", role)
	}
	if r.SigForm != "" {
		args = append(args, "--signature-form", r.SigForm)
	}
	if l.BodyFile != "" {
		args = append(args, "--body-file", firmakit.ShellQuote(l.BodyFile))
	} else {
		args = append(args, "--body", firmakit.ShellQuote(string(r.Sent())))
	}
	return strings.Join(args, " ")
}

// secretArg writes the request's secret for a command line: as it is when
// it is published test data (the demo merchant's, the made-up secret of an
// unknown key), else as the environment variable certify reads it from.
func (r *Request) secretArg() string {
	d := firmakit.Demo()
	for _, c := range []firmakit.Credential{d.Credential, d.Disabled, d.Other, unknownCredential} {
		if r.Cred.Secret == c.Secret {
			return firmakit.ShellQuote(c.Secret)
		}
	}
	switch r.credential {
	case credOther:
		return `"$FIRMAKIT_OTHER_SECRET"`
	case credDisabled:
		return `"$FIRMAKIT_DISABLED_SECRET"`
	}
	return `"$FIRMAKIT_SECRET"`
}

// Row is the example row of a scenario outline that would pin the
// request, in words: | endpoint | what was changed | the answer due |.
func (r *Request) Row(answer string) string {
	what := r.Words()
	if what == "" {
		what = "a valid request"
	}
	cell := strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", `\n`)
	return fmt.Sprintf("| %s | %s | %s |", r.Endpoint, cell.Replace(what), cell.Replace(answer))
}

// RowHeader is the header of the rows Row writes.
const RowHeader = "| endpoint | request | answer |"
