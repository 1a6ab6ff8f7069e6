package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
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
	faultAuthKeyPrefixMatched           = "auth-key-prefix-matched"
	faultAuthSignatureCleaned           = "auth-signature-cleaned"
	faultAuthChunkedUnlimited           = "auth-chunked-body-unlimited"
	faultAuthEscapedKeysUnread          = "auth-escaped-keys-unread"
	faultAuthRawControlsAccepted        = "auth-raw-controls-accepted"
	faultAuthCreateBodyLimit2MiB        = "auth-create-body-limit-2mib"
	faultAuthKeyCaseInsensitive         = "auth-key-case-insensitive"
	faultAuthCheckJSON5Accepted         = "auth-check-json5-accepted"
	faultAuthMerchantCutAtSlash         = "auth-merchant-cut-at-encoded-slash"
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
	faultEnvelopeTitleLineBreaks        = "envelope-title-line-breaks-normalised"
	faultEnvelopeCreatedAtClientClock   = "envelope-created-at-client-clock"
	faultEnvelopeCreatedAtTrimsZeros    = "envelope-created-at-trims-zeros"
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
	faultValidationValuesTrimmed    = "validation-values-trimmed"
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
	faultNotificationNoRetryAfterReset     = "notification-no-retry-after-reset"
	faultNotificationNoRetryAfterRefused   = "notification-no-retry-after-refused"
	faultNotificationRetryScheduleFlat     = "notification-retry-schedule-flat"
	faultNotificationRetryGivesUpEarly     = "notification-retry-gives-up-early"
	faultNotificationRetryBeyondSchedule   = "notification-retry-beyond-schedule"
	faultNotificationRetryBackoffCapped    = "notification-retry-backoff-capped"
	faultNotificationEventIDReused         = "notification-event-id-reused"
	faultNotificationEventIDEmpty          = "notification-event-id-empty"
	faultNotificationNonDemoTitle          = "notification-non-demo-title"
	faultNotificationPrefixCaseless        = "notification-prefix-case-insensitive"
	faultNotificationPrefixAnywhere        = "notification-prefix-anywhere"
	faultNotificationPrefixAfterInvisible  = "notification-prefix-after-invisible"
	faultNotificationCrossedContracts      = "notification-crossed-contracts"
	faultNotification201Held               = "notification-201-held"
	faultNotificationFirstMerchantWebhook  = "notification-first-merchant-webhook"
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
	{faultAuthKeyPrefixMatched, AreaAuth, "defaults.md A check 3 (key unknown)",
		"A key that starts with a known key is taken as that key: the merchant's key with a character more at its end, signed with its secret, is accepted."},
	{faultAuthSignatureCleaned, AreaAuth, "defaults.md A check 4 (signature not hex)",
		`The signature header is cleaned up before it is decoded: anything up to an "=" or ":" (an algorithm prefix such as "sha256=") and white space are dropped, so a prefixed or spaced signature is accepted.`},
	{faultAuthChunkedUnlimited, AreaAuth, "defaults.md A paragraph 5 (a body over 1 MiB is refused with 413)",
		"The body limit is read off Content-Length only: a body sent chunked, with no length, is read whatever its size."},
	{faultAuthEscapedKeysUnread, AreaAuth, "defaults.md A check 5; RFC 8259 §7 (a key written with escapes is the same key)",
		`A create request's keys are looked up in the raw JSON text: a key written with JSON escapes ("\u0074itle") is not found, and the request is refused as missing it.`},
	{faultAuthRawControlsAccepted, AreaAuth, "defaults.md A check 5 (not JSON); RFC 8259 §7 (control characters must be escaped)",
		"Control characters left unescaped inside a string are taken as if escaped: a body that is not JSON is accepted."},
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
	{faultAuthMerchantCutAtSlash, AreaAuth, "defaults.md A check 3 (owned by another merchant than {merchant_id})",
		"A merchant segment holding an encoded slash is read up to the slash: the merchant's key is accepted on /v1/check/merchant_demo%2Fx."},
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
	{faultEnvelopeTitleLineBreaks, AreaEnvelope, "interface §2.2 title (echoed from the request)",
		"The title's line breaks are normalised before it is echoed: CR LF and CR become LF, and U+2028 and U+2029 too."},
	{faultEnvelopeCreatedAtTrimsZeros, AreaEnvelope, "defaults.md C created_at (exactly three fraction digits)",
		"created_at's fraction loses its trailing zeros (Go's .999 layout) on a clock that counts in hundredths: .510 is written .51, .500 .5, .000 not at all, so every created_at has fewer than three digits (on a finer clock, one in ten would)."},
	{faultEnvelopeCreatedAtClientClock, AreaEnvelope, "interface §2.2 created_at (the time of creation)",
		"created_at is the time the request was signed at (its timestamp header), not the service's clock: a client whose clock is minutes off, within the tolerance, gets a created_at minutes off."},
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
	{faultValidationValuesTrimmed, AreaValidation, "defaults.md C bullets 1 to 3 (the names and keys assigned by the service)",
		"Document names, signer keys and data keys are trimmed of white space before they are compared: \" signer_1\" is signer_1."},
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
	{faultNotificationNoRetryAfterReset, AreaNotification, "defaults.md B delivery (otherwise the service retries)",
		"A notification whose connection is reset (connection reset by peer) is taken for a refusal and never retried; one closed without an answer, or timed out, still is."},
	{faultNotificationNoRetryAfterRefused, AreaNotification, "defaults.md B delivery (otherwise the service retries)",
		"A notification whose connection is refused (the endpoint down, as during a deploy) is recorded as failed at once, never retried; an endpoint that answers, however badly, still is."},
	{faultNotificationRetryScheduleFlat, AreaNotification, "defaults.md B delivery (retry after 1 s, 2 s, 4 s, …)",
		"Every retry waits the schedule's first wait (1 s) instead of the next one: the second retry comes 1 s after the first, not 2 s."},
	{faultNotificationRetryGivesUpEarly, AreaNotification, "defaults.md B delivery (retries after 1 s, 2 s, 4 s, 8 s and 16 s, then records it as failed)",
		"A notification never answered 2xx is retried twice, not on the whole schedule: it is recorded as failed after its third attempt."},
	{faultNotificationRetryBeyondSchedule, AreaNotification, "defaults.md B delivery (after the last retry, the service records it as failed)",
		"A notification never answered 2xx is retried once more after the schedule's last retry, again after its last wait (16 s), before it is recorded as failed."},
	{faultNotificationRetryBackoffCapped, AreaNotification, "defaults.md B delivery (retry after 1 s, 2 s, 4 s, 8 s and 16 s)",
		"The waits between retries stop growing at the schedule's third (1 s, 2 s, 4 s, 4 s, 4 s)."},
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
	{faultNotificationPrefixAfterInvisible, AreaNotification, "defaults.md D (at the very first character)",
		`Invisible characters before a prefix are skipped: a title that starts with a byte order mark, a zero-width space or a no-break space and then "DEMO_SIGNED" gets a SIGNED notification.`},
	{faultNotificationCrossedContracts, AreaNotification, "defaults.md B bullet 1 (signature_id equals data.signature_id of the create response)",
		"The contract being notified is kept in one slot shared by every notification: every second notification built carries the signature_id and title of the one before it."},
	{faultNotification201Held, AreaNotification, "defaults.md D bullet 1 (about 500 ms after the 201 is sent)",
		"The 201 of a demo contract is held until its notification has been sent: it leaves the service 200 ms after the notification, which so arrives before the 201."},
	{faultNotificationFirstMerchantWebhook, AreaNotification, "defaults.md B paragraph 1 (POSTs to the merchant's signature_webhook)",
		"Every notification goes to the signature_webhook of the first merchant configured, whoever's contract it is (signed with the right merchant's secret)."},
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

