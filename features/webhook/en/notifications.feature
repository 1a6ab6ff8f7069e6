Feature: A merchant's endpoint accepts the service's notifications
  The service posts a signed notification to the merchant's signature_webhook
  each time a contract changes state. Here firmakit plays the service: it
  writes each notification with the payload of the profile, signs it with the
  merchant's webhook secret at the time of sending and posts it to the
  endpoint, which must answer 2xx within the profile's delivery timeout (10 s)
  to everything the service really sends: every state, a header with one
  signature per active secret, the same event again as a retry, and a body
  written otherwise than the endpoint's own JSON encoder would write it (the
  signature covers the bytes sent, never a re-serialised value).

  @WH-STATE @spec
  Scenario Outline: a valid notification of each state is accepted
    Given a "<state>" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | state    |
      | CREATED  |
      | BOUNCED  |
      | REJECTED |
      | CANCELED |
      | SIGNED   |

  @WH-ROTATION @profile
  Scenario Outline: during a secret rotation, a header whose valid signature is one of two is accepted
    Given a "SIGNED" notification
    And it is signed with the webhook secret and with a retired one, the valid signature being number <valid>
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | valid |
      | 1     |
      | 2     |

  @WH-DUPLICATE @profile
  Scenario: the same event delivered again as a retry is accepted both times
    Given a "CANCELED" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    And the same event is delivered again after the profile's first retry delay, signed anew
    Then the endpoint answers 2xx to both deliveries within the delivery timeout

  @WH-RAW-BYTES @profile
  Scenario Outline: a body written otherwise than an encoder would write it is verified as received
    Given a "SIGNED" notification
    And its body is written "<layout>"
    And it is signed with the webhook secret
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | layout          |
      | keys-reversed   |
      | indented        |
      | escaped-unicode |
      | escaped-slash   |
      | crlf            |

  @WH-BODY-TEXT @profile
  Scenario Outline: a notification with long free text, or text in several scripts, is verified over all its bytes
    Given a "<state>" notification
    And its free text is "<text>"
    And it is signed with the webhook secret
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | state    | text           |
      | SIGNED   | long-title     |
      | REJECTED | long-reason    |
      | CREATED  | scripts-title  |
      | BOUNCED  | scripts-reason |

  @WH-TIME-WINDOW @profile
  Scenario Outline: a timestamp away from now but within the tolerance is accepted, in the past and in the future
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its timestamp is <seconds> seconds from now
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | seconds |
      | -30     |
      | 30      |
      | -290    |
      | 290     |

  @WH-HTTP-FORM @profile
  Scenario Outline: a notification is accepted however its HTTP headers are written
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And it is sent with "<form>"
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | form                   |
      | lower-case-header-name |
      | content-type-charset   |

  @WH-REAL-CONTRACT @spec
  Scenario Outline: a notification of a real contract, with no demo key and only the keys its state requires, is accepted
    Given a "<state>" notification of a real contract, its optional keys absent
    And it is signed with the webhook secret
    When it is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | state   |
      | CREATED |
      | SIGNED  |

  @WH-SAME-CONTRACT @profile
  Scenario: several events of one contract are each accepted
    Given a "CREATED" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    And a "BOUNCED" notification of the same contract is posted to the endpoint
    And a "CANCELED" notification of the same contract is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

  @WH-OUT-OF-ORDER @profile
  Scenario Outline: events of one contract that arrive out of order, as retries after a failure deliver them, are each accepted
    Given a "<later>" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    And a "CREATED" notification of the same contract is posted to the endpoint
    Then the endpoint answers 2xx within the delivery timeout

    Examples:
      | later    |
      | SIGNED   |
      | CANCELED |

  @WH-DUPLICATE-EXACT @profile
  Scenario: a retry with the same bytes and the same signature header is accepted both times
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    And the same delivery is repeated at once, its bytes and signature header unchanged
    Then the endpoint answers 2xx to both deliveries within the delivery timeout

  @WH-HEADER-NEIGHBOURS @profile
  Scenario: a header whose valid signature is one of two, three or four entries, at any position, is accepted
    Given a "SIGNED" notification
    When every neighbour of its signature header whose valid signature is one of several entries is posted to the endpoint
    Then the endpoint answers 2xx to every one within the delivery timeout

  @WH-BOUNDARY-BYTES @profile
  Scenario Outline: a body whose characters a reader's buffer cuts in two is verified over the bytes received
    Given a "SIGNED" notification
    When it is posted to the endpoint with "<characters>" characters cut by every power-of-two offset of its body
    Then the endpoint answers 2xx to every one within the delivery timeout

    Examples:
      | characters |
      | 2-byte     |
      | 3-byte     |
      | 4-byte     |
      | combining  |

  @WH-RETRY-AFTER-FAILURE @profile
  Scenario Outline: the valid retry of an event whose first delivery failed is accepted
    Given a "SIGNED" notification
    And its first delivery fails: "<first>"
    When it is posted to the endpoint
    And the same event is delivered again after the profile's first retry delay, correctly signed
    Then the endpoint answers 2xx to the retry within the delivery timeout

    Examples:
      | first          |
      | another-secret |
      | no-header      |
      | stale-t        |
      | cut-short      |

  @WH-EVENTS-OVER-TIME @profile
  Scenario: every state of one contract in turn, one of them twice for two signers, is each accepted
    Given a "CREATED" notification
    And it is signed with the webhook secret
    When it is posted to the endpoint
    And every other state of the same contract follows in turn, one of them twice for two signers
    Then the endpoint answers 2xx within the delivery timeout
