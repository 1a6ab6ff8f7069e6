package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/jsonform"
	"github.com/firmakit/firmakit/steps/engine"
)

func (s *Steps) theBodySentIs(ctx context.Context, body string) error {
	if !json.Valid([]byte(body)) {
		return fmt.Errorf("the feature's body is not JSON: %s", body)
	}
	get(ctx).rawBody = []byte(body)
	return nil
}

func (s *Steps) theBodySentIsTheText(ctx context.Context, text string) error {
	get(ctx).rawBody = []byte(text)
	return nil
}

// layoutBody is a check body with enough in it for a layout to matter.
var layoutBody = map[string]any{"monto": 450000, "titular": "Ana Pérez Ñuñez", "cuotas": []any{1, 2, 3}}

// theBodyIsLaidOut sends the body written unlike a JSON encoder would
// write it, so that a server verifying a re-encoded body is caught.
func (s *Steps) theBodyIsLaidOut(ctx context.Context, layout string) error {
	sc := get(ctx)
	v := sc.body
	if sc.endpoint == "check" {
		v = layoutBody
	}
	var (
		out []byte
		err error
	)
	switch layout {
	case "indented":
		out, err = json.MarshalIndent(v, "", "    ")
		out = append(out, '\n')
	case "escaped-unicode":
		out, err = json.Marshal(v)
		out = jsonform.EscapeNonASCII(out)
	case "keys-reversed":
		out, err = jsonform.ReversedKeys(v)
	case "padded":
		// White space around the one value is still one JSON text.
		out, err = json.Marshal(v)
		out = append(append([]byte("\r\n\t "), out...), " \n"...)
	}
	if err != nil {
		return err
	}
	sc.rawBody = out
	return nil
}

// theBodyIsAJSONObjectOfBytes pads a JSON object to exactly n bytes.
// theBodyIsAJSONObjectOfBytes sends a body of exactly n bytes: on the
// check endpoint an object with one long string, on the create endpoint
// the scenario's create request padded with white space before its
// closing brace, the same request to any JSON reader.
func (s *Steps) theBodyIsAJSONObjectOfBytes(ctx context.Context, n int) error {
	sc := get(ctx)
	if sc.endpoint == "signature" {
		b, err := json.Marshal(sc.body)
		if err != nil {
			return err
		}
		if n < len(b) {
			return fmt.Errorf("the create request is %d bytes, more than the %d asked for", len(b), n)
		}
		sc.rawBody = append(append(b[:len(b)-1:len(b)-1], bytes.Repeat([]byte(" "), n-len(b))...), '}')
		return nil
	}
	const head, tail = `{"padding":"`, `"}`
	if n < len(head)+len(tail) {
		return fmt.Errorf("a JSON object of %d bytes is too small to build", n)
	}
	sc.rawBody = []byte(head + strings.Repeat("a", n-len(head)-len(tail)) + tail)
	return nil
}

// lenientBody is the check body the lenient-JSON rows flaw: an object
// with a member, so that a flaw has a place to go.
var lenientBody = map[string]any{"monto": 450000, "titular": "Ana Pérez"}

