package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	"github.com/firmakit/firmakit"
)

// Property is one thing that holds for every request, whatever it is.
type Property struct {
	// ID is the requirement tag of its findings in the reports.
	ID string
	// Name says it in words.
	Name string
}

// The properties, in the order an answer is judged: the first that does
// not hold is the finding, so that one fault of the target (a 500 whose
// body is not the API's shape) is one finding.
var (
	// NoServerError: "No client input may ever produce a 5xx."
	NoServerError = Property{"EXPLORE-NO-5XX", "no request is answered with a 5xx"}
	// ErrorShape: "Every error body is JSON: {"status_code": <same as
	// HTTP status>, "message": "<label>"}".
	ErrorShape = Property{"EXPLORE-ERROR-SHAPE", `every error body is {"status_code": <the HTTP status>, "message": "…"}`}
	// CheckOrder: "the first failing check decides the answer", with
	// the exact labels of checks 1 to 4, 413 for a body over 1 MiB, 400
	// for a body refused after authentication.
	CheckOrder = Property{"EXPLORE-CHECK-ORDER", "the first failing check of the documented order decides the answer"}
	// Accepted: a valid request is answered 200 "Authenticated" (check)
	// or 201 (create).
	Accepted = Property{"EXPLORE-ACCEPTED", "a valid request is accepted"}
)

// Properties are every property, in the order an answer is judged.
var Properties = []Property{NoServerError, ErrorShape, CheckOrder, Accepted}

// checkAnswer is the status and label of check n (1 to 4) of
// defaults.md A (firmakit.Refusals).
func checkAnswer(n int) (int, string) {
	r, _ := firmakit.RefusalAt(n)
	return r.Status, r.Label()
}

// refShape is the sentence of the error body's shape, of the 413 and of
// "No client input may ever produce a 5xx".
const refShape = "defaults §A paragraph 5"

// expectation is what the documents say a request is answered, from the
// changes drawn on it.
type expectation struct {
	// first is the first failing check of 1 to 4 (0: none fails).
	first int
	// over tells a body over 1 MiB.
	over bool
	// body is valid, checkBody (refused: 400) or open (accepted, or
	// refused with a 400), and ref the sentence that says so.
	body int
	ref  string
}

func expect(r *Request) expectation {
	var e expectation
	for _, c := range r.changes {
		switch c.check {
		case checkHeaders, checkTimestamp, checkCredentials, checkSignature:
			if e.first == 0 || c.check < e.first {
				e.first = c.check
			}
		case overLimit:
			e.over = true
		case checkBody:
			if e.body != checkBody {
				e.body, e.ref = checkBody, c.ref
			}
		case open:
			if e.body == valid {
				e.body, e.ref = open, c.ref
			}
		}
	}
	return e
}

// success is the answer of a valid request to endpoint, in words.
func success(endpoint string) string {
	if endpoint == Check {
		return `200 "Authenticated"`
	}
	return "201"
}

// want is the answer due, in words.
func (e expectation) want(endpoint string) string {
	auth := ""
	if e.first > 0 {
		st, label := checkAnswer(e.first)
		auth = fmt.Sprintf("%d %q", st, label)
	}
	switch {
	case e.over && auth != "":
		// Where the size check falls among checks 1 to 4 is open: "before
		// any JSON is parsed" places it before check 5 only.
		return "413, or " + auth
	case e.over:
		return "413"
	case auth != "":
		return auth
	case e.body == checkBody:
		return "400"
	case e.body == open:
		return success(endpoint) + ", or 400"
	}
	return success(endpoint)
}

// answer is what the API's body shape holds: {"status_code", "message"}.
type answer struct {
	code    int64
	message string
	shaped  bool
}

// readAnswer reads the API's shape from a body: a JSON object whose
// status_code is an integer and whose message is a string.
func readAnswer(body []byte) answer {
	var v struct {
		StatusCode *json.Number `json:"status_code"`
		Message    *string      `json:"message"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || v.StatusCode == nil || v.Message == nil {
		return answer{}
	}
	n, err := v.StatusCode.Int64()
	if err != nil {
		return answer{}
	}
	return answer{code: n, message: *v.Message, shaped: true}
}

// verdict is a property a request's answer broke, with the item of the
// documents that states it (and the sentence, when the item says more)
// and the answer due in words.
type verdict struct {
	property Property
	ref      string
	want     string
	sentence string
}

// The sentences of items that say more than one thing.
const (
	sentenceNo5xx       = "No client input may ever produce a 5xx."
	sentenceShape       = `Every error body is JSON: {"status_code": <same as HTTP status>, "message": "<label>"}`
	sentenceTooLarge    = "A body over 1 MiB is refused with 413 and the same body shape, before any JSON is parsed."
	sentenceContentType = "All bodies are JSON (content type application/json)."
)

// judge judges the answer (status, content type, body) of a request to
// endpoint against what the documents say it is due, properties in
// order. It returns nil when every property holds.
func judge(endpoint string, e expectation, status int, contentType string, body []byte) *verdict {
	if status >= 500 {
		return &verdict{NoServerError, refShape, "not a 5xx", sentenceNo5xx}
	}
	a := readAnswer(body)
	if status >= 400 && (!a.shaped || a.code != int64(status)) {
		return &verdict{ErrorShape, refShape, fmt.Sprintf(`{"status_code": %d, "message": "…"}`, status), sentenceShape}
	}
	if mt, _, err := mime.ParseMediaType(contentType); status >= 400 && (err != nil || mt != "application/json") {
		return &verdict{ErrorShape, "§4 paragraph 1", "an error body sent as application/json", sentenceContentType}
	}
	want := e.want(endpoint)
	accepted := status == http.StatusCreated
	if endpoint == Check {
		accepted = status == http.StatusOK && a.shaped && a.code == http.StatusOK && a.message == "Authenticated"
	}
	refusedBy := func(check int) bool {
		st, label := checkAnswer(check)
		return status == st && a.message == label
	}
	switch {
	case e.over:
		if status == http.StatusRequestEntityTooLarge || (e.first > 0 && refusedBy(e.first)) {
			return nil
		}
		return &verdict{CheckOrder, refShape, want, sentenceTooLarge}
	case e.first > 0:
		if refusedBy(e.first) {
			return nil
		}
		return &verdict{CheckOrder, fmt.Sprintf("defaults §A check %d", e.first), want, ""}
	case e.body == checkBody:
		if status == http.StatusBadRequest {
			return nil
		}
		return &verdict{CheckOrder, e.ref, want, ""}
	case e.body == open:
		// Accepted or refused: the documents leave it open, but a refusal
		// after authentication is a 400.
		if status < 400 || status == http.StatusBadRequest {
			return nil
		}
		return &verdict{CheckOrder, e.ref, want, ""}
	case accepted:
		return nil
	case endpoint == Check:
		return &verdict{Accepted, "§4.1 rule 1", want, ""}
	}
	return &verdict{Accepted, "defaults §C paragraph 1", want, ""}
}
