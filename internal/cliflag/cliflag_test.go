package cliflag_test

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newSet() (*flag.FlagSet, *string, *int, *cliflag.List, *cliflag.Durations) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := fs.String("target", "", "")
	n := fs.Int("retries", 3, "")
	l := &cliflag.List{}
	fs.Var(l, "webhook-secret", "")
	d := &cliflag.Durations{}
	fs.Var(d, "retry-schedule", "")
	return fs, s, n, l, d
}

func TestParseTakesPositionalsAmongFlags(t *testing.T) {
	fs, target, _, _, _ := newSet()
	pos, err := cliflag.Parse(fs, "demo", []string{"SIGNED", "--target", "http://x", "more", "--", "--retries"})
	require.NoError(t, err)
	assert.Equal(t, []string{"SIGNED", "more", "--retries"}, pos, `"--" ends the flags`)
	assert.Equal(t, "http://x", *target)

	fs, _, _, _, _ = newSet()
	_, err = cliflag.Parse(fs, "demo", []string{"--targt", "x"})
	var ue *cliflag.UsageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, "unknown flag --targt: did you mean --target? 'firmakit help demo' lists the flags")

	fs, _, _, _, _ = newSet()
	_, err = cliflag.Parse(fs, "demo", []string{"--retries", "many"})
	assert.EqualError(t, err, `--retries "many": want a whole number`)

	fs, _, _, _, _ = newSet()
	_, err = cliflag.Parse(fs, "demo", []string{"-h"})
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestFillTakesTheCommandLineThenTheEnvironmentThenTheFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(conf, []byte("target: http://file\nretries: 7\nwebhook-secret: [a, b]\nretry-schedule: 1s,2s\n"), 0o600))
	fs, target, retries, secrets, sched := newSet()
	_, err := cliflag.Parse(fs, "c", []string{"--target", "http://line"})
	require.NoError(t, err)
	env := map[string]string{"FIRMAKIT_RETRIES": "5"}
	given, err := cliflag.Fill(fs, conf, func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "http://line", *target)
	assert.Equal(t, 5, *retries)
	assert.Equal(t, cliflag.List{"a", "b"}, *secrets)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, sched.D)
	assert.Equal(t, cliflag.Given{"target": "", "retries": "FIRMAKIT_RETRIES", "webhook-secret": "config " + conf, "retry-schedule": "config " + conf}, given)
	assert.Equal(t, "--retries (from FIRMAKIT_RETRIES)", given.Name("retries"))
	assert.Equal(t, "--target", given.Name("target"))
	assert.True(t, cliflag.GivenIn(cliflag.WithGiven(context.Background(), given)).Has("webhook-secret"))

	t.Run("a list from the environment is comma-separated", func(t *testing.T) {
		fs, _, _, secrets, _ := newSet()
		_, err := cliflag.Fill(fs, "", func(k string) string { return map[string]string{"FIRMAKIT_WEBHOOK_SECRET": "x, y"}[k] })
		require.NoError(t, err)
		assert.Equal(t, cliflag.List{"x", "y"}, *secrets)
	})
	t.Run("an unknown key is refused with the closest flag", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.yaml")
		require.NoError(t, os.WriteFile(bad, []byte("retrys: 2\n"), 0o600))
		fs, _, _, _, _ := newSet()
		_, err := cliflag.Fill(fs, bad, func(string) string { return "" })
		var ue *cliflag.UsageError
		require.ErrorAs(t, err, &ue)
		assert.Contains(t, err.Error(), `unknown key "retrys" for this command; did you mean "retries"?`)
	})
	t.Run("a bad value names where it came from and shows no text", func(t *testing.T) {
		fs, _, _, _, _ := newSet()
		_, err := cliflag.Fill(fs, "", func(k string) string { return map[string]string{"FIRMAKIT_RETRIES": "x1"}[k] })
		assert.EqualError(t, err, `FIRMAKIT_RETRIES="x1" (for --retries): want a whole number`)
		fs, _, _, _, _ = newSet()
		_, err = cliflag.Fill(fs, "", func(k string) string { return map[string]string{"FIRMAKIT_RETRY_SCHEDULE": "soon"}[k] })
		assert.EqualError(t, err, `FIRMAKIT_RETRY_SCHEDULE="soon" (for --retry-schedule): "soon" is not a duration such as 1s (want durations such as 1s,2s,4s, or none)`)
	})
}

func TestListenErrorNamesTheFlag(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("listen", ln.Addr().String(), "")
	_, lerr := net.Listen("tcp", ln.Addr().String())
	err = cliflag.ListenError(fs, lerr)
	var ue *cliflag.UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "the address is already in use")
	assert.Contains(t, err.Error(), "choose another address with --listen")
	other := errors.New("other")
	assert.Same(t, other, cliflag.ListenError(fs, other), "other errors pass unchanged")
}

func TestWordsKeepsEachOnceInOrder(t *testing.T) {
	var w cliflag.Words
	require.NoError(t, w.Set("b, a,,b"))
	require.NoError(t, w.Set("c,a"))
	assert.Equal(t, cliflag.Words{"b", "a", "c"}, w)
	assert.Equal(t, "b,a,c", w.String())
}
