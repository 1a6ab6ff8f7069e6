// Package faults is the reference server's deliberate faults: each one
// departs from exactly one rule of the interface or of the bundled
// profile, through the server's Deviations, so that a conformance suite's
// power can be measured by whether it notices. Nothing else should run
// them.
package faults

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// Areas of the faults, named after the part of the service they break.
const (
	AreaAuth         = "auth"         // request authentication and error bodies (defaults.md A)
	AreaEnvelope     = "envelope"     // the create-signature response (interface §2.2, defaults.md C)
	AreaValidation   = "validation"   // refusals of a create-signature request (defaults.md C; its path, interface §4.2)
	AreaNotification = "notification" // demo notifications and their delivery (interface §6, defaults.md B and D)
)

// ErrUnknownFault is returned by New for a name that List does not list.
var ErrUnknownFault = errors.New("unknown fault")

// Fault is a deliberate deviation of the reference server from exactly one
// rule of service-interface.md or of the bundled profile (defaults.md),
// everything else staying correct. Faults are off unless named to New;
// they exist to measure whether the conformance suite
// notices each deviation, never for anything else.
type Fault struct {
	Name        string // what New and 'firmakit serve --fault' take
	Area        string // AreaAuth, AreaEnvelope, AreaValidation or AreaNotification
	Rule        string // the rule broken, cited from the two documents
	Description string // what the faulty server does instead
}

// Names of the faults. The table below documents each one.
const (
	faultAuthEmptyHeaderAccepted        = "auth-empty-header-accepted"
	faultAuthMissingHeaders401          = "auth-missing-headers-401"
	faultAuthMissingHeaderLabel         = "auth-missing-header-label"
	faultAuthFutureTimestampAccepted    = "auth-future-timestamp-accepted"
	faultAuthOldTimestampAccepted       = "auth-old-timestamp-accepted"
	faultAuthTolerance600s              = "auth-tolerance-600s"
	faultAuthTolerance60s               = "auth-tolerance-60s"
	faultAuthTimestampMilliseconds      = "auth-timestamp-milliseconds-accepted"
	faultAuthTimestampLenient           = "auth-timestamp-lenient"
	faultAuthDisabledKeyAccepted        = "auth-disabled-key-accepted"
	faultAuthOtherMerchantKeyAccepted   = "auth-other-merchant-key-accepted"
	faultAuthUnknownKeyInvalidSignature = "auth-unknown-key-invalid-signature"
	faultAuthUppercaseSignatureRefused  = "auth-uppercase-signature-refused"
	faultAuthMethodNotSigned            = "auth-method-not-signed"
	faultAuthQueryNotSigned             = "auth-query-not-signed"
	faultAuthTargetDecoded              = "auth-target-decoded"
	faultAuthBodyReserialised           = "auth-body-reserialised"
	faultAuthTimestampNotSigned         = "auth-timestamp-not-signed"
	faultAuthSignaturePrefixCompared    = "auth-signature-prefix-compared"
	faultAuthSignatureBeforeCredentials = "auth-signature-before-credentials"
	faultAuthCredentialsBeforeTimestamp = "auth-credentials-before-timestamp"
	faultAuthTimestampBeforeHeaders     = "auth-timestamp-before-headers"
	faultAuthJSONBeforeSignature        = "auth-json-before-signature"
	faultAuthErrorStatusCodeMismatch    = "auth-error-status-code-mismatch"
	faultAuthErrorTextPlain             = "auth-error-text-plain"
	faultAuthNonJSONAccepted            = "auth-non-json-accepted"
	faultAuthNonObjectAccepted          = "auth-non-object-accepted"
	faultAuthInvalidJSON500             = "auth-invalid-json-500"
	faultAuthNoBodyLimit                = "auth-no-body-limit"
	faultAuthBodyLimit512K              = "auth-body-limit-512k"
	faultAuthCheckAnyAPIVersion         = "auth-check-any-api-version"
	faultAuthCheckAnyMethod             = "auth-check-any-method"
	faultAuthCreateAnyMethod            = "auth-create-any-method"
	faultAuthMerchantCaseless           = "auth-merchant-id-case-insensitive"
	faultAuthTimestampLeadingZero       = "auth-timestamp-leading-zero-refused"
	faultAuthTimestampSpacesIgnored     = "auth-timestamp-spaces-ignored"
	faultAuthContentTypeExact           = "auth-content-type-parameters-refused"
	faultAuthContentTypeCase            = "auth-content-type-case-sensitive"
	faultAuthTrailingDataAccepted       = "auth-trailing-data-accepted"
	faultAuthBodyPaddingRefused         = "auth-body-padding-refused"
	faultAuthCreateBodyLimit2MiB        = "auth-create-body-limit-2mib"
	faultAuthKeyCaseInsensitive         = "auth-key-case-insensitive"
	faultAuthCheckJSON5Accepted         = "auth-check-json5-accepted"
	faultAuthCreateJSON5Accepted        = "auth-create-json5-accepted"

	faultValidationEmailPlusRefused = "validation-email-plus-refused"
	faultValidationNameMax60        = "validation-name-max-60"

	faultEnvelopeExtraField             = "envelope-extra-field"
	faultEnvelopeRoutingMissing         = "envelope-routing-missing"
	faultEnvelopeSenderNull             = "envelope-sender-null"
	faultEnvelopeStatusLowercase        = "envelope-status-lowercase"
	faultEnvelopeTitleCollapsed         = "envelope-title-collapsed"
	faultEnvelopeTitleTruncated         = "envelope-title-truncated"
	faultEnvelopeTitleASCII             = "envelope-title-ascii"
	faultEnvelopeRecipientsRequestOrder = "envelope-recipients-request-order"
	faultEnvelopeRecipientStatusUpper   = "envelope-recipient-status-uppercase"
	faultEnvelopeDocumentsFrom1         = "envelope-documents-from-1"
	faultEnvelopeDocumentTitleIsName    = "envelope-document-title-is-name"
	faultEnvelopeCreatedAtNoMillis      = "envelope-created-at-no-millis"
	faultEnvelopeCreatedAtOffset        = "envelope-created-at-offset"
	faultEnvelopeCreatedAtPast          = "envelope-created-at-past"
	faultEnvelopeSignatureIDNotUUID     = "envelope-signature-id-not-uuid"
	faultEnvelopeSignatureIDReused      = "envelope-signature-id-reused"
	faultEnvelopeRoutingIgnored         = "envelope-routing-ignored"
	faultEnvelopeHTTP200                = "envelope-http-200"
	faultEnvelopeStatusCode200          = "envelope-status-code-200"
	faultEnvelopeMessageMissing         = "envelope-message-missing"
	faultEnvelopeSenderEmailInvalid     = "envelope-sender-email-invalid"
	faultEnvelopeMessageReworded        = "envelope-message-reworded"
	faultEnvelopeSenderNotMerchant      = "envelope-sender-not-merchant"

	faultValidationUnknownDataKey   = "validation-unknown-data-key-accepted"
	faultValidationMissingDataKey   = "validation-missing-data-key-accepted"
	faultValidationMissingSigner    = "validation-missing-signer-accepted"
	faultValidationDuplicateSigner  = "validation-duplicate-signer-accepted"
	faultValidationUnknownSigner    = "validation-unknown-signer-accepted"
	faultValidationInvalidEmail     = "validation-invalid-email-accepted"
	faultValidationUnknownDocument  = "validation-unknown-document-accepted"
	faultValidationMissingTitle     = "validation-missing-title-accepted"
	faultValidationWrongType500     = "validation-wrong-type-500"
	faultValidationMessagesReworded = "validation-messages-reworded"
	faultValidationRoutingUnchecked = "validation-routing-unchecked"
	faultValidationRoutingCaseless  = "validation-routing-case-insensitive"
	faultValidationCreateAnyVersion = "validation-create-any-version"
	faultValidationOtherVersionDemo = "validation-create-other-version-notifies"
	faultValidationMessageNoField   = "validation-message-without-field"

	faultNotificationImmediate             = "notification-immediate"
	faultNotificationLate                  = "notification-late"
	faultNotificationTwice                 = "notification-twice"
	faultNotificationNever                 = "notification-never"
	faultNotificationRedelivered           = "notification-redelivered"
	faultNotificationContentTypeText       = "notification-content-type-text"
	faultNotificationWrongMerchantID       = "notification-wrong-merchant-id"
	faultNotificationWrongType             = "notification-wrong-type"
	faultNotificationTitleCollapsed        = "notification-title-collapsed"
	faultNotificationTimestampStale        = "notification-timestamp-stale"
	faultNotificationTimestampMillis       = "notification-timestamp-milliseconds"
	faultNotificationNoRetry               = "notification-no-retry"
	faultNotificationRetryNewEventID       = "notification-retry-new-event-id"
	faultNotificationRetryImmediate        = "notification-retry-immediate"
	faultNotificationRetryAfter204         = "notification-retry-after-204"
	faultNotificationNoRetryAfter4xx       = "notification-no-retry-after-4xx"
	faultNotificationLate2xxCounts         = "notification-late-2xx-counts"
	faultNotificationNoRetryAfterClose     = "notification-no-retry-after-close"
	faultNotificationRetryScheduleFlat     = "notification-retry-schedule-flat"
	faultNotificationEventIDReused         = "notification-event-id-reused"
	faultNotificationEventIDEmpty          = "notification-event-id-empty"
	faultNotificationNonDemoTitle          = "notification-non-demo-title"
	faultNotificationPrefixCaseless        = "notification-prefix-case-insensitive"
	faultNotificationPrefixAnywhere        = "notification-prefix-anywhere"
	faultNotificationWrongState            = "notification-wrong-state"
	faultNotificationDocumentURLAlways     = "notification-document-url-always"
	faultNotificationDocumentURLMissing    = "notification-document-url-missing"
	faultNotificationDocumentURL404        = "notification-document-url-404"
	faultNotificationReasonMissing         = "notification-reason-missing"
	faultNotificationReasonOnSigned        = "notification-reason-on-signed"
	faultNotificationNullKeys              = "notification-null-keys"
	faultNotificationSignatureIDMismatch   = "notification-signature-id-mismatch"
	faultNotificationDemoFalse             = "notification-demo-false"
	faultNotificationSignedBodyDiffers     = "notification-signed-body-differs"
	faultNotificationWrongSecret           = "notification-wrong-secret"
	faultNotificationSignatureUppercase    = "notification-signature-uppercase"
	faultNotificationSignatureHeaderSpaced = "notification-signature-header-spaced"
	faultNotification3xxDelivered          = "notification-3xx-delivered"
	faultNotificationSignatureHeaderName   = "notification-signature-header-renamed"
)

