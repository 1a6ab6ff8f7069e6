package faults

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// envelopeFaults are the faults' EnvelopeDeviations: the new contract and
// its 201.
type envelopeFaults struct{ *service }

var _ reference.EnvelopeDeviations = envelopeFaults{}

// Values the envelope faults put where a correct server puts something
// else.
const (
	faultyTitleLength = 200
	// reusedID is the example signature_id of defaults.md B, handed out for
	// every contract.
	reusedID = "0f8fad5b-d9cb-469f-a165-70867728950e"
)

// Envelope gives env the signature_id of the identity faults,
// before the envelope is stored and its notification scheduled, so that
// the notification carries the same id.
func (s envelopeFaults) Envelope(env *firmakit.Envelope) {
	switch {
	case s.fault(faultEnvelopeSignatureIDNotUUID):
		env.SignatureID = "sig_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	case s.fault(faultEnvelopeSignatureIDReused):
		env.SignatureID = reusedID
	case s.fault(faultEnvelopeTitleLineBreaks):
		env.Title = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(env.Title)
	}
}

// Created writes the 201 of a created contract with the envelope
// faults and tells whether it did. req is the validated request.
func (s envelopeFaults) Created(c echo.Context, env firmakit.Envelope, req firmakit.CreateSignatureRequest) (bool, error) {
	if !s.fault(AreaEnvelope) {
		return false, nil
	}
	status, code := http.StatusCreated, http.StatusCreated
	if s.fault(faultEnvelopeHTTP200) {
		status, code = http.StatusOK, http.StatusOK
	}
	if s.fault(faultEnvelopeStatusCode200) {
		code = http.StatusOK
	}
	if s.fault(faultEnvelopeCreatedAtClientClock) {
		if ts, err := strconv.ParseInt(c.Request().Header.Get(s.seam.Profile().Request.TimestampHeader), 10, 64); err == nil {
			env.CreatedAt = firmakit.FormatTime(time.Unix(ts, 0))
		}
	}
	data, err := json.Marshal(s.shown(env, req))
	if err != nil {
		return true, err
	}
	if s.fault(faultEnvelopeExtraField) {
		data = setMember(data, "merchant_id", c.Param("merchant_id"))
	}
	if s.fault(faultEnvelopeRoutingMissing) {
		data = dropMember(data, "routing")
	}
	if s.fault(faultEnvelopeSenderNull) {
		data = setMember(data, "sender", nil)
	}
	msg := "Signature request created"
	if s.fault(faultEnvelopeMessageReworded) {
		msg = "Signature request accepted"
	}
	b, _ := json.Marshal(firmakit.APIResponse{StatusCode: code, Message: msg})
	if s.fault(faultEnvelopeMessageMissing) {
		b = dropMember(b, "message")
	}
	b = setMember(b, "data", json.RawMessage(data))
	return true, c.JSONBlob(status, append(b, '\n'))
}

// shown is the envelope the 201 shows: a copy of env, its fields as the
// envelope faults write them.
func (s envelopeFaults) shown(env firmakit.Envelope, req firmakit.CreateSignatureRequest) firmakit.Envelope {
	e := env
	e.Documents = append([]firmakit.Document(nil), env.Documents...)
	e.Recipients = append([]firmakit.Recipient(nil), env.Recipients...)
	if s.fault(faultEnvelopeStatusLowercase) {
		e.Status = strings.ToLower(e.Status)
	}
	if s.fault(faultEnvelopeTitleCollapsed) {
		e.Title = strings.Join(strings.Fields(e.Title), " ")
	}
	if r := []rune(e.Title); s.fault(faultEnvelopeTitleTruncated) && len(r) > faultyTitleLength {
		e.Title = string(r[:faultyTitleLength])
	}
	if s.fault(faultEnvelopeTitleASCII) {
		e.Title = strings.Map(func(r rune) rune {
			if r >= utf8.RuneSelf {
				return '?'
			}
			return r
		}, e.Title)
	}
	for i := range e.Recipients {
		if s.fault(faultEnvelopeRecipientStatusUpper) {
			e.Recipients[i].Status = strings.ToUpper(e.Recipients[i].Status)
		}
	}
	for i := range e.Documents {
		if s.fault(faultEnvelopeDocumentsFrom1) {
			e.Documents[i].Key = "document_" + strconv.Itoa(i+1)
		}
		if s.fault(faultEnvelopeDocumentTitleIsName) && i < len(req.Documents) {
			e.Documents[i].Title = req.Documents[i]
		}
	}
	e.CreatedAt = s.faultTime(e.CreatedAt, faultEnvelopeCreatedAtNoMillis, faultEnvelopeCreatedAtOffset)
	if t, err := time.Parse(firmakit.TimeFormat, e.CreatedAt); err == nil && s.fault(faultEnvelopeCreatedAtPast) {
		e.CreatedAt = firmakit.FormatTime(t.Add(-time.Hour))
	}
	if s.fault(faultEnvelopeRoutingIgnored) {
		e.Routing = "parallel"
	}
	if s.fault(faultEnvelopeSenderEmailInvalid) {
		e.Sender.Email = strings.Replace(e.Sender.Email, "@", " at ", 1)
	}
	if s.fault(faultEnvelopeSenderNotMerchant) {
		e.Sender = firmakit.Sender{Name: "Servicio de Firma", Email: "no-reply@firma.test"}
	}
	return e
}

// faultTime rewrites a time in firmakit.TimeFormat without its
// milliseconds, with its fraction's trailing zeros trimmed, or in the
// -03:00 offset, when the named fault is on.
func (s envelopeFaults) faultTime(v, noMillis, offset string) string {
	t, err := time.Parse(firmakit.TimeFormat, v)
	if err != nil {
		return v
	}
	switch {
	case s.fault(noMillis):
		return t.UTC().Format("2006-01-02T15:04:05Z")
	case s.fault(faultEnvelopeCreatedAtTrimsZeros):
		return t.UTC().Truncate(10 * time.Millisecond).Format("2006-01-02T15:04:05.999Z")
	case s.fault(offset):
		return t.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
	}
	return v
}
