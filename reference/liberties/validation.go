package liberties

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/firmakit/firmakit/reference"
)

// validationLiberties are the liberties' ValidationDeviations: a request
// read leniently, refusals in other words.
type validationLiberties struct {
	reference.NopValidationDeviations
	*service
}

var _ reference.ValidationDeviations = validationLiberties{}

// Request takes a routing sent empty as absent.
func (s validationLiberties) Request(obj map[string]json.RawMessage) {
	if v, ok := obj["routing"]; ok && s.on[libRoutingEmptyDefault] && string(bytes.TrimSpace(v)) == `""` {
		delete(obj, "routing")
	}
}

// spanish words the refusals of a create request in Spanish, by the
// prefix of the reference's own message.
var spanish = []struct{ en, es string }{
	{"title is required", "el título es obligatorio"},
	{"title must be a string", "el título debe ser un texto"},
	{"routing must be parallel or sequential", "el enrutamiento debe ser parallel o sequential"},
	{"documents is required", "faltan los documentos"},
	{"documents must", "los documentos deben ser una lista de nombres de plantilla"},
	{"unknown document: ", "documento desconocido: "},
	{"document listed twice: ", "documento repetido: "},
	{"signers is required", "faltan los firmantes"},
	{"signers must", "los firmantes deben ser una lista de objetos con key, name y email"},
	{"unknown signer: ", "firmante desconocido: "},
	{"signer listed twice: ", "firmante repetido: "},
	{"invalid email for ", "el correo no es válido para el firmante "},
	{"missing signer: ", "falta el firmante "},
	{"data must be", "los datos deben ser un objeto de textos"},
	{"missing data key: ", "falta el dato "},
	{"unknown data key: ", "dato desconocido: "},
}

// fieldFirst words the refusals "<field>: <fault>" (es holds the new
// words, as in spanish).
var fieldFirst = []struct{ en, es string }{
	{"title is required", "title: required"},
	{"title must be a string", "title: not a string"},
	{"routing must be parallel or sequential", "routing: must be one of parallel, sequential"},
	{"documents is required", "documents: required"},
	{"unknown document: ", "documents: no such template: "},
	{"signers is required", "signers: required"},
	{"unknown signer: ", "signers: not a signer of the templates: "},
	{"signer listed twice: ", "signers: duplicate key: "},
	{"invalid email for ", "signers[].email: not an e-mail address: "},
	{"missing signer: ", "signers: missing key "},
	{"missing data key: ", "data: missing key "},
	{"unknown data key: ", "data: unexpected key "},
}

// Refusal rewords the refusals of a create request.
func (s validationLiberties) Refusal(refusal error) error {
	var api *reference.APIError
	if !errors.As(refusal, &api) || api.Status != http.StatusBadRequest {
		return refusal
	}
	msg := api.Message
	switch {
	case s.on[libMissingListPerItem] && msg == "signers is required":
		msg = "missing signer: signer_1"
	case s.on[libRefusalsSpanish]:
		msg = reword(msg, spanish)
	case s.on[libRefusalsFieldFirst]:
		msg = reword(msg, fieldFirst)
	}
	out := *api
	out.Message = msg
	return &out
}

func reword(msg string, words []struct{ en, es string }) string {
	for _, w := range words {
		if rest, ok := strings.CutPrefix(msg, w.en); ok {
			if strings.HasSuffix(w.en, " ") || w.en == msg {
				return w.es + rest
			}
			return w.es
		}
	}
	return msg
}