// service is the state the faults' deviations share: the faults
// switched on and the seam of the server they change. Each area's hooks
// are a type of their own over it (authFaults, validationFaults,
// envelopeFaults, notificationFaults, deliveryFaults), in the file of
// that area.
type service struct {
	seam    reference.Seam
	faultOn faultSet
	names   []string
	// last is the contract notified last, for the crossed-contracts fault.
	last struct {
		sync.Mutex
		id, title string
		n         int
	}
}

// fault tells whether the named fault is switched on.
func (s *service) fault(name string) bool { return s.faultOn[name] }

// New returns the deviations of the named faults, for Server.Deviations;
// names may be blank or padded. It returns ErrUnknownFault, with the
// closest names, for a name that List does not list, and nil when no
// fault is named (the correct server).
func New(names []string) (*reference.Deviations, error) {
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
	return &reference.Deviations{Auth: authFaults{s}, Validation: validationFaults{s}, Envelope: envelopeFaults{s},
		Notification: notificationFaults{s}, Delivery: deliveryFaults{s}, Open: s.open}, nil
}

// open takes the seam of the server the faults change, and says that
// the server is faulty.
func (s *service) open(seam reference.Seam) error {
	s.seam = seam
	seam.Logger().Warn("this reference server is DELIBERATELY FAULTY: it breaks the rules of these faults on purpose; never use it as a reference", "faults", strings.Join(s.names, ","))
	return nil
}

// closestFaults returns up to n known names closest to name: those that
// contain it or that it contains first, then by edit distance.
func closestFaults(name string, n int) []string {
	names := make([]string, len(faultTable))
	for i, f := range faultTable {
		names[i] = f.Name
	}
	return firmakit.Nearest(names, n, firmakit.NearestOptions{Contains: true,
		Within: func(f string) int { return max(3, len(f)/3) }}, name)
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
