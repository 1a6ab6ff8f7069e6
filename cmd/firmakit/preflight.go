package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/firmakit/firmakit/steps"
)

// preflight sends one signed check request to the target before the
// suite, with the merchant's credential under the active profile, so that
// a wrong URL, credential, secret or profile is said once instead of in
// hundreds of failures. It returns the line to print when the target
// answers 200; else an error: exit 3 when the target is unreachable,
// exit 1 with what the answer means.
func preflight(ctx context.Context, t *steps.Target) (string, error) {
	path := "/" + t.APIVersion + "/check/" + url.PathEscape(t.MerchantID)
	body := []byte("{}")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL+path, bytes.NewReader(body))
	if err != nil {
		return "", usageError("--target %q: %v", t.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	t.Profile.SignRequest(req, t.Credential.Key, t.Credential.Secret, body, time.Now())
	client := t.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: %w", t.URL, err)}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var answer struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &answer)
	what := fmt.Sprintf("pre-flight: POST %s signed with --key %s", t.URL+path, t.Credential.Key)
	got := fmt.Sprintf("answered %d", resp.StatusCode)
	if answer.Message != "" {
		got += fmt.Sprintf(" %q", answer.Message)
	}
	if resp.StatusCode == http.StatusOK {
		return what + " " + got, nil
	}
	p := t.Profile.Request
	var why string
	switch {
	case resp.StatusCode == http.StatusNotFound:
		why = fmt.Sprintf("nothing answers the check endpoint at this base URL: --target is probably wrong (give the base the interface's paths start from, "+
			"without /%s/…), or --api-version %q or --merchant %q is not the service's", t.APIVersion, t.APIVersion, t.MerchantID)
	case resp.StatusCode == http.StatusUnauthorized && answer.Message == "Invalid signature":
		why = fmt.Sprintf("the target knows the key %q but not this signature: --secret is not that key's secret, or the target signs other bytes "+
			"than the profile says (%s, %s %s); compare with 'firmakit sign --url %s --key %s --secret …', which prints the string it signs",
			t.Credential.Key, strings.Join(p.StringToSign, "+"), p.Hash, p.Encoding, t.URL+path, t.Credential.Key)
	case resp.StatusCode == http.StatusUnauthorized && answer.Message == "Invalid credentials":
		why = fmt.Sprintf("the target does not accept the key %q for merchant %q: the key is unknown to it, disabled, or another merchant's; check --key and --merchant",
			t.Credential.Key, t.MerchantID)
	case resp.StatusCode == http.StatusUnauthorized && answer.Message == "Request expired":
		why = fmt.Sprintf("the target finds the timestamp too far from its own clock: the two clocks differ by more than the profile's tolerance (%s), "+
			"or it reads %s another way", p.Tolerance, p.TimestampHeader)
	case resp.StatusCode == http.StatusBadRequest && answer.Message == "Missing headers":
		why = fmt.Sprintf("the target does not find the authentication headers %s, %s and %s: it expects other names; give its profile with --profile",
			p.KeyHeader, p.TimestampHeader, p.SignatureHeader)
	case resp.StatusCode == http.StatusUnauthorized:
		why = "the target refused the merchant's own signed request; check --key, --secret, --merchant and the profile"
	case resp.StatusCode >= 500:
		why = "the target failed on a plain signed check request: its logs say why, and every scenario would fail the same way"
	default:
		why = `expected 200 "Authenticated" to a correctly signed check request`
	}
	return "", &exitError{ExitFailed, errors.New(what + " " + got + ": " + why + "; the suite did not run (--skip-preflight runs it anyway)")}
}
