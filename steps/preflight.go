package steps

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

	"github.com/firmakit/firmakit"
)

// ErrUnreachable is returned, wrapped, by Target.Preflight when the
// target gave no answer of its own: nothing listens at its URL, the
// connection broke, or every attempt ended in a transient answer
// (ErrTransient, wrapped too).
var ErrUnreachable = errors.New("unreachable")

// ErrPreflightRefused is returned, wrapped, by Target.Preflight when the
// target answered the merchant's own signed check request with anything
// but 200: the error says what the answer means (a wrong URL, credential,
// secret, clock or profile).
var ErrPreflightRefused = errors.New("the pre-flight's signed check request was refused")

// refusal is a pre-flight's diagnosis of a refused check request.
type refusal string

func (r refusal) Error() string      { return string(r) }
func (refusal) Is(target error) bool { return target == ErrPreflightRefused }

// preflightRequests is how many signed check requests the pre-flight
// sends.
const preflightRequests = 3

// slowRoundTrip is the round trip beyond which the pre-flight calls a
// target slow.
const slowRoundTrip = 150 * time.Millisecond

// Preflight sends signed check requests to the target before the suite
// (three, one after the other), with the merchant's
// credential under the active profile, so that a wrong URL, credential,
// secret or profile is said once instead of in hundreds of failures, and
// a slow or rate-limited target is said before the suite meets it.
// Transient answers are retried as the suite's are. It returns the line
// to print when the target answers 200: the request, the answer, the
// round trip and any rate limit. Else it returns an error wrapping
// ErrUnreachable, or ErrPreflightRefused with what the answer means; any
// other error is the target's URL, with which no request can be made.
func (t *Target) Preflight(ctx context.Context) (string, error) {
	check := t.URL + "/" + t.APIVersion + "/check/" + url.PathEscape(t.MerchantID)
	body := []byte("{}")
	if _, err := http.NewRequest(http.MethodPost, check, nil); err != nil {
		return "", err
	}
	// Three requests, one after the other: the round trip is their
	// median, and a rate limit shows before the suite meets it.
	var rtts []time.Duration
	var first *Exchange
	for i := 0; i < preflightRequests; i++ {
		ex, err := t.Do(ctx, func(int) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, check, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			t.Profile.SignRequest(req, t.Credential.KeyID, t.Credential.Secret, body, time.Now())
			return req, nil
		})
		switch {
		case errors.Is(err, ErrTransient):
			return "", fmt.Errorf("target %s is %w: the pre-flight's signed check request got %w", t.URL, ErrUnreachable, err)
		case err != nil:
			return "", fmt.Errorf("target %s is %w: %w", t.URL, ErrUnreachable, err)
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
	var answer struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(first.Body, &answer)
	what := fmt.Sprintf("pre-flight: POST %s signed with --key %s", check, t.Credential.KeyID)
	got := fmt.Sprintf("answered %d", first.Status)
	if answer.Message != "" {
		got += fmt.Sprintf(" %q", answer.Message)
	}
	if first.Status == http.StatusOK {
		return what + " " + got + "; " + t.preflightNetwork(rtts), nil
	}
	return "", refusal(what + " " + got + ": " + t.refusalMeaning(check, first.Status, answer.Message))
}

// refusalMeaning says what a refusal of the pre-flight's request to
// check, the check endpoint's URL, means, and which flag to check.
func (t *Target) refusalMeaning(check string, status int, message string) string {
	p := t.Profile.Request
	n := 0
	if r, ok := firmakit.RefusalAnswered(status, message); ok {
		n = r.Check
	}
	switch {
	case status == http.StatusNotFound:
		return fmt.Sprintf("nothing answers the check endpoint at this base URL: --target is probably wrong (give the base the interface's paths start from, "+
			"without /%s/…), or --api-version %q or --merchant %q is not the service's", t.APIVersion, t.APIVersion, t.MerchantID)
	case n == 4:
		return fmt.Sprintf("the target knows the key %q but not this signature: --secret is not that key's secret, or the target signs other bytes "+
			"than the profile says (%s, %s %s); compare with 'firmakit sign --url %s --key %s --secret …', which prints the string it signs",
			t.Credential.KeyID, strings.Join(p.StringToSign, "+"), p.Hash, p.Encoding, check, t.Credential.KeyID)
	case n == 3:
		return fmt.Sprintf("the target does not accept the key %q for merchant %q: the key is unknown to it, disabled, or another merchant's; check --key and --merchant",
			t.Credential.KeyID, t.MerchantID)
	case n == 2:
		return fmt.Sprintf("the target finds the timestamp too far from its own clock: the two clocks differ by more than the profile's tolerance (%s), "+
			"or it reads %s another way", p.Tolerance, p.TimestampHeader)
	case n == 1:
		return fmt.Sprintf("the target does not find the authentication headers %s, %s and %s: it expects other names; give its profile with --profile",
			p.KeyHeader, p.TimestampHeader, p.SignatureHeader)
	case n > 0:
		r, _ := firmakit.RefusalAt(n)
		return fmt.Sprintf("the target refused the merchant's own signed request with %q, which means %s; check --key, --secret, --merchant and the profile", r.Label(), r.When)
	case status == http.StatusUnauthorized:
		return "the target refused the merchant's own signed request; check --key, --secret, --merchant and the profile"
	case status >= 500:
		return "the target failed on a plain signed check request: its logs say why, and every scenario would fail the same way"
	}
	return `expected 200 "Authenticated" to a correctly signed check request`
}

// preflightNetwork says what the pre-flight saw of the way to the
// target: the round trip, and any rate limit.
func (t *Target) preflightNetwork(rtts []time.Duration) string {
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
