Feature: Request authentication
  A merchant checks that its signed, expiring requests are accepted before it
  uses any other service. Every failure answers with the HTTP status and the
  exact label of the interface, and a body whose status_code equals the status.
  Both merchant endpoints authenticate the same way: "check" is
  POST /{api_version}/check/{merchant_id}, "signature" is POST /v1/signature/{merchant_id}.

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
  Scenario Outline: a timestamp that is not a Unix time in seconds is refused as expired
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is "<timestamp>"
    When the request is sent
    Then the response is 401 "Request expired"

    Examples:
      | endpoint  | timestamp            |
      | check     | yesterday            |
      | check     | 1763805600.5         |
      | signature | -1763805600          |
      | signature | 17638056001763805600 |

  @AUTH-UNKNOWN-KEY @spec
  Scenario Outline: a key the service does not know is refused
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with the "unknown" credential
    When the request is sent
    Then the response is 401 "Invalid credentials"

    Examples:
      | endpoint  |
      | check     |
      | signature |

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

  @AUTH-PRECEDENCE-MISSING-EXPIRED @profile
  Scenario Outline: a missing header wins over an expired timestamp
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is -3600 seconds off
    And the "key" header is missing
    When the request is sent
    Then the response is 400 "Missing headers"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-PRECEDENCE-EXPIRED-SIGNATURE @profile
  Scenario Outline: an expired timestamp wins over a wrong signature
    Given a signed request to the "<endpoint>" endpoint
    And the timestamp is -3600 seconds off
    And the signature is replaced by a wrong one
    When the request is sent
    Then the response is 401 "Request expired"

    Examples:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-PRECEDENCE-CREDENTIALS-SIGNATURE @profile
  Scenario Outline: wrong credentials win over a wrong signature
    Given a signed request to the "<endpoint>" endpoint
    And the request is signed with the "unknown" credential
    And the signature is replaced by a wrong one
    When the request is sent
    Then the response is 401 "Invalid credentials"

    Examples:
      | endpoint  |
      | check     |
      | signature |