// theBodyIsWrittenWith sends the scenario's request (for the check
// endpoint, an object with members) written with one flaw that JSON5 and
// JavaScript readers take and JSON does not: a trailing comma, a comment,
// single-quoted keys, or NaN for a number (on the create endpoint, NaN
// stands in a data value's place).
func (s *Steps) theBodyIsWrittenWith(ctx context.Context, flaw string) error {
	sc := get(ctx)
	v := sc.body
	if sc.endpoint == "check" {
		v = lenientBody
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	switch flaw {
	case "trailing-comma":
		b = append(b[:len(b)-1:len(b)-1], ",}"...)
	case "comment":
		b = append([]byte("{/* firmakit */"), b[1:]...)
	case "single-quotes":
		// Every key in single quotes: the keys hold no quote of either kind.
		b = regexp.MustCompile(`"([A-Za-z_0-9]+)":`).ReplaceAll(b, []byte(`'$1':`))
	case "nan":
		b = regexp.MustCompile(`("(monto|monto_mensual)":)("[^"]*"|\d+)`).ReplaceAll(b, []byte(`${1}NaN`))
		if !bytes.Contains(b, []byte("NaN")) {
			b = append(b[:len(b)-1:len(b)-1], `,"firmakit_nan":NaN}`...)
		}
	default:
		return fmt.Errorf("the feature names an unknown flaw %q", flaw)
	}
	sc.rawBody = b
	return nil
}

func (s *Steps) theURLCarriesTheQuery(ctx context.Context, q string) error {
	get(ctx).query = q
	return nil
}

func (s *Steps) headerName(which string) string {
	switch which {
	case "key":
		return s.T.Profile.Request.KeyHeader
	case "timestamp":
		return s.T.Profile.Request.TimestampHeader
	}
	return s.T.Profile.Request.SignatureHeader
}

func (s *Steps) theHeaderIsMissing(ctx context.Context, which string) error {
	get(ctx).missing[s.headerName(which)] = true
	return nil
}

func (s *Steps) theHeaderIsEmpty(ctx context.Context, which string) error {
	get(ctx).empty[s.headerName(which)] = true
	return nil
}

func (s *Steps) noAuthenticationHeaderIsSent(ctx context.Context) error {
	get(ctx).noAuth = true
	return nil
}

func (s *Steps) theTimestampIsSecondsOff(ctx context.Context, secs int) error {
	get(ctx).offset = time.Duration(secs) * time.Second
	return nil
}

// theTimestampIsTheCurrentTimeWrittenAs sends the current time in a form
// written another way than firmakit's own client writes it, valid or not:
// {old} is the Unix time in seconds 100 s before the profile's
// tolerance, {now} is the Unix time in seconds, {now-ms} in milliseconds, {now-hex}
// in hexadecimal, {now-spaced} in seconds with a space after the fifth
// digit. The timestamp is signed as sent.
func (s *Steps) theTimestampIsTheCurrentTimeWrittenAs(ctx context.Context, form string) error {
	get(ctx).stamp = func(now time.Time) string {
		sec := strconv.FormatInt(now.Unix(), 10)
		old := now.Add(-s.T.Profile.Request.Tolerance - 100*time.Second).Unix()
		return strings.NewReplacer(
			"{old}", strconv.FormatInt(old, 10),
			"{now}", sec,
			"{now-ms}", strconv.FormatInt(now.UnixMilli(), 10),
			"{now-hex}", strconv.FormatInt(now.Unix(), 16),
			"{now-spaced}", sec[:5]+" "+sec[5:],
		).Replace(form)
	}
	return nil
}

// theContentTypeIs sends another spelling of the JSON content type
// (parameters, another case), or another type.
func (s *Steps) theContentTypeIs(ctx context.Context, ct string) error {
	get(ctx).contentType = ct
	return nil
}

// theAuthenticationHeadersAreNamedIn spells the three header names in
// another case: HTTP header names are case-insensitive.
func (s *Steps) theAuthenticationHeadersAreNamedIn(ctx context.Context, how string) error {
	get(ctx).nameCase = how
	return nil
}

func (s *Steps) theRequestIsSignedWithTheCredential(ctx context.Context, which string) error {
	sc := get(ctx)
	switch which {
	case "unknown":
		sc.cred = firmakit.Credential{KeyID: "firmakit_unknown_key", Secret: "firmakit_unknown_secret"}
	case "key-in-another-case":
		// The merchant's own key with its case changed, signed with its
		// own secret: a key is an identity, compared exactly.
		other := strings.ToUpper(s.T.Credential.KeyID)
		if other == s.T.Credential.KeyID {
			other = strings.ToLower(other)
		}
		if other == s.T.Credential.KeyID {
			return s.notRun(ctx, "the merchant's key has no letters to write in another case")
		}
		sc.cred = firmakit.Credential{KeyID: other, Secret: s.T.Credential.Secret}
	case "disabled":
		if !s.T.Disabled.Given() {
			return s.notRun(ctx, "no disabled credential given (--disabled-key, --disabled-secret)")
		}
		sc.cred = s.T.Disabled
	case "other-merchant":
		if !s.T.Other.Given() {
			return s.notRun(ctx, "no other merchant's credential given (--other-key, --other-secret)")
		}
		sc.cred = s.T.Other
	}
	return nil
}

func (s *Steps) theRequestIsSignedWithAWrongSecret(ctx context.Context) error {
	get(ctx).cred.Secret = s.T.Credential.Secret + "_wrong"
	return nil
}

func (s *Steps) theSignatureCoversAnotherBody(ctx context.Context) error {
	get(ctx).signBody = []byte(`{"firmakit":"another body"}`)
	return nil
}

func (s *Steps) theSignatureCoversAnotherPath(ctx context.Context) error {
	get(ctx).signPath = "/" + s.T.APIVersion + "/check/another_merchant_path"
	return nil
}

func (s *Steps) theSignatureCoversAnotherMethod(ctx context.Context) error {
	get(ctx).signVerb = http.MethodPut
	return nil
}

// theSignatureCoversAnotherTimestamp signs a time one second before the
// one sent: both are within the tolerance, only the signature differs.
func (s *Steps) theSignatureCoversAnotherTimestamp(ctx context.Context) error {
	sc := get(ctx)
	sc.stamp = func(now time.Time) string { return strconv.FormatInt(now.Unix(), 10) }
	sc.signStamp = func(now time.Time) string { return strconv.FormatInt(now.Unix()-1, 10) }
	return nil
}

// signsQuery tells why the profile's string to sign has no query to
// leave out or decode, if so.
func (s *Steps) signsQuery() string {
	if !slices.Contains(s.T.Profile.Request.StringToSign, firmakit.PartRequestTarget) {
		return "the profile's string to sign has no query (it signs no request target)"
	}
	return ""
}

func (s *Steps) theSignatureLeavesOutTheQuery(ctx context.Context) error {
	if why := s.signsQuery(); why != "" {
		return s.notRun(ctx, why)
	}
	none := ""
	get(ctx).signQuery = &none
	return nil
}

func (s *Steps) theSignatureCoversTheDecodedQuery(ctx context.Context) error {
	if why := s.signsQuery(); why != "" {
		return s.notRun(ctx, why)
	}
	sc := get(ctx)
	d, err := url.QueryUnescape(sc.query)
	if err != nil {
		return fmt.Errorf("the feature's query %q: %w", sc.query, err)
	}
	if d == sc.query {
		return fmt.Errorf("the feature's query %q has nothing to decode", sc.query)
	}
	get(ctx).signQuery = &d
	return nil
}

// theSignatureIsSentInUpperCase changes only the letter case of a hex
// signature; other encodings have no such variant.
func (s *Steps) theSignatureIsSentInUpperCase(ctx context.Context) error {
	if !strings.EqualFold(s.T.Profile.Request.Encoding, "hex") {
		return s.notRun(ctx, fmt.Sprintf("the profile's request signatures are %s, which has no upper-case variant", s.T.Profile.Request.Encoding))
	}
	get(ctx).upperSig = true
	return nil
}

func (s *Steps) theSignatureIsNotProperlyEncoded(ctx context.Context) error {
	get(ctx).badSig = "not-an-encoding!*~"
	return nil
}

func (s *Steps) theSignatureIsReplacedByAWrongOne(ctx context.Context) error {
	// The right length and alphabet, the wrong value.
	get(ctx).badSig = s.T.Profile.RequestSignature("firmakit", firmakit.RequestParts{Timestamp: "1"})
	return nil
}

func (s *Steps) theSignatureIsAltered(ctx context.Context, how string) error {
	get(ctx).alterSig = how
	return nil
}

// alterSignature changes the decoded bytes of a right signature, so that
// the change is real in any encoding.
func alterSignature(p *firmakit.Profile, sig, how string) (string, error) {
	b, err := p.DecodeRequestSignature(sig)
	if err != nil {
		return "", err
	}
	switch how {
	case "first-byte":
		b[0] ^= 0x01
	case "last-byte":
		b[len(b)-1] ^= 0x80
	case "truncated":
		b = b[:len(b)-1]
	case "extended":
		b = append(b, b[0])
	}
	return p.EncodeRequestSignature(b), nil
}

// itBreaksTheCheck makes the request fail one check of the check order
// (defaults.md A), and that check only.
func (s *Steps) itBreaksTheCheck(ctx context.Context, check string) error {
	switch check {
	case "headers":
		return s.theHeaderIsMissing(ctx, "key")
	case "timestamp":
		return s.theTimestampIsSecondsOff(ctx, -3600)
	case "credentials":
		return s.theRequestIsSignedWithTheCredential(ctx, "unknown")
	case "signature":
		return s.theSignatureIsReplacedByAWrongOne(ctx)
	}
	return s.theBodySentIsTheText(ctx, "not json")
}

// Requests to what the endpoint is not: another method, another version
// segment, another merchant's path. Each is signed as sent, so that only
// the one thing changed can decide the answer.

func (s *Steps) theMethodIs(ctx context.Context, method string) error {
	get(ctx).verb = method
	return nil
}

// theVersionSegmentOfThePathIs sends the path with another version
// segment: {version} is the one the endpoint accepts, {VERSION} the same
// in upper case, {next} the next version (v2 after v1).
func (s *Steps) theVersionSegmentOfThePathIs(ctx context.Context, form string) error {
	sc := get(ctx)
	accepted := s.acceptedVersion(sc)
	seg := strings.NewReplacer("{version}", accepted, "{VERSION}", strings.ToUpper(accepted), "{next}", nextVersion(accepted)).Replace(form)
	if seg == accepted {
		return s.notRun(ctx, fmt.Sprintf("the version segment %q is the one the target accepts (api version %s)", seg, accepted))
	}
	sc.version = &seg
	return nil
}

// nextVersion is v with its last number one higher (v1 gives v2,
// 2024-01 gives 2024-02), or v with "2" after it when it has no number.
func nextVersion(v string) string {
	end := strings.LastIndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) + 1
	if end == 0 {
		return v + "2"
	}
	start := end
	for start > 0 && v[start-1] >= '0' && v[start-1] <= '9' {
		start--
	}
	n, err := strconv.Atoi(v[start:end])
	if err != nil {
		return v + "2"
	}
	next := strconv.Itoa(n + 1)
	if pad := end - start - len(next); pad > 0 {
		next = strings.Repeat("0", pad) + next
	}
	return v[:start] + next + v[end:]
}