// Values the faults put where a correct server puts something else.
const (
	faultyMaxBody      = 64 << 20 // "no limit": far above any request the suite sends
	faultySmallMaxBody = 512 << 10
	faultyRedelivery   = 2 * time.Second
	faultyLateDelay    = 2 * time.Second
	// faultyDeliveryTimeout is how long a delivery waits for its answer
	// when a late 2xx counts: far past the profile's 10 s.
	faultyDeliveryTimeout = time.Minute
	faultyStaleSignature  = 250 * time.Second
	faultyTitleLength     = 200
	// reusedID is the example signature_id of defaults.md B, handed out for
	// every contract, and reusedEventID the example event_id.
	reusedID      = "0f8fad5b-d9cb-469f-a165-70867728950e"
	reusedEventID = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"
	faultySecret  = "whsec_not_the_merchants_secret"
)

var faultTable = []Fault{
	{faultAuthEmptyHeaderAccepted, AreaAuth, "defaults.md A check 1",
		"A header sent with an empty value counts as present, so the request falls through to the later checks: an empty signature gets 401 Invalid signature, an empty key 401 Invalid credentials, instead of 400 Missing headers."},
	{faultAuthMissingHeaders401, AreaAuth, "defaults.md A check 1; interface §7",
		"Missing headers is answered 401 instead of 400 (label unchanged)."},
	{faultAuthMissingHeaderLabel, AreaAuth, "defaults.md A check 1; interface §7",
		`Missing headers is answered with the label "Missing header" (status 400 unchanged).`},
	{faultAuthFutureTimestampAccepted, AreaAuth, "defaults.md A check 2",
		"Only timestamps in the past are checked against the 300 s tolerance: a timestamp any time in the future is accepted."},
	{faultAuthOldTimestampAccepted, AreaAuth, "defaults.md A check 2",
		"Only timestamps in the future are checked against the 300 s tolerance: a timestamp any time in the past is accepted."},
	{faultAuthTolerance600s, AreaAuth, "defaults.md A check 2",
		"The tolerance is 600 s instead of 300 s: a request 301 s to 600 s off is accepted."},
	{faultAuthTolerance60s, AreaAuth, "defaults.md A check 2",
		"The tolerance is 60 s instead of 300 s: a request 61 s to 300 s off (299 s, say) is refused with Request expired."},
	{faultAuthTimestampMilliseconds, AreaAuth, "defaults.md A X-service-Timestamp (whole seconds)",
		"A timestamp in milliseconds (13 digits) is accepted, read as seconds divided by 1000."},
	{faultAuthTimestampLenient, AreaAuth, "defaults.md A check 2 (base-10 integer)",
		`The timestamp is parsed as a float: "1763805600.5" or "+1763805600" is accepted instead of Request expired.`},
	{faultAuthDisabledKeyAccepted, AreaAuth, "defaults.md A check 3 (disabled)",
		"A disabled key is accepted."},
	{faultAuthOtherMerchantKeyAccepted, AreaAuth, "defaults.md A check 3 (another merchant)",
		"A key of another merchant is accepted on this merchant's path (signed with its own secret)."},
	{faultAuthUnknownKeyInvalidSignature, AreaAuth, "defaults.md A check 3 (unknown key)",
		"An unknown key is answered 401 Invalid signature instead of Invalid credentials."},
	{faultAuthUppercaseSignatureRefused, AreaAuth, "defaults.md A check 4 (upper-case hex accepted)",
		"The signature is compared as a lower-case string: the right signature in upper-case hex gets 401 Invalid signature."},
	{faultAuthMethodNotSigned, AreaAuth, "defaults.md A string to sign <METHOD>",
		"The method is left out of the string to sign: a correctly signed request is refused, one signed without the method accepted."},
	{faultAuthQueryNotSigned, AreaAuth, "defaults.md A string to sign <request target> (?query)",
		"The request target is signed without its ?query: a correctly signed request with a query is refused, one signed without the query accepted."},
	{faultAuthTargetDecoded, AreaAuth, "defaults.md A string to sign <request target> (percent-encoding kept)",
		"The request target is percent-decoded before it is signed: a correctly signed request with %XX in its path or query is refused, one signed decoded accepted."},
	{faultAuthBodyReserialised, AreaAuth, "defaults.md A string to sign <raw body>",
		"The body is decoded and re-encoded (compact, keys sorted) before it is signed: a correctly signed body with spaces or another key order is refused."},
	{faultAuthTimestampNotSigned, AreaAuth, "defaults.md A string to sign <timestamp>",
		"The timestamp is left out of the string to sign: a correctly signed request is refused, one signed without the timestamp accepted."},
	{faultAuthSignaturePrefixCompared, AreaAuth, "defaults.md A check 4 (equal to the expected HMAC)",
		"Only the first 16 hex characters of the signature are compared: a signature right in those and wrong after is accepted."},
	{faultAuthSignatureBeforeCredentials, AreaAuth, "defaults.md A check order (3 before 4)",
		"The signature is checked before the credentials: a disabled key with a bad signature gets Invalid signature instead of Invalid credentials."},
	{faultAuthCredentialsBeforeTimestamp, AreaAuth, "defaults.md A check order (2 before 3)",
		"The credentials are checked before the timestamp: an unknown key with an expired timestamp gets Invalid credentials instead of Request expired."},
	{faultAuthTimestampBeforeHeaders, AreaAuth, "defaults.md A check order (1 before 2)",
		"The timestamp is checked before the headers' presence: a request without a key and with an expired timestamp gets 401 Request expired instead of 400 Missing headers."},
	{faultAuthJSONBeforeSignature, AreaAuth, "defaults.md A check 5 (only now is the body read as JSON)",
		"The body is parsed as JSON before the signature is checked: invalid JSON with a bad signature gets 400 instead of 401 Invalid signature."},
	{faultAuthErrorStatusCodeMismatch, AreaAuth, "defaults.md A error body (status_code same as the HTTP status)",
		"Every error body says status_code 400, whatever the HTTP status (401, 404, 413, …)."},
	{faultAuthErrorTextPlain, AreaAuth, "interface §4 (all bodies are JSON, application/json)",
		"Error responses are sent with Content-Type text/plain (the body is still the JSON text)."},
	{faultAuthNonJSONAccepted, AreaAuth, "defaults.md A check 5 (not JSON)",
		"On the check endpoint, a signed body that is not JSON (or is empty) is answered 200 Authenticated."},
	{faultAuthNonObjectAccepted, AreaAuth, "defaults.md A check 5 (not an object); interface §4.1",
		"On the check endpoint, a signed JSON value that is not an object (array, string, number, null) is answered 200 Authenticated."},
	{faultAuthInvalidJSON500, AreaAuth, "defaults.md A (no client input may produce a 5xx)",
		"On the check endpoint, a signed body that is not valid JSON is answered 500 Internal error instead of 400."},
	{faultAuthNoBodyLimit, AreaAuth, "defaults.md A (body over 1 MiB refused with 413)",
		"There is no 1 MiB limit (64 MiB instead): a correctly signed body over 1 MiB is accepted."},
	{faultAuthBodyLimit512K, AreaAuth, "defaults.md A (body over 1 MiB refused with 413)",
		"The body limit is 512 KiB: a body of 1 MiB or less but over 512 KiB is refused with 413."},
	{faultAuthCheckAnyAPIVersion, AreaAuth, "defaults.md F (api_version accepted on the check path: v1); interface §4.1 path",
		"The check path takes any version segment: a signed check to /v2/check/{merchant_id}, /V1/…, /v1.0/… or //check/… is answered 200 Authenticated."},
	{faultAuthCheckAnyMethod, AreaAuth, "interface §4.1 method (POST)",
		"The check endpoint answers GET, PUT, PATCH and DELETE as it answers POST: a request signed over its method gets 200 Authenticated."},
	{faultAuthCreateAnyMethod, AreaAuth, "interface §4.2 method (POST)",
		"The create endpoint answers GET, PUT, PATCH and DELETE as it answers POST: a request signed over its method creates the contract (201)."},
	{faultAuthMerchantCaseless, AreaAuth, "defaults.md A check 3 (owned by another merchant than {merchant_id})",
		"The key's merchant is compared with {merchant_id} in any case: the merchant's key is accepted on /v1/check/MERCHANT_DEMO."},
	{faultAuthTimestampLeadingZero, AreaAuth, "defaults.md A X-service-Timestamp (base-10 ASCII digits) and check 2",
		`A timestamp with a leading zero ("0" and the current time, signed as sent) is refused with Request expired, as if it were not base-10 digits.`},
	{faultAuthTimestampSpacesIgnored, AreaAuth, "defaults.md A check 2 (base-10 integer)",
		`Spaces inside the timestamp are ignored when it is read: "17638 05600", signed as sent, is accepted instead of Request expired.`},
	{faultAuthContentTypeExact, AreaAuth, "interface §4 (content type application/json); defaults.md A check 5",
		`The Content-Type must be exactly "application/json": "application/json; charset=utf-8" is refused with 400.`},
	{faultAuthContentTypeCase, AreaAuth, "interface §4 (content type application/json); defaults.md A check 5",
		`The media type of the Content-Type is compared case-sensitively: "Application/JSON" is refused with 400.`},
	{faultAuthTrailingDataAccepted, AreaAuth, "defaults.md A check 5 (not JSON)",
		`On the check endpoint, a body that is one JSON object followed by anything ("{}{}", "{} x", "{} ]") is answered 200 Authenticated: only the first value is read.`},
	{faultAuthBodyPaddingRefused, AreaAuth, "defaults.md A check 5; interface §4.1 (any valid JSON object)",
		"A body with white space before its JSON object (valid JSON) is refused with 400: the first byte must be {."},

	{faultAuthCreateBodyLimit2MiB, AreaAuth, "defaults.md A (a body over 1 MiB is refused with 413, on every merchant endpoint)",
		"The create endpoint reads bodies of up to 2 MiB; the check endpoint keeps the 1 MiB limit."},
	{faultAuthKeyCaseInsensitive, AreaAuth, "defaults.md A check 3 (key unknown: a key is compared exactly)",
		"The key is looked up in any case: the merchant's key written in upper case, signed with its secret, is accepted."},
	{faultAuthCheckJSON5Accepted, AreaAuth, "defaults.md A check 5 (not JSON: RFC 8259)",
		"The check endpoint reads its body as JSON5 does: trailing commas, comments, single quotes and NaN are taken."},
	{faultAuthCreateJSON5Accepted, AreaAuth, "defaults.md A check 5 (not JSON: RFC 8259); interface §2.4 (the body is JSON)",
		"The create endpoint reads its body as JSON5 does: a create request with a trailing comma, a comment or single quotes is created."},
	{faultValidationEmailPlusRefused, AreaValidation, "interface §2.2 recipients (e-mail format); defaults.md C (a refusal for an invalid e-mail only)",
		"A signer e-mail with + in its local part (plus-addressing) is refused as invalid."},
	{faultValidationNameMax60, AreaValidation, "defaults.md C (signers: a name is refused only when missing); interface §2.2 recipients (name)",
		"A signer name longer than 60 characters is refused as missing."},
	{faultEnvelopeExtraField, AreaEnvelope, "interface §2.2; defaults.md C (exactly section 2.2)",
		`The envelope carries an extra field "merchant_id".`},
	{faultEnvelopeRoutingMissing, AreaEnvelope, "interface §2.2 routing",
		"The envelope has no routing field."},
	{faultEnvelopeSenderNull, AreaEnvelope, "interface §2.2 sender",
		"The envelope's sender is null."},
	{faultEnvelopeStatusLowercase, AreaEnvelope, "interface §2.2 status; §3 (PENDIENTE)",
		`The envelope status is "pendiente" instead of "PENDIENTE".`},
	{faultEnvelopeTitleCollapsed, AreaEnvelope, "interface §2.2 title (echoed)",
		"The envelope title has its whitespace collapsed and trimmed instead of being echoed as sent."},
	{faultEnvelopeTitleTruncated, AreaEnvelope, "interface §2.2 title (echoed)",
		"The envelope title is cut at 200 characters."},
	{faultEnvelopeTitleASCII, AreaEnvelope, "interface §2.2 title (echoed)",
		"Characters of the envelope title outside ASCII are replaced by '?'."},
	{faultEnvelopeRecipientsRequestOrder, AreaEnvelope, "defaults.md C recipients ordered signer_1, signer_2, …",
		"The recipients keep the order of the request's signers instead of signer_1, signer_2, …"},
	{faultEnvelopeRecipientStatusUpper, AreaEnvelope, "interface §2.2 recipients status; §3 (pending)",
		`Each recipient's status is "PENDING" instead of "pending".`},
	{faultEnvelopeDocumentsFrom1, AreaEnvelope, "interface §2.2 documents key (document_<index> from 0)",
		"Document keys start at document_1 instead of document_0."},
	{faultEnvelopeDocumentTitleIsName, AreaEnvelope, "defaults.md C documents (each with the template's title)",
		"Each document's title is the template's name (contrato_arriendo) instead of its title."},
	{faultEnvelopeCreatedAtNoMillis, AreaEnvelope, "interface §2.2 created_at (with milliseconds)",
		"created_at has no fraction of a second (2026-11-22T10:00:00Z)."},
	{faultEnvelopeCreatedAtOffset, AreaEnvelope, "interface §2.2 created_at (UTC)",
		"created_at is written in the -03:00 offset (the same instant, not UTC)."},
	{faultEnvelopeCreatedAtPast, AreaEnvelope, "interface §2.2 created_at (the time of creation)",
		"created_at is one hour before the contract was created."},
	{faultEnvelopeSignatureIDNotUUID, AreaEnvelope, "interface §2.2 signature_id (UUID format)",
		`signature_id is "sig_" and 32 hex digits, unique but not a UUID (the notification carries the same id).`},
	{faultEnvelopeSignatureIDReused, AreaEnvelope, "defaults.md C signature_id (a new UUID)",
		"Every contract gets the same signature_id (the notification carries the same id)."},
	{faultEnvelopeRoutingIgnored, AreaEnvelope, "defaults.md C routing (parallel or sequential)",
		`A requested routing "sequential" is ignored: the envelope says "parallel".`},
	{faultEnvelopeHTTP200, AreaEnvelope, "interface §4.2 success (201)",
		"A created contract is answered HTTP 200 with status_code 200 instead of 201."},
	{faultEnvelopeStatusCode200, AreaEnvelope, "interface §4.2 success (body status_code 201)",
		"A created contract is answered HTTP 201 with a body status_code 200."},
	{faultEnvelopeMessageMissing, AreaEnvelope, "interface §4.2 success (message); defaults.md C",
		"The create response has no message."},
	{faultEnvelopeSenderEmailInvalid, AreaEnvelope, "interface §2.2 sender email (e-mail format)",
		`The sender's e-mail is written with " at " instead of "@".`},
	{faultEnvelopeMessageReworded, AreaEnvelope, "defaults.md C success (message \"Signature request created\")",
		`The create response's message is "Signature request accepted".`},
	{faultEnvelopeSenderNotMerchant, AreaEnvelope, "defaults.md C sender (the merchant's configured name and e-mail)",
		`The sender is the service's own ("Servicio de Firma" <no-reply@firma.test>), not the merchant's configured name and e-mail.`},

	{faultValidationUnknownDataKey, AreaValidation, "defaults.md C data (an unknown key is refused)",
		"A data key the templates do not have is accepted (201)."},
	{faultValidationMissingDataKey, AreaValidation, "defaults.md C data (every key must be present)",
		"A missing data key is accepted (201)."},
	{faultValidationMissingSigner, AreaValidation, "defaults.md C signers (exactly the templates' keys)",
		"A missing signer is accepted (201, one recipient fewer)."},
	{faultValidationDuplicateSigner, AreaValidation, "defaults.md C signers (each once)",
		"A signer listed twice is accepted (201, the recipient twice)."},
	{faultValidationUnknownSigner, AreaValidation, "defaults.md C signers (exactly the templates' keys)",
		"A signer key the templates do not have is accepted (201, an extra recipient)."},
	{faultValidationInvalidEmail, AreaValidation, "defaults.md C (invalid email for signer_N)",
		"A signer e-mail that is not an e-mail address is accepted (201)."},
	{faultValidationUnknownDocument, AreaValidation, "defaults.md C documents (template names assigned by the service)",
		"An unknown document name is accepted (201, titled with its name)."},
	{faultValidationMissingTitle, AreaValidation, "defaults.md C (title is required)",
		`A request without a title is accepted (201, titled "Sin título").`},
	{faultValidationWrongType500, AreaValidation, "defaults.md A (no client input may produce a 5xx)",
		"A field of the wrong JSON type (a title that is a number, signers that is an object, …) is answered 500 Internal error instead of 400."},
	{faultValidationMessagesReworded, AreaValidation, "defaults.md C refusal messages (@reference)",
		`The refusal messages are reworded ("title missing" instead of "title is required", "data key missing: x" instead of "missing data key: x", …); status 400 unchanged.`},
	{faultValidationRoutingUnchecked, AreaValidation, "defaults.md C routing (parallel or sequential)",
		`Any routing is accepted and echoed ("mixed", say).`},
	{faultValidationRoutingCaseless, AreaValidation, "defaults.md C routing (parallel or sequential)",
		`The routing is read in any case and without surrounding spaces: "Parallel" or " sequential" is accepted and echoed in lower case, instead of 400.`},
	{faultValidationCreateAnyVersion, AreaValidation, "interface §4.2 path and §9 (the literal version segment v1)",
		"The create path takes any version segment: a signed request to /v2/signature/{merchant_id}, /V1/… or //signature/… creates the contract (201, and its demo notification)."},
	{faultValidationOtherVersionDemo, AreaValidation, "interface §4.2 path and §9 (the literal version segment v1)",
		"A create request on another version segment is answered 404 as it should be, but the contract is made all the same: a demo title gets its notification."},
	{faultValidationMessageNoField, AreaValidation, "defaults.md C refusals (the message naming the field and the fault)",
		`The refusal messages name the fault but not the field or value: "a required field is missing", "missing data key", "invalid email", …; status 400 unchanged.`},

	{faultNotificationImmediate, AreaNotification, "interface §6.2 (about 500 ms); defaults.md D",
		"The demo notification is sent at once (0 ms) instead of about 500 ms after the 201."},
	{faultNotificationLate, AreaNotification, "interface §6.2 (about 500 ms); defaults.md D",
		"The demo notification is sent 2 s after the 201 instead of about 500 ms."},
	{faultNotificationTwice, AreaNotification, "defaults.md D (exactly one notification)",
		"A demo title gets two notifications, two distinct events with the same state."},
	{faultNotificationNever, AreaNotification, "interface §6.2",
		"No demo notification is ever sent."},
	{faultNotificationRedelivered, AreaNotification, "defaults.md B delivery (a 2xx is success)",
		"A notification answered 2xx is delivered again, with the same event_id, 2 s later."},
	{faultNotificationContentTypeText, AreaNotification, "defaults.md B (Content-Type application/json)",
		"Notifications are sent with Content-Type text/plain."},
	{faultNotificationWrongMerchantID, AreaNotification, "defaults.md B merchant_id",
		`merchant_id is "other_" and the merchant's id (the body is still signed as sent).`},
	{faultNotificationWrongType, AreaNotification, "defaults.md B type",
		`type is "signature.updated" instead of "signature.status".`},
	{faultNotificationTitleCollapsed, AreaNotification, "defaults.md B title",
		"The notification's title has its whitespace collapsed and trimmed."},
	{faultNotificationTimestampStale, AreaNotification, "defaults.md B t (Unix seconds of sending)",
		"The signature header's t is 250 s in the past (still inside a receiver's 300 s tolerance; v1 matches it)."},
	{faultNotificationTimestampMillis, AreaNotification, "defaults.md B t (Unix seconds)",
		"The signature header's t is in milliseconds (v1 is computed over that t)."},
	{faultNotificationNoRetry, AreaNotification, "defaults.md B delivery (retries)",
		"A notification that is not answered 2xx is never retried."},
	{faultNotificationRetryNewEventID, AreaNotification, "defaults.md B event_id (the same on every retry)",
		"Each retry of a notification carries a new event_id."},
	{faultNotificationRetryImmediate, AreaNotification, "defaults.md B delivery (retry after 1 s, 2 s, …)",
		"A notification that is not answered 2xx is retried at once instead of after the schedule's wait."},
	{faultNotificationRetryAfter204, AreaNotification, "defaults.md B delivery (a 2xx answer is success)",
		"Only 200 counts as delivered: a notification answered with another 2xx (204, 202) is retried on the schedule."},
	{faultNotificationNoRetryAfter4xx, AreaNotification, "defaults.md B delivery (otherwise the service retries)",
		"A notification answered with a 4xx is recorded as failed at once, never retried."},
	{faultNotificationLate2xxCounts, AreaNotification, "defaults.md B delivery (a 2xx answer within 10 s)",
		"A delivery waits up to 1 minute for its answer: a 2xx given after the 10 s timeout counts as delivered, not retried."},
	{faultNotificationNoRetryAfterClose, AreaNotification, "defaults.md B delivery (otherwise the service retries)",
		"A notification whose connection closes without an answer is recorded as failed at once, never retried (a timeout still is)."},
	{faultNotificationRetryScheduleFlat, AreaNotification, "defaults.md B delivery (retry after 1 s, 2 s, 4 s, …)",
		"Every retry waits the schedule's first wait (1 s) instead of the next one: the second retry comes 1 s after the first, not 2 s."},
	{faultNotificationEventIDReused, AreaNotification, "defaults.md B event_id (unique per event)",
		"Every notification carries the same event_id."},
	{faultNotificationEventIDEmpty, AreaNotification, "defaults.md B event_id",
		"event_id is the empty string."},
	{faultNotificationNonDemoTitle, AreaNotification, "defaults.md D (any other title gets no demo notification)",
		"A title without a demo prefix gets a CREATED notification."},
	{faultNotificationPrefixCaseless, AreaNotification, "defaults.md D (case-sensitive)",
		`Demo prefixes match in any case: "demo_signed x" gets a SIGNED notification.`},
	{faultNotificationPrefixAnywhere, AreaNotification, "defaults.md D (at the very first character)",
		`Demo prefixes match anywhere in the title: "x DEMO_SIGNED" gets a SIGNED notification.`},
	{faultNotificationWrongState, AreaNotification, "interface §6.2 (DEMO_BOUNCED sends BOUNCED)",
		"DEMO_BOUNCED sends a REJECTED notification."},
	{faultNotificationDocumentURLAlways, AreaNotification, "defaults.md B (document_url only with SIGNED)",
		"Every notification carries a document_url, whatever its state."},
	{faultNotificationDocumentURLMissing, AreaNotification, "interface §6.2 rule 3 (SIGNED includes document_url)",
		"A SIGNED notification carries no document_url."},
	{faultNotificationDocumentURL404, AreaNotification, "defaults.md D (the document_url really opens)",
		"The document_url of a SIGNED notification lacks its .pdf suffix, so it answers 404."},
	{faultNotificationReasonMissing, AreaNotification, "interface §6.2 rule 4 (BOUNCED, REJECTED, CANCELED include reason)",
		"BOUNCED, REJECTED and CANCELED notifications carry no reason."},
	{faultNotificationReasonOnSigned, AreaNotification, "defaults.md B (reason only with BOUNCED, REJECTED, CANCELED)",
		"A SIGNED notification carries a reason."},
	{faultNotificationNullKeys, AreaNotification, "defaults.md B (absent keys, never null)",
		"Keys with no value for the state (document_url, reason) are sent as null."},
	{faultNotificationSignatureIDMismatch, AreaNotification, "defaults.md B signature_id (equals data.signature_id)",
		"The notification's signature_id is a new UUID, not the one of the create response."},
	{faultNotificationDemoFalse, AreaNotification, "defaults.md B demo",
		"A demo notification says demo false."},
	{faultNotificationSignedBodyDiffers, AreaNotification, "defaults.md B v1 (over the raw body)",
		"v1 is computed over the compact body but the body is sent indented: the bytes sent differ from the bytes signed."},
	{faultNotificationWrongSecret, AreaNotification, "defaults.md B v1 (webhook secret)",
		"v1 is computed with another secret than the merchant's webhook secret."},
	{faultNotificationSignatureUppercase, AreaNotification, "defaults.md B v1 (lowercase hex)",
		"v1 is written in upper-case hex (it still decodes to the right MAC)."},
	{faultNotificationSignatureHeaderSpaced, AreaNotification, "defaults.md B (X-Service-Signature: t=<unix seconds>,v1=<…>)",
		"The signature header has a space after each comma: t=…, v1=…."},
	{faultNotification3xxDelivered, AreaNotification, "defaults.md B delivery (a 2xx answer is success; otherwise the service retries)",
		"An attempt answered 3xx counts as delivered (a status under 400 taken for success), so it is not retried."},
	{faultNotificationSignatureHeaderName, AreaNotification, "interface §5; defaults.md B (X-service-Signature)",
		"The signature is sent in the header X-Webhook-Signature instead of the profile's."},
}

