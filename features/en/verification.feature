Feature: Request authentication
  A merchant checks that its signed, expiring requests are accepted before it
  uses any other service. Both merchant endpoints authenticate the same way:
  "check" is POST /{api_version}/check/{merchant_id}, "signature" is
  POST /v1/signature/{merchant_id}.
  Every answer is judged by its whole shape: the HTTP status, a JSON content
  type, and a body that holds status_code (equal to the HTTP status) and
  message, with the exact label of the interface for each refusal; a key
  beyond them is a warning, since the documents do not say "exactly".
  Where the documents say what is accepted but not which status the rest
  gets (another method, another version segment), any 4xx is a refusal, and
  a 2xx or a 5xx is not; a 4xx outside the API's error shape, or a redirect,
  accepts nothing and is a warning.
  Under the bundled profile the checks run in this order, the first failing
  one deciding the answer: headers, timestamp, credentials, signature, body.

  @AUTH-OK @spec
  Scenario Outline: a signed request is accepted whatever JSON object it holds
    Given a signed request to the "check" endpoint
    And the body sent is <body>
    When the request is sent
    Then the response is 200 "Authenticated"

    Examples:
      | body                                              |
      | {}                                                |
      | {"amount": 450000, "currency": "CLP"}             |
      | {"nested": {"list": [1, 2, 3]}, "ñandú": "árbol"} |

  @AUTH-MISSING-HEADER @spec
  Scenario Outline: a request without one of the authentication headers is refused
    Given a signed request to the "<endpoint>" endpoint
    And the "<header>" header is missing
    When the request is sent
    Then the response is 400 "Missing headers"

    Examples:
      | endpoint  | header    |
      | check     | key       |
      | check     | timestamp |
      | check     | signature |
      | signature | key       |
      | signature | timestamp |
      | signature | signature |

  @AUTH-MISSING-ALL @spec
  Scenario Outline: a request without any authentication header is refused
    Given a signed request to the "<endpoint>" endpoint
    And no authentication header is sent
    When the request is sent
    Then the response is 400 "Missing headers"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-EMPTY-HEADER @profile
  Scenario Outline: an authentication header sent empty counts as missing
    Given a signed request to the "<endpoint>" endpoint
    And the "<header>" header is empty
    When the request is sent
    Then the response is 400 "Missing headers"

    Examples:
      | endpoint  | header    |
      | check     | key       |
      | check     | timestamp |
      | check     | signature |
      | signature | key       |
      | signature | timestamp |
      | signature | signature |

  @AUTH-EXPIRED @spec
  Scenario Outline: a request signed too long ago or too far ahead is refused
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is <offset> seconds off
    When the request is sent
    Then the response is 401 "Request expired"

    Examples:
      | endpoint  | offset |
      | check     | -301   |
      | check     | 301    |
      | check     | -86400 |
      | signature | -301   |
      | signature | 301    |
      | signature | 86400  |

  @AUTH-EXPIRY-BOUNDARY @profile
  Scenario Outline: a request within the 300 s tolerance is accepted, in the past and in the future
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is <offset> seconds off
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | offset | status |
      | check     | -299   | 200    |
      | check     | 299    | 200    |
      | signature | -299   | 201    |
      | signature | 299    | 201    |

  @AUTH-TIMESTAMP-NOT-A-NUMBER @profile
  Scenario Outline: a timestamp that is not the Unix time in whole seconds, in base-10 digits, is refused as expired
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is the current time written as "<form>"
    When the request is sent
    Then the response is 401 "Request expired"

    Examples:
      | endpoint  | form         |
      | check     | yesterday    |
      | check     | {now}.5      |
      | check     | +{old}       |
      | check     | {now}.0      |
      | check     | {now-ms}     |
      | signature | 0x{now-hex}  |
      | signature | -{now}       |
      | signature | {now}{now}   |
      | check     | {now-spaced} |
      | signature | +0{old}      |

  @AUTH-TIMESTAMP-SIGN @profile
  Scenario Outline: a timestamp with a plus sign is not base-10 digits; naming the current time and signed as sent, its acceptance lets nobody in and is only a warning
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is the current time written as "<form>"
    When the request is sent
    Then the response is 401 "Request expired", or an acceptance that is only a warning

    # {old} in the rows above is a time older than the tolerance: written
    # with a sign too, it must be refused whatever the parser.
    Examples:
      | endpoint  | form    |
      | check     | +{now}  |
      | signature | +0{now} |

  @AUTH-TIMESTAMP-LEADING-ZEROS @profile
  Scenario Outline: a timestamp with leading zeros is still base-10 digits, signed as sent, and is accepted
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is the current time written as "<form>"
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | form            | status |
      | check     | 0{now}          | 200    |
      | check     | 00000{now}      | 200    |
      | check     | 0000000000{now} | 200    |
      | signature | 0{now}          | 201    |

  @AUTH-HEADER-NAME-CASE @profile
  Scenario Outline: the authentication headers are read whatever the case of their names
    Given a signed request to the "<endpoint>" endpoint
    And the authentication headers are named in "<case>" case
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | case  | status |
      | check     | lower | 200    |
      | check     | upper | 200    |
      | check     | mixed | 200    |
      | signature | lower | 201    |

  @AUTH-CONTENT-TYPE-PARAMETERS @profile
  Scenario Outline: a JSON Content-Type with parameters or in another case is accepted
    Given a signed request to the "<endpoint>" endpoint
    And the Content-Type is "<content-type>"
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | content-type                    | status |
      | check     | application/json; charset=utf-8 | 200    |
      | check     | Application/JSON                | 200    |
      | check     | application/json;charset=UTF-8  | 200    |
      | signature | application/json; charset=utf-8 | 201    |
      | signature | APPLICATION/JSON                | 201    |

  @AUTH-UNKNOWN-KEY @spec
  Scenario Outline: a key the service does not know is refused, and a key is compared exactly, so the merchant's own in another case is unknown
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with the "<credential>" credential
    When the request is sent
    Then the response is 401 "Invalid credentials"

    Examples:
      | endpoint  | credential          |
      | check     | unknown             |
      | signature | unknown             |
      | check     | key-in-another-case |
      | signature | key-in-another-case |

  @AUTH-DISABLED-KEY @spec @needs-disabled-credential
  Scenario Outline: a disabled key is refused
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with the "disabled" credential
    When the request is sent
    Then the response is 401 "Invalid credentials"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-OTHER-MERCHANT-KEY @spec @needs-other-merchant
  Scenario Outline: another merchant's key is refused on this merchant's path
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with the "other-merchant" credential
    When the request is sent
    Then the response is 401 "Invalid credentials"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-WRONG-SECRET @spec
  Scenario Outline: a signature made with a wrong secret is refused
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with a wrong secret
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-BODY @profile
  Scenario Outline: a signature over another body is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature covers another body
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-PATH @profile
  Scenario Outline: a signature over another path is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature covers another path
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-METHOD @profile
  Scenario Outline: a signature over another method is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature covers another method
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-TIMESTAMP @profile
  Scenario Outline: a signature over another timestamp than the one sent is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature covers another timestamp
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-QUERY @profile
  Scenario Outline: a request whose URL has a query is accepted when the query is signed as sent
    Given a signed request to the "<endpoint>" endpoint
    And the URL carries the query "<query>"
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | query                          | status |
      | check     | lang=es                        | 200    |
      | check     | q=%C3%B1and%C3%BA%20a+b&lang=es | 200    |
      | signature | lang=es                        | 201    |

  @AUTH-QUERY-UNSIGNED @profile
  Scenario Outline: a signature that leaves the query out is refused
    Given a signed request to the "<endpoint>" endpoint
    And the URL carries the query "lang=es"
    And the signature leaves out the query
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-QUERY-DECODED @profile
  Scenario Outline: a signature over the decoded query instead of the query as sent is refused
    Given a signed request to the "<endpoint>" endpoint
    And the URL carries the query "q=%C3%B1and%C3%BA%20a"
    And the signature covers the decoded query
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-RAW-BODY @profile
  Scenario Outline: the signature covers the body bytes as sent, however the JSON is laid out
    Given a signed request to the "<endpoint>" endpoint
    And the body is laid out "<layout>"
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | layout          | status |
      | check     | indented        | 200    |
      | check     | escaped-unicode | 200    |
      | check     | keys-reversed   | 200    |
      | signature | indented        | 201    |
      | signature | escaped-unicode | 201    |
      | signature | keys-reversed   | 201    |
      | check     | padded          | 200    |
      | signature | padded          | 201    |

  @AUTH-SIGNATURE-UPPERCASE @profile
  Scenario Outline: a hex signature in upper case is accepted, since the decoded bytes are compared
    Given a signed request to the "<endpoint>" endpoint
    And the signature is sent in upper case
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | status |
      | check     | 200    |
      | signature | 201    |

  @AUTH-SIGNATURE-ENCODING @profile
  Scenario Outline: a signature that is not properly encoded is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature is not properly encoded
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNATURE-ALTERED @profile
  Scenario Outline: a signature altered in any byte, or of the wrong length, is refused
    Given a signed request to the "<endpoint>" endpoint
    And the signature is altered: "<alteration>"
    When the request is sent
    Then the response is 401 "Invalid signature"

    Examples:
      | endpoint  | alteration |
      | check     | first-byte |
      | check     | last-byte  |
      | check     | truncated  |
      | check     | extended   |
      | signature | last-byte  |
      | signature | truncated  |

  @AUTH-CHECK-ORDER @profile
  Scenario Outline: when two checks fail, the earlier one in the check order decides the answer
    Given a signed request to the "<endpoint>" endpoint
    And it breaks the "<first>" check
    And it breaks the "<second>" check
    When the request is sent
    Then the response is <status> "<message>"

    Examples:
      | endpoint  | first       | second      | status | message             |
      | check     | headers     | timestamp   | 400    | Missing headers     |
      | check     | headers     | credentials | 400    | Missing headers     |
      | check     | headers     | signature   | 400    | Missing headers     |
      | check     | headers     | body        | 400    | Missing headers     |
      | check     | timestamp   | credentials | 401    | Request expired     |
      | check     | timestamp   | signature   | 401    | Request expired     |
      | check     | timestamp   | body        | 401    | Request expired     |
      | check     | credentials | signature   | 401    | Invalid credentials |
      | check     | credentials | body        | 401    | Invalid credentials |
      | check     | signature   | body        | 401    | Invalid signature   |
      | signature | headers     | timestamp   | 400    | Missing headers     |
      | signature | headers     | credentials | 400    | Missing headers     |
      | signature | headers     | signature   | 400    | Missing headers     |
      | signature | headers     | body        | 400    | Missing headers     |
      | signature | timestamp   | credentials | 401    | Request expired     |
      | signature | timestamp   | signature   | 401    | Request expired     |
      | signature | timestamp   | body        | 401    | Request expired     |
      | signature | credentials | signature   | 401    | Invalid credentials |
      | signature | credentials | body        | 401    | Invalid credentials |
      | signature | signature   | body        | 401    | Invalid signature   |

  @AUTH-BODY-NOT-OBJECT @profile
  Scenario Outline: a correctly signed body that is not a JSON object is refused with a 400 naming the problem
    Given a signed request to the "<endpoint>" endpoint
    And the body sent is the text "<text>"
    When the request is sent
    Then the response is a 400 naming the problem

    Examples:
      | endpoint  | text     |
      | check     | not json |
      | check     | {"a":    |
      | check     |          |
      | check     | []       |
      | check     | null     |
      | check     | "texto"  |
      | check     | 42       |
      | check     | true     |
      | signature | not json |
      | signature | []       |
      | signature | null     |
      | check     | {}{}     |
      | check     | {} x     |
      | check     | {} ]     |
      | check     | {}\n]    |
      | signature | {} {}    |

  @AUTH-BODY-LENIENT-JSON @profile
  Scenario Outline: a well-formed request written as only a lenient parser reads it is not JSON, and is refused with a 400 on every merchant endpoint
    Given a signed request to the "<endpoint>" endpoint
    And the body is written with "<flaw>"
    When the request is sent
    Then the response is a 400 naming the problem

    # Each body is the request the endpoint takes, but for the flaw: JSON5
    # and JavaScript's own readers take it, JSON does not (RFC 8259).
    Examples:
      | endpoint  | flaw           |
      | check     | trailing-comma |
      | signature | trailing-comma |
      | check     | comment        |
      | signature | comment        |
      | check     | single-quotes  |
      | signature | single-quotes  |
      | check     | nan            |
      | signature | nan            |

  @AUTH-BODY-LIMIT @profile
  Scenario Outline: a body of up to 1 MiB is read, a larger one refused with 413, on every merchant endpoint
    Given a signed request to the "<endpoint>" endpoint
    And the body is a JSON object of <size> bytes
    When the request is sent
    Then the response status is <status>

    Examples:
      | endpoint  | size    | status |
      | check     | 1048576 | 200    |
      | check     | 1048577 | 413    |
      | signature | 1048576 | 201    |
      | signature | 1048577 | 413    |

  @AUTH-METHOD-NOT-POST @spec
  Scenario Outline: a request with another method than POST is refused, however well signed
    Given a signed request to the "<endpoint>" endpoint
    And the method is "<method>"
    When the request is sent
    Then the request is refused (a 4xx, best in the API's error shape)

    Examples:
      | endpoint  | method |
      | check     | GET    |
      | check     | PUT    |
      | check     | PATCH  |
      | check     | DELETE |
      | signature | GET    |
      | signature | PUT    |
      | signature | PATCH  |
      | signature | DELETE |

  @AUTH-CHECK-OTHER-VERSION @profile
  Scenario Outline: a check on another api_version than the accepted one is refused, however well signed
    Given a signed request to the "check" endpoint
    And the version segment of the path is "<segment>"
    When the request is sent
    Then the request is refused (a 4xx, best in the API's error shape)

    # {version} is the api_version the target accepts (v1 under the bundled
    # profile), {VERSION} the same in upper case, {next} the next version.
    Examples:
      | segment     |
      | {next}      |
      | {VERSION}   |
      | {version}.0 |
      | {version}0  |
      | 0{version}  |
      |             |

  @AUTH-PATH-ENCODED-SLASH @profile
  Scenario Outline: a merchant segment holding an encoded slash names no merchant of the key, and is refused, however well signed
    Given a signed request to the "<endpoint>" endpoint
    And the merchant segment of the path is "<segment>"
    When the request is sent
    Then the request is refused (a 4xx, best in the API's error shape)

    # The segment is sent as written, %2F encoded: decoded, it is no
    # merchant id; a service may answer 404 (no endpoint) or 401.
    Examples:
      | endpoint  | segment          |
      | check     | {merchant}%2Fx   |
      | check     | x%2F{merchant}   |
      | signature | {merchant}%2Fx   |
      | signature | x%2F{merchant}   |

  @AUTH-PATH-OTHER-MERCHANT @profile
  Scenario Outline: the merchant's own key is refused on a path that names another merchant
    Given a signed request to the "<endpoint>" endpoint
    And the merchant segment of the path is "<segment>"
    When the request is sent
    Then the response is 401 "Invalid credentials"

    # {merchant} is the merchant the key belongs to, {MERCHANT} the same in
    # upper case.
    Examples:
      | endpoint  | segment      |
      | check     | {MERCHANT}   |
      | check     | {merchant}_2 |
      | signature | {MERCHANT}   |
      | signature | {merchant}_2 |

  # Rows by operator: each row sends every neighbour its operator derives
  # from the valid request, and judges each as the rule says (see
  # docs/operators.md).
  @AUTH-KEY-NEIGHBOURS @spec
  Scenario Outline: every neighbour of the merchant's key, signed with its secret, is an unknown key, for a key is compared exactly
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with 401 "Invalid credentials"

    Examples:
      | endpoint  | operator       |
      | check     | key-case       |
      | check     | key-one-more   |
      | check     | key-one-less   |
      | check     | key-look-alike |
      | signature | key-case       |
      | signature | key-one-more   |
      | signature | key-one-less   |
      | signature | key-look-alike |

  @AUTH-MERCHANT-NEIGHBOURS @profile
  Scenario Outline: the merchant's own key is refused on a path that names any neighbour of its merchant
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with 401 "Invalid credentials"

    Examples:
      | endpoint  | operator            |
      | check     | merchant-case       |
      | check     | merchant-one-more   |
      | check     | merchant-one-less   |
      | check     | merchant-look-alike |
      | signature | merchant-case       |
      | signature | merchant-one-more   |
      | signature | merchant-one-less   |
      | signature | merchant-look-alike |

  @AUTH-SIGNATURE-NEIGHBOURS @profile
  Scenario Outline: the right signature written in any other form than the profile's encoding is not hex, or not the HMAC, and is refused
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with 401 "Invalid signature"

    Examples:
      | endpoint  | operator             |
      | check     | signature-prefix     |
      | check     | signature-whitespace |
      | check     | signature-encoding   |
      | check     | signature-length     |
      | check     | signature-alphabet   |
      | signature | signature-prefix     |
      | signature | signature-whitespace |
      | signature | signature-encoding   |
      | signature | signature-length     |
      | signature | signature-alphabet   |

  @AUTH-SIGNATURE-CASE-NEIGHBOURS @profile
  Scenario Outline: a hex signature with any of its letters in another case is accepted, since the decoded bytes are compared
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is accepted

    Examples:
      | endpoint  | operator       |
      | check     | signature-case |
      | signature | signature-case |

  @AUTH-TIMESTAMP-NEIGHBOURS @profile
  Scenario Outline: the current time written otherwise than in base-10 ASCII digits, signed as sent, is refused as expired
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with 401 "Request expired"

    Examples:
      | endpoint  | operator             |
      | check     | timestamp-digits     |
      | check     | timestamp-separators |
      | check     | timestamp-notation   |
      | signature | timestamp-digits     |
      | signature | timestamp-separators |
      | signature | timestamp-notation   |

  @AUTH-BODY-FRAMING @profile
  Scenario Outline: the body limit holds however the body is framed: with its length or chunked, in text of 1- and 4-byte characters
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one up to 1 MiB is accepted, and each larger one refused with 413

    Examples:
      | endpoint  | operator     |
      | check     | body-framing |
      | signature | body-framing |

  @AUTH-BODY-ESCAPES @profile
  Scenario Outline: a request whose keys and strings are written with JSON escapes is the same request, and is accepted
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is accepted, and a create echoes the title decoded

    Examples:
      | endpoint  | operator     |
      | check     | body-escapes |
      | signature | body-escapes |

  @AUTH-BODY-CONTROLS @profile
  Scenario Outline: a control character unescaped inside a string is not JSON, and is refused with a 400 naming the problem
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with a 400 naming the problem

    Examples:
      | endpoint  | operator      |
      | check     | body-controls |
      | signature | body-controls |

  @AUTH-BODY-OPEN @profile
  Scenario Outline: a body the documents leave to the service (a byte order mark, a key twice, deep nesting, numbers past a double, text not UTF-8) gets no 5xx
    Given a signed request to the "<endpoint>" endpoint
    When each neighbour of the request by "<operator>" is sent
    Then none gets a 5xx, and each refusal has the documented error shape

    Examples:
      | endpoint | operator  |
      | check    | body-open |
