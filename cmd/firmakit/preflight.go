package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/steps"
)

// preflight sends signed check requests to the target before the suite
// (three, one after the other), with the merchant's credential under the
// active profile, so that a wrong URL, credential, secret or profile is
// said once instead of in hundreds of failures, and a slow or
// rate-limited target is said before the suite meets it. Transient
// answers are retried as the suite's are. It returns the line to print
// when the target answers 200; else an error: exit 3 when the target is
// unreachable or gave no answer of its own, exit 1 with what the answer
// means.
func preflight(ctx context.Context, t *steps.Target) (string, error) {
	path := "/" + t.APIVersion + "/check/" + url.PathEscape(t.MerchantID)
	body := []byte("{}")
	if _, err := http.NewRequest(http.MethodPost, t.URL+path, nil); err != nil {
		return "", usageError("--target %q: %v", t.URL, err)
	}
	// Three requests, one after the other: the round trip is their
	// median, and a rate limit shows before the suite meets it.
	var rtts []time.Duration
	var first *steps.Exchange
	for i := 0; i < preflightRequests; i++ {
		ex, err := t.Do(ctx, func(int) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL+path, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			t.Profile.SignRequest(req, t.Credential.KeyID, t.Credential.Secret, body, time.Now())
			return req, nil
		})
		switch {
		case errors.Is(err, steps.ErrTransient):
			return "", &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: the pre-flight's signed check request got %w", t.URL, err)}
		case err != nil:
			return "", &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: %w", t.URL, err)}
		}
		rtts = append(rtts, ex.RoundTrip)
		if first == nil {
			first = ex
		}
		if ex.Status != http.StatusOK {
			first = ex // the first refusal is what to say
			break
		}
	}
	resp := first
	raw := first.Body
	var answer struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &answer)
	what := fmt.Sprintf("pre-flight: POST %s signed with --key %s", t.URL+path, t.Credential.KeyID)
	got := fmt.Sprintf("answered %d", resp.Status)
	if answer.Message != "" {
		got += fmt.Sprintf(" %q", answer.Message)
	}
	if resp.Status == http.StatusOK {
		return what + " " + got + "; " + network(t, rtts), nil
	}
	p := t.Profile.Request
	var why string
	switch {
	case resp.Status == http.StatusNotFound:
		why = fmt.Sprintf("nothing answers the check endpoint at this base URL: --target is probably wrong (give the base the interface's paths start from, "+
			"without /%s/…), or --api-version %q or --merchant %q is not the service's", t.APIVersion, t.APIVersion, t.MerchantID)
	case resp.Status == http.StatusUnauthorized && answer.Message == "Invalid signature":
		why = fmt.Sprintf("the target knows the key %q but not this signature: --secret is not that key's secret, or the target signs other bytes "+
			"than the profile says (%s, %s %s); compare with 'firmakit sign --url %s --key %s --secret …', which prints the string it signs",
			t.Credential.KeyID, strings.Join(p.StringToSign, "+"), p.Hash, p.Encoding, t.URL+path, t.Credential.KeyID)
	case resp.Status == http.StatusUnauthorized && answer.Message == "Invalid credentials":
		why = fmt.Sprintf("the target does not accept the key %q for merchant %q: the key is unknown to it, disabled, or another merchant's; check --key and --merchant",
			t.Credential.KeyID, t.MerchantID)
	case resp.Status == http.StatusUnauthorized && answer.Message == "Request expired":
		why = fmt.Sprintf("the target finds the timestamp too far from its own clock: the two clocks differ by more than the profile's tolerance (%s), "+
			"or it reads %s another way", p.Tolerance, p.TimestampHeader)
	case resp.Status == http.StatusBadRequest && answer.Message == "Missing headers":
		why = fmt.Sprintf("the target does not find the authentication headers %s, %s and %s: it expects other names; give its profile with --profile",
			p.KeyHeader, p.TimestampHeader, p.SignatureHeader)
	case resp.Status == http.StatusUnauthorized:
		why = "the target refused the merchant's own signed request; check --key, --secret, --merchant and the profile"
	case resp.Status >= 500:
		why = "the target failed on a plain signed check request: its logs say why, and every scenario would fail the same way"
	default:
		why = `expected 200 "Authenticated" to a correctly signed check request`
	}
	return "", &exitError{ExitFailed, errors.New(what + " " + got + ": " + why + "; the suite did not run (--skip-preflight runs it anyway)")}
}

// preflightRequests is how many signed check requests the pre-flight
// sends.
const preflightRequests = 3

// slowRoundTrip is the round trip beyond which the pre-flight calls a
// target slow.
const slowRoundTrip = 150 * time.Millisecond

// network says what the pre-flight saw of the way to the target: the
// round trip, and any rate limit.
func network(t *steps.Target, rtts []time.Duration) string {
	slices.Sort(rtts)
	rtt := rtts[len(rtts)/2]
	line := fmt.Sprintf("round trip %s ms", strconv.FormatInt(rtt.Milliseconds(), 10))
	if rtt >= slowRoundTrip {
		line += " (a slow target: the run takes longer, but a notification's delay is judged from the 201 seen, so the way back and forth is not counted against it)"
	}
	st := t.Pacer.Stats()
	if st.Policy > 0 {
		line += fmt.Sprintf("; the target announces a limit of %s requests/s, which the run keeps to", strconv.FormatFloat(st.Policy, 'f', -1, 64))
	}
	if st.RateLimited > 0 {
		line += fmt.Sprintf("; rate-limited already (%d × 429): the run paces itself and retries, and is faster with a --rate under the limit", st.RateLimited)
	}
	if n := st.Retried; n > 0 {
		line += fmt.Sprintf("; %d request(s) sent again after a transient answer", n)
	}
	return line
}
