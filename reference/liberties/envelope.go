package liberties

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// envelopeLiberties are the liberties' EnvelopeDeviations: the contract's
// id, and its 201 with a key added.
type envelopeLiberties struct{ *service }

var _ reference.EnvelopeDeviations = envelopeLiberties{}

// Envelope writes signature_id in upper case or as a UUID v7.
func (s envelopeLiberties) Envelope(env *firmakit.Envelope) {
	switch {
	case s.on[libSignatureIDUpper]:
		env.SignatureID = strings.ToUpper(env.SignatureID)
	case s.on[libSignatureIDv7]:
		if id, err := uuid.NewV7(); err == nil {
			env.SignatureID = id.String()
		}
	}
}

// Created writes the 201 with a key added, indented or in another charset.
func (s envelopeLiberties) Created(c echo.Context, env firmakit.Envelope, _ firmakit.CreateSignatureRequest) (bool, error) {
	if !s.any(libCreateAnswerExtraKey, libAnswersIndented, libAnswersCharset) {
		return false, nil
	}
	b, err := json.Marshal(firmakit.APIResponse{StatusCode: http.StatusCreated, Message: "Signature request created", Data: &env})
	if err != nil {
		return true, err
	}
	if s.on[libCreateAnswerExtraKey] {
		b = setMember(b, "request_id", uuid.NewString())
	}
	s.writeJSON(c.Response(), http.StatusCreated, b)
	return true, nil
}
