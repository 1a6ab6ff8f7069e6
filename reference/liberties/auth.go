package liberties

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// authLiberties are the liberties' AuthDeviations: authentication, the
// error answers and the check's 200.
type authLiberties struct {
	reference.NopAuthDeviations
	*service
}

var _ reference.AuthDeviations = authLiberties{}

// Auth wraps the correct authentication: headers added to every answer,
// the body limit before the headers, and a timestamp with a plus sign
// read as its digits.
func (s authLiberties) Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc {
	if !s.any(libResponseHeaders, libTimestampPlusSign, libBodyLimitFirst) {
		return correct
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		inner := correct(next)
		return func(c echo.Context) error {
			r := c.Request()
			if s.on[libResponseHeaders] {
				h := c.Response().Header()
				h.Set("X-Request-Id", uuid.NewString())
				h.Set("Cache-Control", "no-store")
				h.Set("Connection", "close")
			}
			if s.on[libBodyLimitFirst] && r.ContentLength > s.seam.MaxBody() {
				return &reference.APIError{Status: http.StatusRequestEntityTooLarge,
					Message: fmt.Sprintf("Request body too large: the limit is %d bytes", s.seam.MaxBody())}
			}
			if s.on[libTimestampPlusSign] {
				s.plusSign(r)
			}
			return inner(c)
		}
	}
}

// plusSign reads a timestamp written +<digits> as strconv.ParseInt does:
// when the signature is valid over the header as sent, the request goes
// on to the correct checks with the digits, signed anew, so that the
// window and the credentials are checked as for any other request.
func (s authLiberties) plusSign(r *http.Request) {
	p := s.seam.Profile()
	ts := r.Header.Get(p.Request.TimestampHeader)
	digits := strings.TrimPrefix(ts, "+")
	if digits == ts || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return
	}
	cred, ok := s.seam.Config().Credential(r.Header.Get(p.Request.KeyHeader))
	if !ok {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.seam.MaxBody()+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || int64(len(body)) > s.seam.MaxBody() {
		return
	}
	parts := firmakit.RequestParts{Timestamp: ts, Method: r.Method, RequestTarget: firmakit.RequestTarget(r),
		KeyID: cred.KeyID, Body: body}
	want, err1 := p.DecodeRequestSignature(p.RequestSignature(cred.Secret, parts))
	got, err2 := p.DecodeRequestSignature(r.Header.Get(p.Request.SignatureHeader))
	if err1 != nil || err2 != nil || !hmac.Equal(want, got) {
		return
	}
	parts.Timestamp = digits
	r.Header.Set(p.Request.TimestampHeader, digits)
	r.Header.Set(p.Request.SignatureHeader, p.RequestSignature(cred.Secret, parts))
}

// ErrorHandler rewrites the correct error answers as the liberties say:
// keys added, indented, another charset, or the standard library's plain
// 404, 405 and redirects.
func (s authLiberties) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	if !s.any(libErrorBodyExtraKeys, libAnswersIndented, libAnswersCharset, libMethod405Text, libNotFoundText, libCleanPathRedirect) {
		return correct
	}
	return func(err error, c echo.Context) {
		res := c.Response()
		p := c.Request().URL.EscapedPath()
		if clean := path.Clean(p); s.on[libCleanPathRedirect] && clean != p && clean+"/" != p &&
			!res.Committed && c.Request().Method != http.MethodHead {
			http.Redirect(res, c.Request(), clean, http.StatusMovedPermanently)
			return
		}
		status, header, body, ok := s.seam.ErrorAnswer(correct, err, c)
		if !ok {
			return
		}
		for k, v := range header {
			res.Header()[k] = v
		}
		switch {
		case status == http.StatusMethodNotAllowed && s.on[libMethod405Text]:
			res.Header().Set(echo.HeaderAllow, http.MethodPost)
			http.Error(res, "Method Not Allowed", status)
			return
		case status == http.StatusNotFound && s.on[libNotFoundText]:
			http.Error(res, "404 page not found", status)
			return
		}
		if s.on[libErrorBodyExtraKeys] {
			body = setMember(body, "error", strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"))
			body = setMember(body, "request_id", uuid.NewString())
		}
		s.writeJSON(res, status, body)
	}
}

// Check writes the check's 200 with keys added, indented or in another
// charset.
func (s authLiberties) Check(c echo.Context, _ []byte, refusal error) (bool, error) {
	if refusal != nil || !s.any(libCheckAnswerExtraKeys, libAnswersIndented, libAnswersCharset) {
		return false, refusal
	}
	b, _ := json.Marshal(firmakit.APIResponse{StatusCode: http.StatusOK, Message: "Authenticated"})
	if s.on[libCheckAnswerExtraKeys] {
		b = setMember(b, "merchant_id", c.Param("merchant_id"))
		b = setMember(b, "request_id", uuid.NewString())
	}
	s.writeJSON(c.Response(), http.StatusOK, b)
	return true, nil
}
