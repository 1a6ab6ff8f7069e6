package firmakit

import (
	"errors"
	"net/http"
	"strings"
)

// Refusal is one refusal of a request's authentication, a row of the
// interface's §7 and of defaults.md A's order of checks, with every fact
// of it that firmakit's parts read from here and nowhere else: the
// signer's error (VerifyRequest wraps it), the reference's answer, the
// suites' expected answers and the sentences they cite, the kind of
// failure and the diagnosis of the reports, and the OpenAPI document's
// words. A new refusal is a row of Refusals.
type Refusal struct {
	// Check is its place in the order of checks (defaults.md A), 1 first:
	// a request that fails several checks gets the first one's answer.
	Check int
	// Err is what request verification returns for it, wrapped with a
	// detail (errors.Is); its text is the label the service answers.
	Err error
	// Status is the HTTP status the service answers.
	Status int
	// Kind names the failure of a request that got it where it should
	// not have (reports.FailureKind).
	Kind string
	// Ref is the check of defaults.md A that states it, Row its row of
	// the interface's §7: the items of the documents a breach cites.
	Ref, Row string
	// When says, in words, what gets it (the OpenAPI document), with
	// {tolerance} for the profile's tolerance on the timestamp (Says).
	When string
	// Diag says, by report language ("en", "es"), what probably went
	// wrong when the suite's own signed requests got it.
	Diag map[string]string
}

// Label is the message the service answers it with.
func (r Refusal) Label() string { return r.Err.Error() }

// Says is When with the tolerance written in.
func (r Refusal) Says(tolerance string) string {
	return strings.ReplaceAll(r.When, "{tolerance}", tolerance)
}

// Refusals are the refusals of a request's authentication, in the order
// of the checks.
var Refusals = []Refusal{
	{Check: 1, Err: ErrMissingHeaders, Status: http.StatusBadRequest, Kind: "request-missing-headers",
		Ref: "defaults §A check 1", Row: "§7 400 Missing headers",
		When: "an authentication header is absent or empty",
		Diag: map[string]string{
			"en": "Requests got 400 Missing headers: the target looks for other header names than the profile's; give its own profile with --profile.",
			"es": "Las solicitudes recibieron 400 Missing headers: el objetivo busca otros nombres de cabecera que los del perfil; indique su propio perfil con --profile.",
		}},
	{Check: 2, Err: ErrExpired, Status: http.StatusUnauthorized, Kind: "request-expired",
		Ref: "defaults §A check 2", Row: "§7 401 Request expired",
		When: "the timestamp is not a Unix time in seconds, or is more than {tolerance} from the service's clock, either way",
		Diag: map[string]string{
			"en": "Requests got 401 Request expired: the target's clock and this machine's differ by more than the profile's tolerance, or the target reads the timestamp header another way.",
			"es": "Las solicitudes recibieron 401 Request expired: el reloj del objetivo y el de esta máquina difieren en más que la tolerancia del perfil, o el objetivo lee la cabecera de marca de tiempo de otra forma.",
		}},
	{Check: 3, Err: ErrInvalidCredentials, Status: http.StatusUnauthorized, Kind: "request-invalid-credentials",
		Ref: "defaults §A check 3", Row: "§7 401 Invalid credentials",
		When: "the key is unknown, disabled or another merchant's",
		Diag: map[string]string{
			"en": "Requests with the merchant's key got 401 Invalid credentials: the target does not know that key (--key) for this merchant (--merchant), or the key is disabled.",
			"es": "Las solicitudes con la clave del comercio recibieron 401 Invalid credentials: el objetivo no conoce esa clave (--key) para este comercio (--merchant), o la clave está deshabilitada.",
		}},
	{Check: 4, Err: ErrInvalidSignature, Status: http.StatusUnauthorized, Kind: "request-invalid-signature",
		Ref: "defaults §A check 4", Row: "§7 401 Invalid signature",
		When: "the signature does not decode or does not match",
		Diag: map[string]string{
			"en": "Signed requests got 401 Invalid signature: the secret, or the bytes the target signs, differ from the suite's. Compare with `firmakit sign`, which prints the exact string it signs.",
			"es": "Las solicitudes firmadas recibieron 401 Invalid signature: el secreto, o los bytes que firma el objetivo, difieren de los de la suite. Compare con `firmakit sign`, que muestra la cadena exacta que firma.",
		}},
}

// RefusalOf returns the refusal err is (errors.Is), the first in the
// order of checks; false when it is none.
func RefusalOf(err error) (Refusal, bool) {
	for _, r := range Refusals {
		if errors.Is(err, r.Err) {
			return r, true
		}
	}
	return Refusal{}, false
}

// RefusalAnswered returns the refusal an answer of status with message
// label is; false when it is none.
func RefusalAnswered(status int, label string) (Refusal, bool) {
	for _, r := range Refusals {
		if r.Status == status && r.Label() == label {
			return r, true
		}
	}
	return Refusal{}, false
}

// RefusalLabeled returns the refusal whose label is label, whatever its
// status; false when it is none.
func RefusalLabeled(label string) (Refusal, bool) {
	for _, r := range Refusals {
		if r.Label() == label {
			return r, true
		}
	}
	return Refusal{}, false
}

// RefusalAt returns the refusal of check n of the order; false when
// there is none.
func RefusalAt(n int) (Refusal, bool) {
	for _, r := range Refusals {
		if r.Check == n {
			return r, true
		}
	}
	return Refusal{}, false
}