// theMerchantSegmentOfThePathIs sends the path of another merchant than
// the key's: {merchant} is the key's merchant, {MERCHANT} the same in
// upper case.
func (s *Steps) theMerchantSegmentOfThePathIs(ctx context.Context, form string) error {
	sc := get(ctx)
	own := s.T.MerchantID
	seg := strings.NewReplacer("{merchant}", own, "{MERCHANT}", strings.ToUpper(own)).Replace(form)
	if seg == own {
		return s.notRun(ctx, fmt.Sprintf("the merchant segment %q is the key's own merchant", seg))
	}
	sc.merchant = &seg
	return nil
}

// bindTamperSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindTamperSentences(sc registrar) {
	sc.Step(engine.Compiled(`^the body sent is the text "([\s\S]*)"$`), s.theBodySentIsTheText)
	sc.Step(engine.Compiled(`^el cuerpo enviado es el texto "([\s\S]*)"$`), s.theBodySentIsTheText)
	sc.Step(engine.Compiled(`^the body sent is ([[{].*)$`), s.theBodySentIs)
	sc.Step(engine.Compiled(`^el cuerpo enviado es ([[{].*)$`), s.theBodySentIs)
	sc.Step(engine.Compiled(`^the body is written with "(trailing-comma|comment|single-quotes|nan)"$`), s.theBodyIsWrittenWith)
	sc.Step(engine.Compiled(`^el cuerpo se escribe con "(trailing-comma|comment|single-quotes|nan)"$`), s.theBodyIsWrittenWith)
	sc.Step(engine.Compiled(`^the body is laid out "(indented|escaped-unicode|keys-reversed|padded)"$`), s.theBodyIsLaidOut)
	sc.Step(engine.Compiled(`^el cuerpo se escribe "(indented|escaped-unicode|keys-reversed|padded)"$`), s.theBodyIsLaidOut)
	sc.Step(engine.Compiled(`^the Content-Type is "([^"]*)"$`), s.theContentTypeIs)
	sc.Step(engine.Compiled(`^el Content-Type es "([^"]*)"$`), s.theContentTypeIs)
	sc.Step(engine.Compiled(`^the authentication headers are named in "(lower|upper|mixed)" case$`), s.theAuthenticationHeadersAreNamedIn)
	sc.Step(engine.Compiled(`^las cabeceras de autenticación se nombran en caja "(lower|upper|mixed)"$`), s.theAuthenticationHeadersAreNamedIn)
	sc.Step(engine.Compiled(`^the body is a JSON object of (\d+) bytes$`), s.theBodyIsAJSONObjectOfBytes)
	sc.Step(engine.Compiled(`^el cuerpo es un objeto JSON de (\d+) bytes$`), s.theBodyIsAJSONObjectOfBytes)
	sc.Step(engine.Compiled(`^the URL carries the query "([^"]*)"$`), s.theURLCarriesTheQuery)
	sc.Step(engine.Compiled(`^la URL lleva la consulta "([^"]*)"$`), s.theURLCarriesTheQuery)
	sc.Step(engine.Compiled(`^the "(key|timestamp|signature)" header is missing$`), s.theHeaderIsMissing)
	sc.Step(engine.Compiled(`^falta la cabecera "(key|timestamp|signature)"$`), s.theHeaderIsMissing)
	sc.Step(engine.Compiled(`^the "(key|timestamp|signature)" header is empty$`), s.theHeaderIsEmpty)
	sc.Step(engine.Compiled(`^la cabecera "(key|timestamp|signature)" está vacía$`), s.theHeaderIsEmpty)
	sc.Step(engine.Compiled(`^no authentication header is sent$`), s.noAuthenticationHeaderIsSent)
	sc.Step(engine.Compiled(`^no se envía ninguna cabecera de autenticación$`), s.noAuthenticationHeaderIsSent)
	sc.Step(engine.Compiled(`^the timestamp is (-?\d+) seconds off$`), s.theTimestampIsSecondsOff)
	sc.Step(engine.Compiled(`^la marca de tiempo está desfasada en (-?\d+) segundos$`), s.theTimestampIsSecondsOff)
	sc.Step(engine.Compiled(`^the timestamp is the current time written as "([^"]*)"$`), s.theTimestampIsTheCurrentTimeWrittenAs)
	sc.Step(engine.Compiled(`^la marca de tiempo es la hora actual escrita como "([^"]*)"$`), s.theTimestampIsTheCurrentTimeWrittenAs)
	sc.Step(engine.Compiled(`^the request is signed with the "(unknown|key-in-another-case|disabled|other-merchant)" credential$`), s.theRequestIsSignedWithTheCredential)
	sc.Step(engine.Compiled(`^la solicitud se firma con la credencial "(unknown|key-in-another-case|disabled|other-merchant)"$`), s.theRequestIsSignedWithTheCredential)
	sc.Step(engine.Compiled(`^the request is signed with a wrong secret$`), s.theRequestIsSignedWithAWrongSecret)
	sc.Step(engine.Compiled(`^la solicitud se firma con un secreto incorrecto$`), s.theRequestIsSignedWithAWrongSecret)
	sc.Step(engine.Compiled(`^the signature covers another body$`), s.theSignatureCoversAnotherBody)
	sc.Step(engine.Compiled(`^la firma cubre otro cuerpo$`), s.theSignatureCoversAnotherBody)
	sc.Step(engine.Compiled(`^the signature covers another path$`), s.theSignatureCoversAnotherPath)
	sc.Step(engine.Compiled(`^la firma cubre otra ruta$`), s.theSignatureCoversAnotherPath)
	sc.Step(engine.Compiled(`^the signature covers another method$`), s.theSignatureCoversAnotherMethod)
	sc.Step(engine.Compiled(`^la firma cubre otro método$`), s.theSignatureCoversAnotherMethod)
	sc.Step(engine.Compiled(`^the signature covers another timestamp$`), s.theSignatureCoversAnotherTimestamp)
	sc.Step(engine.Compiled(`^la firma cubre otra marca de tiempo$`), s.theSignatureCoversAnotherTimestamp)
	sc.Step(engine.Compiled(`^the signature leaves out the query$`), s.theSignatureLeavesOutTheQuery)
	sc.Step(engine.Compiled(`^la firma deja fuera la consulta$`), s.theSignatureLeavesOutTheQuery)
	sc.Step(engine.Compiled(`^the signature covers the decoded query$`), s.theSignatureCoversTheDecodedQuery)
	sc.Step(engine.Compiled(`^la firma cubre la consulta decodificada$`), s.theSignatureCoversTheDecodedQuery)
	sc.Step(engine.Compiled(`^the signature is sent in upper case$`), s.theSignatureIsSentInUpperCase)
	sc.Step(engine.Compiled(`^la firma se envía en mayúsculas$`), s.theSignatureIsSentInUpperCase)
	sc.Step(engine.Compiled(`^the signature is not properly encoded$`), s.theSignatureIsNotProperlyEncoded)
	sc.Step(engine.Compiled(`^la firma no está bien codificada$`), s.theSignatureIsNotProperlyEncoded)
	sc.Step(engine.Compiled(`^the signature is altered: "(first-byte|last-byte|truncated|extended)"$`), s.theSignatureIsAltered)
	sc.Step(engine.Compiled(`^la firma se altera: "(first-byte|last-byte|truncated|extended)"$`), s.theSignatureIsAltered)
	sc.Step(engine.Compiled(`^the method is "(GET|PUT|PATCH|DELETE)"$`), s.theMethodIs)
	sc.Step(engine.Compiled(`^el método es "(GET|PUT|PATCH|DELETE)"$`), s.theMethodIs)
	sc.Step(engine.Compiled(`^the version segment of the path is "([^"]*)"$`), s.theVersionSegmentOfThePathIs)
	sc.Step(engine.Compiled(`^el segmento de versión de la ruta es "([^"]*)"$`), s.theVersionSegmentOfThePathIs)
	sc.Step(engine.Compiled(`^the merchant segment of the path is "([^"]*)"$`), s.theMerchantSegmentOfThePathIs)
	sc.Step(engine.Compiled(`^el segmento de comercio de la ruta es "([^"]*)"$`), s.theMerchantSegmentOfThePathIs)
	sc.Step(engine.Compiled("^"+`it breaks the `+checkParam+` check`+"$"), s.itBreaksTheCheck)
	sc.Step(engine.Compiled("^"+`incumple la comprobación `+checkParam+"$"), s.itBreaksTheCheck)
}

// checkParam is the parameter of a sentence that names one of the
// authentication checks of defaults.md A.
const checkParam = `"(headers|timestamp|credentials|signature|body)"`
