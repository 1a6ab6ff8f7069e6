package steps_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPreflight starts from a target that accepts the merchant's signed
// check request and changes its answer, one per case.
func TestPreflight(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		want     error
		says     string
		requests int32
	}{
		{"accepted", 200, `{"status_code":200,"message":"Authenticated"}`, nil, `answered 200 "Authenticated"; round trip `, 3},
		{"not found", 404, `{"status_code":404,"message":"Not found"}`, steps.ErrPreflightRefused, "--target is probably wrong", 1},
		{"another secret", 401, `{"status_code":401,"message":"Invalid signature"}`, steps.ErrPreflightRefused,
			`answered 401 "Invalid signature": the target knows the key "test_key_demo" but not this signature`, 1},
		{"an unknown key", 401, `{"status_code":401,"message":"Invalid credentials"}`, steps.ErrPreflightRefused,
			`the target does not accept the key "test_key_demo" for merchant "merchant_demo"`, 1},
		{"another clock", 401, `{"status_code":401,"message":"Request expired"}`, steps.ErrPreflightRefused, "too far from its own clock", 1},
		{"other header names", 400, `{"status_code":400,"message":"Missing headers"}`, steps.ErrPreflightRefused, "give its profile with --profile", 1},
		{"a failing target", 500, `{"status_code":500,"message":"boom"}`, steps.ErrPreflightRefused, "its logs say why", 1},
		{"another answer", 418, `{}`, steps.ErrPreflightRefused, `answered 418: expected 200 "Authenticated"`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				assert.Equal(t, "/v1/check/merchant_demo", r.URL.Path)
				demo := firmakit.Demo().Credential
				_, err := firmakit.BundledProfile().VerifyRequest(r.Method, r.URL.RequestURI(), "merchant_demo", r.Header,
					func(key string) (firmakit.Credential, bool) { return demo, key == demo.KeyID }, time.Now(),
					func() ([]byte, error) { return io.ReadAll(r.Body) })
				assert.NoError(t, err, "signed as the profile says")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			line, err := steps.DemoTarget(srv.URL, nil, false).Preflight(context.Background())
			assert.Equal(t, tc.requests, n.Load(), "three requests, or up to the first refusal")
			if tc.want == nil {
				require.NoError(t, err)
				assert.Contains(t, line, "pre-flight: POST "+srv.URL+"/v1/check/merchant_demo signed with --key test_key_demo "+tc.says)
				return
			}
			assert.Empty(t, line)
			require.ErrorIs(t, err, tc.want)
			assert.NotErrorIs(t, err, steps.ErrUnreachable)
			assert.Contains(t, err.Error(), tc.says)
		})
	}
}

// A target that is not there is unreachable, not refused; a URL no
// request can be made with is neither.
func TestPreflightUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	target := steps.DemoTarget(url, nil, false)
	target.Retries = -1
	_, err := target.Preflight(context.Background())
	require.ErrorIs(t, err, steps.ErrUnreachable)
	assert.NotErrorIs(t, err, steps.ErrPreflightRefused)
	assert.Contains(t, err.Error(), "target "+url+" is unreachable: ")

	_, err = steps.DemoTarget("http://bad host", nil, false).Preflight(context.Background())
	require.Error(t, err)
	assert.False(t, errors.Is(err, steps.ErrUnreachable) || errors.Is(err, steps.ErrPreflightRefused), "%v", err)
}