// verifierFaults change how a request is verified; any of them swaps the
// authentication middleware for faultyAuth.
var verifierFaults = []string{
	faultAuthEmptyHeaderAccepted, faultAuthMissingHeaders401, faultAuthMissingHeaderLabel,
	faultAuthFutureTimestampAccepted, faultAuthOldTimestampAccepted, faultAuthTolerance600s, faultAuthTolerance60s,
	faultAuthTimestampMilliseconds, faultAuthTimestampLenient, faultAuthDisabledKeyAccepted,
	faultAuthOtherMerchantKeyAccepted, faultAuthUnknownKeyInvalidSignature, faultAuthUppercaseSignatureRefused,
	faultAuthMethodNotSigned, faultAuthQueryNotSigned, faultAuthTargetDecoded, faultAuthBodyReserialised,
	faultAuthTimestampNotSigned, faultAuthSignaturePrefixCompared, faultAuthSignatureBeforeCredentials,
	faultAuthCredentialsBeforeTimestamp, faultAuthTimestampBeforeHeaders, faultAuthJSONBeforeSignature,
	faultAuthMerchantCaseless, faultAuthTimestampLeadingZero, faultAuthTimestampSpacesIgnored,
}

// List returns every known fault, sorted by area, then name.
func List() []Fault {
	out := append([]Fault(nil), faultTable...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Area != out[j].Area {
			return out[i].Area < out[j].Area
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// faultSet holds the names of the faults switched on and of their areas.
type faultSet map[string]bool

// service is a server's Deviations with the named faults switched on.
type service struct {
	*reference.Server
	faultOn faultSet
	names   []string
}

var _ reference.Deviations = (*service)(nil)

// fault tells whether the named fault is switched on.
func (s *service) fault(name string) bool { return s.faultOn[name] }

// New returns the deviations of the named faults, for Server.Deviations;
// names may be blank or padded. It returns ErrUnknownFault, with the
// closest names, for a name that List does not list, and nil when no
// fault is named (the correct server).
func New(names []string) (reference.Deviations, error) {
	s := &service{}
	known := map[string]string{}
	for _, f := range faultTable {
		known[f.Name] = f.Area
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		area, ok := known[name]
		if !ok {
			if near := closestFaults(name, 3); len(near) > 0 {
				return nil, fmt.Errorf("reference server: %w %q; did you mean %s?", ErrUnknownFault, name, strings.Join(near, ", "))
			}
			return nil, fmt.Errorf("reference server: %w %q", ErrUnknownFault, name)
		}
		if s.faultOn == nil {
			s.faultOn = faultSet{}
		}
		if !s.faultOn[name] {
			s.faultOn[name], s.faultOn[area] = true, true
			s.names = append(s.names, name)
		}
	}
	if s.faultOn == nil {
		return nil, nil
	}
	return s, nil
}

// Open takes the server the faults change, and sets its body limit under
// the body-limit faults.
func (s *service) Open(srv *reference.Server) error {
	s.Server = srv
	switch {
	case s.fault(faultAuthNoBodyLimit):
		s.MaxBody = faultyMaxBody
	case s.fault(faultAuthBodyLimit512K):
		s.MaxBody = faultySmallMaxBody
	case s.fault(faultAuthCreateBodyLimit2MiB):
		s.MaxBody = 2 * reference.DefaultMaxBody
	}
	s.Logger.Warn("this reference server is DELIBERATELY FAULTY: it breaks the rules of these faults on purpose; never use it as a reference", "faults", strings.Join(s.names, ","))
	return nil
}

// closestFaults returns up to n known names closest to name: those that
// contain it or that it contains first, then by edit distance.
func closestFaults(name string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, f := range faultTable {
		d := firmakit.EditDistance(name, f.Name)
		if strings.Contains(f.Name, name) || strings.Contains(name, f.Name) {
			d = 0
		}
		if d <= max(3, len(f.Name)/3) {
			cs = append(cs, cand{f.Name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// ---- auth: the verifier ----

// Auth returns auth unchanged unless a fault changes verification;
// then it returns faultyAuth, so that a correct server never runs this code.
func (s *service) Auth(auth echo.MiddlewareFunc) echo.MiddlewareFunc {
	for _, f := range verifierFaults {
		if s.fault(f) {
			return s.faultyAuth
		}
	}
	if s.fault(faultAuthKeyCaseInsensitive) {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			inner := auth(next)
			return func(c echo.Context) error {
				s.caselessKey(c.Request())
				return inner(c)
			}
		}
	}
	return auth
}

// caselessKey writes a key header that names a known key in another case
// as that key: the lookup of the key-case fault. The key is not signed, so
// the request verifies as before.
func (s *service) caselessKey(r *http.Request) {
	h := s.Profile.Request.KeyHeader
	key := r.Header.Get(h)
	if _, ok := s.Config.Credential(key); ok || key == "" {
		return
	}
	for _, m := range s.Config.Merchants {
		for _, c := range m.Credentials {
			if strings.EqualFold(c.KeyID, key) {
				r.Header.Set(h, c.KeyID)
				return
			}
		}
	}
}

// faultyAuth is Auth with the verifier faults: checks 1 to 4 of defaults.md
// A (and check 5 when it is moved), each one switchable, in an order the
// faults may change. The HMAC is the root package's, under a profile whose
// string to sign the faults may have cut.
func (s *service) faultyAuth(next echo.HandlerFunc) echo.HandlerFunc {
	signing := s.faultSigningProfile()
	return func(c echo.Context) error {
		r := c.Request()
		p := s.Profile
		now := s.Clock.Now()
		a, headerErr := p.RequestAuthFrom(r.Header)
		var (
			cred     firmakit.Credential
			credDone bool
			body     []byte
			bodyRead bool
		)
		read := func() error {
			if bodyRead {
				return nil
			}
			b, err := reference.ReadBody(c.Response(), r, s.MaxBody)
			if err != nil {
				return err
			}
			body, bodyRead = b, true
			reference.SetRequestBody(c, body)
			return nil
		}
		steps := []struct {
			name string
			run  func() error
		}{
			{"headers", func() error {
				if headerErr == nil || (s.fault(faultAuthEmptyHeaderAccepted) && headersPresent(r.Header, p)) {
					return nil
				}
				api := &reference.APIError{Status: http.StatusBadRequest, Message: firmakit.ErrMissingHeaders.Error(), Err: headerErr}
				if s.fault(faultAuthMissingHeaders401) {
					api.Status = http.StatusUnauthorized
				}
				if s.fault(faultAuthMissingHeaderLabel) {
					api.Message = "Missing header"
				}
				return api
			}},
			{"timestamp", func() error {
				if err := s.faultyTimestamp(a.Timestamp, now); err != nil {
					return reference.AuthError(err)
				}
				return nil
			}},
			{"credentials", func() error {
				cr, ok := s.Config.Credential(a.KeyID)
				switch {
				case !ok && s.fault(faultAuthUnknownKeyInvalidSignature):
					return reference.AuthError(fmt.Errorf("%w: unknown key", firmakit.ErrInvalidSignature))
				case !ok:
					return reference.AuthError(fmt.Errorf("%w: unknown key", firmakit.ErrInvalidCredentials))
				case cr.Disabled && !s.fault(faultAuthDisabledKeyAccepted):
					return reference.AuthError(fmt.Errorf("%w: key is disabled", firmakit.ErrInvalidCredentials))
				case cr.MerchantID != c.Param("merchant_id") && !s.fault(faultAuthOtherMerchantKeyAccepted) &&
					!(s.fault(faultAuthMerchantCaseless) && strings.EqualFold(cr.MerchantID, c.Param("merchant_id"))):
					return reference.AuthError(fmt.Errorf("%w: key belongs to another merchant", firmakit.ErrInvalidCredentials))
				}
				cred, credDone = cr, true
				return nil
			}},
			{"signature", func() error {
				if err := read(); err != nil {
					return err
				}
				if s.fault(faultAuthJSONBeforeSignature) {
					if _, err := reference.JSONObject(c); err != nil {
						return err
					}
				}
				cr := cred
				if !credDone { // the signature is checked before the credentials
					var ok bool
					if cr, ok = s.Config.Credential(a.KeyID); !ok {
						return reference.AuthError(fmt.Errorf("%w: no secret for an unknown key", firmakit.ErrInvalidSignature))
					}
				}
				target := firmakit.RequestTarget(r)
				if s.fault(faultAuthTargetDecoded) {
					target = firmakit.DecodeRequestTarget(target)
				}
				signed := body
				if s.fault(faultAuthBodyReserialised) {
					signed = reserialised(body)
				}
				want := signing.RequestSignature(cr.Secret, firmakit.RequestParts{
					Timestamp: a.Timestamp, Method: r.Method, RequestTarget: target, KeyID: a.KeyID, Body: signed})
				if !s.faultySameSignature(want, a.Signature) {
					return reference.AuthError(fmt.Errorf("%w: signature does not match the request", firmakit.ErrInvalidSignature))
				}
				return nil
			}},
		}
		swap := func(x, y string) {
			var i, j int
			for k, st := range steps {
				switch st.name {
				case x:
					i = k
				case y:
					j = k
				}
			}
			steps[i], steps[j] = steps[j], steps[i]
		}
		if s.fault(faultAuthTimestampBeforeHeaders) {
			swap("headers", "timestamp")
		}
		if s.fault(faultAuthCredentialsBeforeTimestamp) {
			swap("timestamp", "credentials")
		}
		if s.fault(faultAuthSignatureBeforeCredentials) {
			swap("credentials", "signature")
		}
		for _, st := range steps {
			if err := st.run(); err != nil {
				return err
			}
		}
		reference.SetRequestBody(c, body)
		reference.SetRequestCredential(c, cred)
		return next(c)
	}
}

// headersPresent tells whether the three headers are sent, be their
// values empty.
func headersPresent(h http.Header, p *firmakit.Profile) bool {
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		if len(h.Values(name)) == 0 {
			return false
		}
	}
	return true
}

// faultyTimestamp is check 2 with the timestamp faults; nil when it passes.
func (s *service) faultyTimestamp(ts string, now time.Time) error {
	tol := s.Profile.Request.Tolerance
	switch {
	case s.fault(faultAuthTolerance600s):
		tol = 600 * time.Second
	case s.fault(faultAuthTolerance60s):
		tol = 60 * time.Second
	}
	read := ts
	if s.fault(faultAuthTimestampSpacesIgnored) {
		read = strings.ReplaceAll(ts, " ", "")
	}
	digits := strings.TrimLeft(read, "0")
	sec, ok := int64(0), read != "" && len(digits) <= 18
	if s.fault(faultAuthTimestampLeadingZero) && len(digits) < len(read) {
		ok = false
	}
	for i := 0; ok && i < len(read); i++ {
		ok = '0' <= read[i] && read[i] <= '9'
	}
	if ok {
		sec, _ = strconv.ParseInt(digits, 10, 64)
	} else if s.fault(faultAuthTimestampLenient) {
		f, err := strconv.ParseFloat(strings.TrimSpace(ts), 64)
		if ok = err == nil && !math.IsNaN(f) && math.Abs(f) < 1e17; ok {
			sec = int64(f)
		}
	}
	if !ok {
		return fmt.Errorf("%w: timestamp %q is not a Unix time in seconds", firmakit.ErrExpired, firmakit.ClipRunes(ts, 40))
	}
	if s.fault(faultAuthTimestampMilliseconds) && sec >= 1e11 {
		sec /= 1000
	}
	skew, t := now.Unix()-sec, int64(tol/time.Second)
	switch {
	case skew > t && !s.fault(faultAuthOldTimestampAccepted):
		return fmt.Errorf("%w: timestamp is %ds old (tolerance %ds)", firmakit.ErrExpired, skew, t)
	case -skew > t && !s.fault(faultAuthFutureTimestampAccepted):
		return fmt.Errorf("%w: timestamp is %ds in the future (tolerance %ds)", firmakit.ErrExpired, -skew, t)
	}
	return nil
}

// faultSigningProfile returns the profile with the parts the faults leave
// out of the string to sign cut from it.
func (s *service) faultSigningProfile() *firmakit.Profile {
	p := *s.Profile
	p.Request.StringToSign = nil
	for _, part := range s.Profile.Request.StringToSign {
		switch {
		case part == firmakit.PartMethod && s.fault(faultAuthMethodNotSigned),
			part == firmakit.PartTimestamp && s.fault(faultAuthTimestampNotSigned):
			continue
		case part == firmakit.PartRequestTarget && s.fault(faultAuthQueryNotSigned):
			part = firmakit.PartPath
		}
		p.Request.StringToSign = append(p.Request.StringToSign, part)
	}
	return &p
}

// faultySameSignature compares the expected and the sent signature as
// strings, in constant time, with the comparison faults.
func (s *service) faultySameSignature(want, got string) bool {
	norm := func(x string) string {
		switch strings.ToLower(s.Profile.Request.Encoding) {
		case "hex":
			if !s.fault(faultAuthUppercaseSignatureRefused) {
				x = strings.ToLower(x)
			}
		default:
			x = strings.TrimRight(x, "=")
		}
		return x
	}
	w, g := norm(want), norm(got)
	if s.fault(faultAuthSignaturePrefixCompared) && len(w) >= 16 && len(g) >= 16 {
		w, g = w[:16], g[:16]
	}
	return subtle.ConstantTimeCompare([]byte(w), []byte(g)) == 1
}

// reserialised decodes a JSON body and encodes it again; a body that is
// not JSON stays as it is.
func reserialised(body []byte) []byte {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	b, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return b
}

// ---- auth: bodies ----

// ErrorHandler returns the error handler with the error-body faults: the
// correct answer is written into a buffer, then its status and message
// are written again as the faults change them.
func (s *service) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	if !s.fault(faultAuthErrorStatusCodeMismatch) && !s.fault(faultAuthErrorTextPlain) {
		return correct
	}
	return func(err error, c echo.Context) {
		res := c.Response()
		if res.Committed || c.Request().Method == http.MethodHead {
			correct(err, c)
			return
		}
		w := res.Writer
		buf := &bufferWriter{header: http.Header{}}
		res.Writer = buf
		correct(err, c)
		res.Writer = w
		status := res.Status
		res.Committed, res.Status, res.Size = false, 0, 0
		var api firmakit.APIResponse
		if json.Unmarshal(buf.body.Bytes(), &api) != nil {
			api.Message = http.StatusText(status)
		}
		code := status
		if s.fault(faultAuthErrorStatusCodeMismatch) {
			code = http.StatusBadRequest
		}
		b, _ := json.Marshal(firmakit.APIResponse{StatusCode: code, Message: api.Message})
		ct := echo.MIMEApplicationJSON
		if s.fault(faultAuthErrorTextPlain) {
			ct = echo.MIMETextPlainCharsetUTF8
		}
		_ = c.Blob(status, ct, append(b, '\n'))
	}
}

// bufferWriter is an http.ResponseWriter that keeps the body it is given.
type bufferWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(int)             {}
func (b *bufferWriter) Flush()                      {}

// CheckRefusal gets the refusal of check 5 on the check endpoint and
// returns it, nil when a fault accepts the body, or an internal error.
func (s *service) CheckRefusal(c echo.Context, err error) error {
	var api *reference.APIError
	if s.faultOn == nil || !errors.As(err, &api) || api.Status != http.StatusBadRequest || errors.Is(err, reference.ErrNotJSONContentType) {
		return err
	}
	body := reference.RequestBody(c)
	valid := json.Valid(body)
	switch {
	case valid && s.fault(faultAuthNonObjectAccepted), !valid && s.fault(faultAuthNonJSONAccepted):
		return nil
	case !valid && s.fault(faultAuthTrailingDataAccepted) && firstValueIsObject(body):
		return nil
	case !valid && s.fault(faultAuthInvalidJSON500):
		return fmt.Errorf("check body: %s", api.Message) // not an *reference.APIError: answered 500
	}
	return err
}

// firstValueIsObject tells whether a body starts with a whole JSON object,
// whatever follows it.
func firstValueIsObject(body []byte) bool {
	var obj map[string]json.RawMessage
	return json.NewDecoder(bytes.NewReader(body)).Decode(&obj) == nil && obj != nil
}

// Body refuses, before check 5 reads it, a body or a Content-Type
// that the body faults refuse although it is valid.
func (s *service) Body(c echo.Context) error {
	if s.faultOn == nil {
		return nil
	}
	ct := c.Request().Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	switch {
	case s.fault(faultAuthContentTypeExact) && ct != "" && ct != "application/json":
		return &reference.APIError{Status: http.StatusBadRequest, Err: reference.ErrNotJSONContentType,
			Message: fmt.Sprintf("Content-Type %q is not application/json", firmakit.ClipRunes(ct, 80))}
	case s.fault(faultAuthContentTypeCase) && ct != "" && strings.TrimSpace(mt) != strings.ToLower(strings.TrimSpace(mt)):
		return &reference.APIError{Status: http.StatusBadRequest, Err: reference.ErrNotJSONContentType,
			Message: fmt.Sprintf("Content-Type %q is not application/json", firmakit.ClipRunes(ct, 80))}
	case s.fault(faultAuthBodyPaddingRefused) && len(reference.RequestBody(c)) > 0 && reference.RequestBody(c)[0] != '{':
		return bad("Body must start with {")
	case s.fault(faultAuthCreateBodyLimit2MiB) && isCheck(c) && int64(len(reference.RequestBody(c))) > reference.DefaultMaxBody:
		return &reference.APIError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("Request body too large: the limit is %d bytes", reference.DefaultMaxBody)}
	}
	if (s.fault(faultAuthCheckJSON5Accepted) && isCheck(c)) || (s.fault(faultAuthCreateJSON5Accepted) && !isCheck(c)) {
		if b := reference.RequestBody(c); !json.Valid(b) {
			if plain, ok := fromJSON5(b); ok {
				reference.SetRequestBody(c, plain)
			}
		}
	}
	return nil
}

// isCheck tells whether a request is to the check endpoint.
func isCheck(c echo.Context) bool { return strings.Contains(c.Path(), "/check/") }

// fromJSON5 rewrites what a JSON5 reader takes as JSON: comments out,
// trailing commas out, single-quoted strings double-quoted, NaN as 0.
func fromJSON5(b []byte) ([]byte, bool) {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(b) && b[j] != c {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return nil, false
			}
			inner := b[i+1 : j]
			if c == '\'' {
				inner = bytes.ReplaceAll(inner, []byte(`"`), []byte(`\"`))
			}
			out.WriteByte('"')
			out.Write(inner)
			out.WriteByte('"')
			i = j
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return nil, false
			}
			i += end + 3
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == ',':
			rest := bytes.TrimLeft(b[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
			out.WriteByte(c)
		case c == 'N' && bytes.HasPrefix(b[i:], []byte("NaN")):
			out.WriteByte('0')
			i += 2
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes(), json.Valid(out.Bytes())
}

// CheckAnswered leaves the check's 200 to the correct server.
func (s *service) CheckAnswered(echo.Context) bool { return false }

// ---- auth and create: routes ----

// otherMethods are the methods the merchant endpoints must not answer as
// they answer POST.
var otherMethods = []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete}

// CheckVersion returns the check path's version check, or under its fault
// a check that lets every version through.
func (s *service) CheckVersion(check echo.MiddlewareFunc) echo.MiddlewareFunc {
	if s.fault(faultAuthCheckAnyAPIVersion) {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	return check
}

// Routes adds the routes of the faults on methods and paths: the
// merchant endpoints under other methods, the create endpoint under any
// version segment. echo prefers the static /v1/signature route, so a
// correct request still takes it.
func (s *service) Routes(e *echo.Echo, ep reference.Endpoints) {
	if s.fault(faultAuthCheckAnyMethod) {
		e.Match(otherMethods, "/:api_version/check/:merchant_id", ep.Check, ep.Version, ep.MerchantSegment, ep.Auth)
	}
	if s.fault(faultAuthCreateAnyMethod) {
		e.Match(otherMethods, "/v1/signature/:merchant_id", ep.Create, ep.MerchantSegment, ep.Auth)
	}
	switch {
	case s.fault(faultValidationCreateAnyVersion):
		e.POST("/:api_version/signature/:merchant_id", ep.Create, ep.MerchantSegment, ep.Auth)
	case s.fault(faultValidationOtherVersionDemo):
		e.POST("/:api_version/signature/:merchant_id", createThenNotFound(ep.Create), ep.MerchantSegment, ep.Auth)
	}
}

// createThenNotFound makes the contract as the create endpoint does, its
// notification included, and throws its answer away for a 404.
func createThenNotFound(create echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		w := c.Response().Writer
		c.Response().Writer = discardWriter{header: http.Header{}}
		err := create(c)
		c.Response().Writer = w
		c.Response().Committed, c.Response().Status, c.Response().Size = false, 0, 0
		if err != nil {
			return err
		}
		return reference.NotFound(c.Request())
	}
}

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
func (d discardWriter) Flush()                      {}

// ---- envelope ----

// Envelope gives env the signature_id of the identity faults,
// before the envelope is stored and its notification scheduled, so that
// the notification carries the same id.
func (s *service) Envelope(env *firmakit.Envelope) {
	switch {
	case s.fault(faultEnvelopeSignatureIDNotUUID):
		env.SignatureID = "sig_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	case s.fault(faultEnvelopeSignatureIDReused):
		env.SignatureID = reusedID
	}
}

// Created writes the 201 of a created contract with the envelope
// faults and tells whether it did. req is the validated request.
func (s *service) Created(c echo.Context, env firmakit.Envelope, req firmakit.CreateSignatureRequest) (bool, error) {
	if !s.fault(AreaEnvelope) {
		return false, nil
	}
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
	status, code := http.StatusCreated, http.StatusCreated
	if s.fault(faultEnvelopeHTTP200) {
		status, code = http.StatusOK, http.StatusOK
	}
	if s.fault(faultEnvelopeStatusCode200) {
		code = http.StatusOK
	}
	data, err := json.Marshal(e)
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

// faultTime rewrites a time in firmakit.TimeFormat without its
// milliseconds, or in the -03:00 offset, when the named fault is on.
func (s *service) faultTime(v, noMillis, offset string) string {
	t, err := time.Parse(firmakit.TimeFormat, v)
	if err != nil {
		return v
	}
	switch {
	case s.fault(noMillis):
		return t.UTC().Format("2006-01-02T15:04:05Z")
	case s.fault(offset):
		return t.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
	}
	return v
}

// ---- validation ----

// Request gives a request without a title one, and reads a routing in
// any case and without spaces, under their faults.
func (s *service) Request(obj map[string]json.RawMessage) {
	if s.fault(faultValidationEmailPlusRefused) || s.fault(faultValidationNameMax60) {
		var signers []map[string]any
		if json.Unmarshal(obj["signers"], &signers) == nil {
			for _, sg := range signers {
				if e, _ := sg["email"].(string); strings.Contains(e, "+") && s.fault(faultValidationEmailPlusRefused) {
					sg["email"] = "not an e-mail address"
				}
				if n, _ := sg["name"].(string); utf8.RuneCountInString(n) > 60 && s.fault(faultValidationNameMax60) {
					sg["name"] = ""
				}
			}
			obj["signers"], _ = json.Marshal(signers)
		}
	}
	if v, ok := obj["title"]; (!ok || string(v) == "null") && s.fault(faultValidationMissingTitle) {
		obj["title"], _ = json.Marshal(faultTitle)
	}
	var routing string
	if v, ok := obj["routing"]; ok && s.fault(faultValidationRoutingCaseless) && json.Unmarshal(v, &routing) == nil {
		obj["routing"], _ = json.Marshal(strings.ToLower(strings.TrimSpace(routing)))
	}
}

// waivedBy names the fault that skips each check of a create request.
var waivedBy = map[reference.Rule]string{
	reference.RuleRouting:      faultValidationRoutingUnchecked,
	reference.RuleKnownSigner:  faultValidationUnknownSigner,
	reference.RuleSignerOnce:   faultValidationDuplicateSigner,
	reference.RuleSignerEmail:  faultValidationInvalidEmail,
	reference.RuleEverySigner:  faultValidationMissingSigner,
	reference.RuleSignerOrder:  faultEnvelopeRecipientsRequestOrder,
	reference.RuleEveryDataKey: faultValidationMissingDataKey,
	reference.RuleKnownDataKey: faultValidationUnknownDataKey,
}

// Waives tells whether the fault of a check is on.
func (s *service) Waives(rule reference.Rule) bool { return s.fault(waivedBy[rule]) }

// Template makes up a template for an unknown document under its fault.
func (s *service) Template(name string) *firmakit.Template {
	if !s.fault(faultValidationUnknownDocument) {
		return nil
	}
	return &firmakit.Template{Name: name, Title: name}
}

// faultTitle is the title a request without one gets when the missing
// title is accepted.
const faultTitle = "Sin título"

var rewordings = []struct{ from, to string }{
	{"title is required", "title missing"},
	{"unknown document: ", "document not found: "},
	{"missing data key: ", "data key missing: "},
	{"unknown data key: ", "data key not expected: "},
	{"missing signer: ", "signer missing: "},
	{"unknown signer: ", "signer not in the template: "},
	{"signer listed twice: ", "duplicate signer: "},
	{"invalid email for ", "email not valid for "},
	{"routing must be parallel or sequential", "routing not supported"},
}

// Refusal returns a create refusal as the validation faults change
// it: reworded, or turned into an internal error for a wrong JSON type.
func (s *service) Refusal(err error) error {
	var api *reference.APIError
	if s.faultOn == nil || !errors.As(err, &api) {
		return err
	}
	if s.fault(faultValidationWrongType500) && errors.Is(err, reference.ErrWrongType) {
		return fmt.Errorf("decode create request: %s", api.Message) // not an *reference.APIError: answered 500
	}
	if s.fault(faultValidationMessageNoField) {
		return &reference.APIError{Status: api.Status, Message: withoutField(api.Message), Err: api.Err}
	}
	if s.fault(faultValidationMessagesReworded) {
		for _, r := range rewordings {
			if rest, ok := strings.CutPrefix(api.Message, r.from); ok {
				return &reference.APIError{Status: api.Status, Message: r.to + rest, Err: api.Err}
			}
		}
	}
	return err
}

// withoutField is a refusal message with its field and value left out.
func withoutField(msg string) string {
	switch {
	case strings.HasSuffix(msg, " is required"):
		return "a required field is missing"
	case strings.HasPrefix(msg, "invalid email for "):
		return "invalid email"
	case strings.HasPrefix(msg, "routing must be "):
		return "value must be parallel or sequential"
	}
	head, _, _ := strings.Cut(msg, ":")
	return head
}

// ---- notification ----

// DemoState is firmakit.DemoState with the faults on how a title is read.
func (s *service) DemoState(title string, st firmakit.State, ok bool) (firmakit.State, bool) {
	for _, x := range firmakit.States {
		p := x.DemoPrefix()
		switch {
		case ok:
		case s.fault(faultNotificationPrefixCaseless) && len(title) >= len(p) && strings.EqualFold(title[:len(p)], p),
			s.fault(faultNotificationPrefixAnywhere) && strings.Contains(title, p):
			st, ok = x, true
		}
	}
	if !ok && s.fault(faultNotificationNonDemoTitle) {
		st, ok = firmakit.StateCreated, true
	}
	if ok && st == firmakit.StateBounced && s.fault(faultNotificationWrongState) {
		st = firmakit.StateRejected
	}
	return st, ok
}

// DemoDelay returns the wait before a demo notification.
func (s *service) DemoDelay(d time.Duration) time.Duration {
	switch {
	case s.fault(faultNotificationImmediate):
		return 0
	case s.fault(faultNotificationLate):
		return faultyLateDelay
	}
	return d
}

// Notification changes the fields of a demo notification before it
// is encoded (and so before it is signed).
func (s *service) Notification(n *firmakit.Notification, env firmakit.Envelope) {
	if s.faultOn == nil {
		return
	}
	if s.fault(faultNotificationWrongMerchantID) {
		n.MerchantID = "other_" + n.MerchantID
	}
	if s.fault(faultNotificationWrongType) {
		n.Type = "signature.updated"
	}
	if s.fault(faultNotificationTitleCollapsed) {
		n.Title = strings.Join(strings.Fields(n.Title), " ")
	}
	switch {
	case s.fault(faultNotificationEventIDReused):
		n.EventID = reusedEventID
	case s.fault(faultNotificationEventIDEmpty):
		n.EventID = ""
	}
	if s.fault(faultNotificationSignatureIDMismatch) {
		n.SignatureID = uuid.NewString()
	}
	switch {
	case s.fault(faultNotificationDocumentURLAlways) && n.DocumentURL == "":
		n.DocumentURL = s.PublicURL + "/demo/documents/" + env.SignatureID + ".pdf"
	case s.fault(faultNotificationDocumentURLMissing):
		n.DocumentURL = ""
	case s.fault(faultNotificationDocumentURL404):
		n.DocumentURL = strings.TrimSuffix(n.DocumentURL, ".pdf")
	}
	switch {
	case s.fault(faultNotificationReasonMissing):
		n.Reason = ""
	case s.fault(faultNotificationReasonOnSigned) && n.Status == firmakit.StateSigned:
		n.Reason = "Todos los firmantes firmaron el contrato (demo)"
	}
}

// Payload changes an encoded notification where the Notification
// type cannot: null keys, demo false, an extra field.
func (s *service) Payload(body []byte, n firmakit.Notification) []byte {
	if s.faultOn == nil {
		return body
	}
	f := s.Profile.Notification
	if s.fault(faultNotificationNullKeys) {
		if f.DocumentURL != "" && n.DocumentURL == "" {
			body = setMember(body, f.DocumentURL, nil)
		}
		if f.Reason != "" && n.Reason == "" {
			body = setMember(body, f.Reason, nil)
		}
	}
	if s.fault(faultNotificationDemoFalse) && f.Demo != "" {
		body = setMember(body, f.Demo, false)
	}
	return body
}

// Attempt changes one delivery attempt: its headers, its signature,
// the bytes it sends. req is signed correctly when it is called.
func (s *service) Attempt(req *http.Request, body string, secrets []string) {
	w := s.Profile.Webhook
	if s.fault(faultNotificationContentTypeText) {
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
	now, resign := s.Clock.Now(), false
	if s.fault(faultNotificationTimestampStale) {
		now, resign = now.Add(-faultyStaleSignature), true
	}
	if s.fault(faultNotificationTimestampMillis) {
		// WebhookSignature writes t in seconds; a time of ms seconds writes ms.
		now, resign = time.Unix(now.UnixMilli(), 0), true
	}
	if s.fault(faultNotificationWrongSecret) {
		secrets, resign = []string{faultySecret}, true
	}
	if resign {
		req.Header.Set(w.SignatureHeader, s.Profile.WebhookSignature(secrets, now, []byte(body)))
	}
	if s.fault(faultNotificationSignatureHeaderSpaced) {
		req.Header.Set(w.SignatureHeader, strings.ReplaceAll(req.Header.Get(w.SignatureHeader), ",", ", "))
	}
	if s.fault(faultNotificationSignatureUppercase) {
		items := strings.Split(req.Header.Get(w.SignatureHeader), ",")
		for i, item := range items {
			if k, v, _ := strings.Cut(item, "="); k == w.SignatureKey {
				items[i] = k + "=" + strings.ToUpper(v)
			}
		}
		req.Header.Set(w.SignatureHeader, strings.Join(items, ","))
	}
	if s.fault(faultNotificationSignedBodyDiffers) {
		var b bytes.Buffer
		if json.Indent(&b, []byte(body), "", "  ") == nil {
			sent := b.Bytes()
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(sent)), int64(len(sent))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(sent)), nil }
		}
	}
	if s.fault(faultNotificationSignatureHeaderName) {
		other := "X-Webhook-Signature"
		if strings.EqualFold(other, w.SignatureHeader) {
			other = "X-Signature"
		}
		v := req.Header.Get(w.SignatureHeader)
		req.Header.Del(w.SignatureHeader)
		req.Header.Set(other, v)
	}
}

// RetryWait returns the wait before a retry, and gives the event a new
// event_id under the retry fault. The dispatcher's lock is held.
func (s *service) RetryWait(dl *reference.Delivery, wait time.Duration) time.Duration {
	if s.fault(faultNotificationRetryNewEventID) && dl.EventID != "" {
		fresh := uuid.NewString()
		dl.Body = strings.Replace(dl.Body, `"`+dl.EventID+`"`, `"`+fresh+`"`, 1)
		dl.EventID = fresh
	}
	if s.fault(faultNotificationRetryImmediate) {
		return 0
	}
	if s.fault(faultNotificationRetryScheduleFlat) && len(s.RetrySchedule) > 0 {
		return s.RetrySchedule[0]
	}
	return wait
}

// Delivered tells whether an attempt answered status counts as
// delivered, given what the profile says (ok).
func (s *service) Delivered(status int, ok bool) bool {
	switch {
	case s.fault(faultNotificationRetryAfter204):
		return status == http.StatusOK
	case s.fault(faultNotification3xxDelivered):
		return ok || (status >= 300 && status <= 399)
	}
	return ok
}

// Retried tells whether an attempt that was not delivered (answered
// status, or failed with err) is retried: under a fault, not even when
// the correct server would (ok).
func (s *service) Retried(status int, err error, ok bool) bool {
	var ne net.Error
	switch {
	case s.fault(faultNotificationNoRetry),
		s.fault(faultNotificationNoRetryAfter4xx) && status >= 400 && status <= 499,
		s.fault(faultNotificationNoRetryAfterClose) && err != nil && !(errors.As(err, &ne) && ne.Timeout()):
		return false
	}
	return ok
}

// DeliveryTimeout returns how long an attempt waits for its answer.
func (s *service) DeliveryTimeout(d time.Duration) time.Duration {
	if s.fault(faultNotificationLate2xxCounts) {
		return faultyDeliveryTimeout
	}
	return d
}

// Redelivery delivers an event answered 2xx once more, 2 s later, under
// its fault.
func (s *service) Redelivery() (time.Duration, bool) {
	return faultyRedelivery, s.fault(faultNotificationRedelivered)
}

// DemoNotifications is how many notifications a demo title gets.
func (s *service) DemoNotifications(n int) int {
	switch {
	case s.fault(faultNotificationNever):
		return 0
	case s.fault(faultNotificationTwice):
		return 2 * n
	}
	return n
}

// ---- JSON objects, edited in place ----

// setMember sets key to v in a JSON object, in place when the key is
// there, else at the end; obj must be an object that encoding/json wrote.
func setMember(obj []byte, key string, v any) []byte {
	val, err := json.Marshal(v)
	if err != nil {
		return obj
	}
	ms := members(obj)
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = val
			return joinMembers(ms)
		}
	}
	return joinMembers(append(ms, member{key, val}))
}

// dropMember removes key from a JSON object.
func dropMember(obj []byte, key string) []byte {
	ms := members(obj)
	out := ms[:0]
	for _, m := range ms {
		if m.key != key {
			out = append(out, m)
		}
	}
	return joinMembers(out)
}

type member struct {
	key string
	val json.RawMessage
}

// members splits a JSON object into its members, in order.
func members(obj []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return ms
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ms
		}
		ms = append(ms, member{k, v})
	}
	return ms
}

func joinMembers(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func bad(msg string) *reference.APIError {
	return &reference.APIError{Status: http.StatusBadRequest, Message: msg}
}
