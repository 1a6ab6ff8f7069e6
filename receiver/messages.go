package receiver

// What the receiver tells a client it refuses or cannot serve: the answers
// of its API, its hooks and its guard, in one place to read and reword.
// Those ending in ": " or with a verb such as %d take the rest.
const (
	msgTokenRequired   = "a token is required: open the dashboard with ?token=<token> or send Authorization: Bearer <token> (the token is printed when the receiver starts)"
	msgNoRequests      = "the requests a service received are shown when the receiver runs with a reference server ('firmakit up')"
	msgQueryTooLong    = "q must be at most %d bytes"
	msgNotRecordID     = " must be a record id (a whole number)"
	msgSinceTime       = "since must be an RFC 3339 time such as 2026-11-22T10:00:00Z"
	msgLimitRange      = "limit must be from 1 to 1000"
	msgOrder           = "order must be asc or desc"
	msgCheck           = "check must be valid, invalid, missing or unverified"
	msgCheckTwice      = "check and verdict differ: send check only (verdict is its former name)"
	msgRecordID        = "the record id must be a positive whole number"
	msgNoRecord        = "no record %d"
	msgWaitTimeout     = "timeout must be a duration from 1ms to 5m, such as 2s"
	msgNoMatch         = "no matching notification within "
	msgExportFormat    = "format must be jsonl or har"
	msgReplayBody      = `the body must be JSON: {"url": "http://…", "secrets": ["optional, to re-sign"]}`
	msgRefused         = "refused: "
	msgRefuseBody      = `the body must be JSON: {"for": "2s"}, how long to refuse connections (1ms to 1m)`
	msgRuleBody        = `the body must be JSON: {"status": 500, "delay": "2s", "hang_up": false, "reset": false, "count": 3, "signature_id": "optional: only this contract's notifications"} (count 0: until cleared; hang_up: close the connection without an answer; reset: reset it, a TCP RST)`
	msgRuleDelay       = "delay must be a duration from 0 to 1m, such as 2s"
	msgRuleSignatureID = "signature_id must be at most 200 bytes"
	msgContractBody    = `the body must be JSON: {"signature_id": "…", "created_at": "2026-11-22T10:00:00.000Z"}`
	msgNoDemo          = "demo contracts are available when the receiver runs with a reference server ('firmakit up')"
	msgDemoState       = "state must be one of CREATED, BOUNCED, REJECTED, CANCELED, SIGNED"
	msgDemoFailed      = "the demo contract could not be created: "
	msgChannel         = "the channel must be 1 to 200 bytes of UTF-8: /hooks/{channel}"
	msgBusyReading     = "busy reading other large notifications; send it again"
	msgBodyUnreadable  = "the body could not be read: "
	msgBodyTooLarge    = "body too large: the limit is %d bytes"
	reasonBodyTooLarge = "body over the %d-byte limit, not kept"
	msgNotStored       = "the notification could not be stored; send it again"
	msgTooManyStreams  = "too many streams open (%d); close one and reconnect"
	msgTooManyDelayed  = "answered at once: %d delayed programmed answers are already being held back, the most at once, so that delayed answers never take the connections other notifications need"
	msgTooManyForwards = "not forwarded, answered at once: %d forwards are already waiting for the endpoint, the most at once, so that a slow endpoint never takes the connections other notifications need; the service retries a 503"
	msgNotFound        = "not found: "
	// msgVerdictDeprecated is the Warning of an answer to ?verdict=.
	msgVerdictDeprecated = "verdict is deprecated: send check, with the same values (verdict is taken until " + VerdictSunset + ")"
	msgHookHostHint      = "a receiver behind a tunnel or proxy that keeps the public Host: start it with --public-url https://<that host> to allow that host"
	msgHostHint          = "to serve another name, start it with --public-url http://<that name>:<port> or with --token"
	msgProxyHint         = "start it with --public-url https://<the public name> (it then creates a token and prints it) or with --token T, " +
		"and send Authorization: Bearer <token>; only /hooks/ stay open to senders"
)
