package explore

import (
	"testing"

	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// Each answer against what the documents say the request is due: one
// changed thing per case from a valid request's.
func TestJudge(t *testing.T) {
	const (
		ok      = `{"status_code":200,"message":"Authenticated"}`
		missing = `{"status_code":400,"message":"Missing headers"}`
		expired = `{"status_code":401,"message":"Request expired"}`
		creds   = `{"status_code":401,"message":"Invalid credentials"}`
		sig     = `{"status_code":401,"message":"Invalid signature"}`
		big     = `{"status_code":413,"message":"Request body too large"}`
		bad     = `{"status_code":400,"message":"Body is not valid JSON"}`
		js      = "application/json"
	)
	change := func(checks ...int) *Request {
		r := &Request{}
		for _, c := range checks {
			r.note("", c, "ref")
		}
		return r
	}
	for _, tc := range []struct {
		name        string
		endpoint    string
		r           *Request
		status      int
		contentType string
		body        string
		want        *Property
	}{
		{"a valid check", Check, change(), 200, js, ok, nil},
		{"a valid check refused", Check, change(), 401, js, sig, &Accepted},
		{"a valid check answered 200 otherwise", Check, change(), 200, js, `{"status_code":200,"message":"OK"}`, &Accepted},
		{"upper-case hex, a valid request", Check, change(valid), 200, js, ok, nil},
		{"a valid create", Create, change(), 201, js, `{"status_code":201}`, nil},
		{"a valid create answered 200", Create, change(), 200, js, ok, &Accepted},
		{"a 5xx", Check, change(checkSignature), 500, js, `{"status_code":500,"message":"x"}`, &NoServerError},
		{"a 5xx to a valid request", Create, change(), 503, js, `{"status_code":503,"message":"x"}`, &NoServerError},
		{"an error that is not JSON", Check, change(checkHeaders), 400, "text/plain", "Missing headers", &ErrorShape},
		{"an error whose status_code differs", Check, change(checkHeaders), 400, js, `{"status_code":401,"message":"Missing headers"}`, &ErrorShape},
		{"an error without message", Check, change(checkHeaders), 400, js, `{"status_code":400}`, &ErrorShape},
		{"an error sent as text/plain", Check, change(checkHeaders), 400, "text/plain", missing, &ErrorShape},
		{"an error sent with a charset", Check, change(checkHeaders), 400, js + "; charset=utf-8", missing, nil},
		{"an error with more keys", Check, change(checkHeaders), 400, js, `{"status_code":400,"message":"Missing headers","request_id":"x"}`, nil},
		{"the first failing check decides", Check, change(checkSignature, checkCredentials, checkTimestamp), 401, js, expired, nil},
		{"a later check answered", Check, change(checkSignature, checkCredentials), 401, js, sig, &CheckOrder},
		{"the right status, another label", Check, change(checkCredentials), 401, js, expired, &CheckOrder},
		{"headers first", Create, change(checkBody, checkHeaders, checkSignature), 400, js, missing, nil},
		{"the body refused after authentication", Check, change(checkBody), 400, js, bad, nil},
		{"the body refused with 422", Create, change(checkBody), 422, js, `{"status_code":422,"message":"x"}`, &CheckOrder},
		{"a body the service had to refuse, accepted", Create, change(checkBody), 201, js, `{"status_code":201}`, &CheckOrder},
		{"authentication before the body", Check, change(checkBody, checkSignature), 400, js, bad, &CheckOrder},
		{"an open body accepted", Check, change(open), 200, js, ok, nil},
		{"an open body refused", Create, change(open), 400, js, bad, nil},
		{"an open body refused with 401", Create, change(open), 401, js, sig, &CheckOrder},
		{"a body over 1 MiB", Check, change(overLimit), 413, js, big, nil},
		{"a body over 1 MiB accepted", Check, change(overLimit), 200, js, ok, &CheckOrder},
		{"a body over 1 MiB refused after the headers", Check, change(overLimit, checkCredentials), 401, js, creds, nil},
		{"a body over 1 MiB refused before the headers", Check, change(overLimit, checkHeaders), 413, js, big, nil},
		{"a body over 1 MiB refused by a later check", Check, change(overLimit, checkCredentials, checkSignature), 401, js, sig, &CheckOrder},
		{"a body over 1 MiB, not JSON: 413 before any JSON is parsed", Check, change(overLimit, checkBody), 400, js, bad, &CheckOrder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(tc.endpoint, expect(tc.r), tc.status, tc.contentType, []byte(tc.body))
			if tc.want == nil {
				assert.Nil(t, v)
				return
			}
			if assert.NotNil(t, v) {
				assert.Equal(t, *tc.want, v.property)
				assert.NotEmpty(t, v.ref)
			}
		})
	}
}

// The draws reach every check of the order, often more than one at
// once, both endpoints valid, and bodies over 1 MiB, in proportions that
// a few seconds of exploration cover.
func TestDrawnRequestsCoverEveryCheck(t *testing.T) {
	s := newSpace(steps.DemoTarget("http://127.0.0.1:1", nil, false))
	counts := map[string]int{}
	const n = 3000
	for i := 0; i < n; i++ {
		r := rapid.Custom(s.draw).Example(i)
		e := expect(r)
		faults := 0
		for _, c := range r.changes {
			if c.check >= checkHeaders && c.check <= checkSignature {
				faults++
			}
		}
		switch {
		case e.over:
			counts["over 1 MiB"]++
		case e.first > 0:
			counts["check "+string(rune('0'+e.first))]++
		case e.body == checkBody:
			counts["body refused"]++
		case e.body == open:
			counts["open"]++
		default:
			counts["valid "+r.Endpoint]++
		}
		if faults > 1 {
			counts["several checks failing"]++
		}
	}
	for _, k := range []string{"check 1", "check 2", "check 3", "check 4", "body refused", "open", "valid check", "valid signature", "several checks failing"} {
		assert.Greater(t, counts[k], n/50, "%s: %v", k, counts)
	}
	assert.Greater(t, counts["over 1 MiB"], n/200, "%v", counts)
}
