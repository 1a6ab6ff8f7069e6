Feature: Demo notifications
  A contract whose title starts with a reserved prefix gets the matching
  notification about 500 ms after it is created, signed like a real one
  (X-Service-Signature under the bundled profile). Any other title gets none.
  "About 500 ms" is checked as 300 ms to 1500 ms after the 201, measured from
  when the 201 was seen to when the notification reached the suite's
  receiver. "Exactly one" means that no other notification for that contract
  arrives until 3 s after the 201; at the end of the run a ledger of every
  notification received against every contract created must show no extra,
  late or stray notification anywhere in the run. Times inside a notification
  are judged against the suite's own clock with an allowance of 30 s.

  @DEMO-NOTIFICATION @spec
  Scenario Outline: each reserved prefix gets exactly one signed notification of its state
    Given a contract titled "<prefix> contrato 42"
    When the contract is created
    Then exactly one "<state>" notification arrives between 300 and 1500 ms after the 201
    And its signature is valid for the webhook secret
    And its signature_id is the one created

    Examples:
      | prefix        | state    |
      | DEMO_CREATED  | CREATED  |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |
      | DEMO_SIGNED   | SIGNED   |

  @DEMO-PAYLOAD @profile
  Scenario Outline: the notification holds exactly the payload of the bundled profile
    Given a contract titled "<prefix> contrato 42"
    When the contract is created
    Then exactly one "<state>" notification arrives between 300 and 1500 ms after the 201
    And it holds exactly the fields of a "<state>" notification, none null
    And its type is "signature.status"
    And its merchant_id is the merchant's
    And its title is the title sent
    And it is marked as a demo
    And its event_id is a non-empty string
    And its created_at is a UTC time with milliseconds, within the clock allowance

    Examples:
      | prefix        | state    |
      | DEMO_CREATED  | CREATED  |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |
      | DEMO_SIGNED   | SIGNED   |

  @DEMO-DELIVERY @profile
  Scenario: the notification is posted as JSON with a signature header of the profile's form, signed just now
    Given a contract titled "DEMO_SIGNED contrato 42"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it was posted with a JSON content type
    And its signature header has the profile's form, with a time within the clock allowance

  @DEMO-SIGNED-DOCUMENT-URL @spec
  Scenario: a SIGNED notification carries a document_url and no reason
    Given a contract titled "DEMO_SIGNED contrato 42"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it carries a document_url
    And it carries no reason

  @DEMO-SIGNED-DOCUMENT-OPENS @profile
  Scenario: the document_url of a SIGNED notification really opens
    Given a contract titled "DEMO_SIGNED contrato 42"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And the document_url opens a PDF

  @DEMO-REASON @spec
  Scenario Outline: BOUNCED, REJECTED and CANCELED notifications carry a reason and no document_url
    Given a contract titled "<prefix> contrato 42"
    When the contract is created
    Then exactly one "<state>" notification arrives between 300 and 1500 ms after the 201
    And it carries a non-empty reason
    And it carries no document_url

    Examples:
      | prefix        | state    |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |

  @DEMO-CREATED-FIELDS @spec
  Scenario: a CREATED notification carries neither a document_url nor a reason
    Given a contract titled "DEMO_CREATED contrato 42"
    When the contract is created
    Then exactly one "CREATED" notification arrives between 300 and 1500 ms after the 201
    And it carries no document_url
    And it carries no reason

  @DEMO-FREE-TEXT @spec
  Scenario Outline: the text after the prefix is free
    Given a contract titled "<title>"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201

    Examples:
      | title                            |
      | DEMO_SIGNED                      |
      | DEMO_SIGNEDx                     |
      | DEMO_SIGNED_DEMO_CREATED         |
      | DEMO_SIGNED   con   espacios     |
      | DEMO_SIGNED contrato ñandú á é ü |
      | DEMO_SIGNED 😀✍️ firmado          |

  @DEMO-TITLE-ECHO @profile
  Scenario Outline: the notification's title is the title sent, byte for byte
    Given a "DEMO_CREATED" contract titled with the sample "<sample>"
    When the contract is created
    Then exactly one "CREATED" notification arrives between 300 and 1500 ms after the 201
    And its title is the title sent

    Examples:
      | sample   |
      | spaces   |
      | tab      |
      | accents  |
      | japanese |
      | arabic   |
      | emoji    |
      | long     |
      | markup   |

  @DEMO-SAME-RESPONSE @spec
  Scenario: a demo title gets the same create response as any other title
    Given a contract titled "Contrato 42" has been created
    And a contract titled "DEMO_SIGNED Contrato 42"
    When the contract is created
    Then the response matches the earlier one but for signature_id, title and created_at

  @DEMO-EVENT-ID-UNIQUE @profile
  Scenario: every event gets its own event_id
    Given a contract titled "DEMO_SIGNED contrato 1" has been created and notified
    And a contract titled "DEMO_SIGNED contrato 2"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And its event_id differs from the earlier notification's

  @DEMO-RETRY @profile
  Scenario Outline: a notification answered with a 5xx is delivered again, as the same event
    Given a contract titled "DEMO_SIGNED contrato 42"
    And the webhook answers <status> to the contract's first notification
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again after the profile's first retry delay, with the same event_id
    And the delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

    Examples:
      | status |
      | 503    |
      | 500    |

  @DEMO-RETRY-4XX @profile
  Scenario Outline: a notification answered with a 4xx is not delivered, so it is delivered again
    Given a contract titled "DEMO_SIGNED contrato 43"
    And the webhook answers <status> to the contract's first notification
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again after the profile's first retry delay, with the same event_id
    And the delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

    Examples:
      | status |
      | 400    |
      | 404    |
      | 410    |

  @DEMO-RETRY-3XX @profile
  Scenario Outline: a notification answered with a 3xx is not delivered (only a 2xx is), so it is delivered again, to the same address
    Given a contract titled "DEMO_SIGNED contrato 48"
    And the webhook answers <status> to the contract's first notification
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again after the profile's first retry delay, with the same event_id
    And the delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

    Examples:
      | status |
      | 301    |
      | 302    |
      | 307    |

  @DEMO-NO-RETRY-2XX @profile
  Scenario Outline: a notification answered with any 2xx is delivered, so it is not sent again
    Given a contract titled "DEMO_SIGNED contrato 44"
    And the webhook answers <status> to the contract's first notification
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is not delivered again

    Examples:
      | status |
      | 204    |
      | 202    |

  @DEMO-RETRY-LATE-ANSWER @profile
  Scenario: a 2xx given only after the delivery timeout is not a delivery, so it is delivered again
    Given a contract titled "DEMO_SIGNED contrato 45"
    And the webhook answers 200 to the contract's first notification only after the profile's delivery timeout
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again, not sooner than the profile's delivery timeout, with the same event_id
    And the delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

  @DEMO-RETRY-HANG-UP @profile
  Scenario Outline: a notification whose connection closes or is reset without an answer is delivered again
    Given a contract titled "DEMO_SIGNED contrato 46"
    And the webhook ends the connection of the contract's first notification with a TCP <tcp>, without answering
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again after the profile's first retry delay, with the same event_id
    And the delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

    Examples:
      | tcp |
      | FIN |
      | RST |

  @DEMO-RETRY-REFUSED @profile
  Scenario: a notification whose connection is refused, the webhook being down, is delivered again once it is back
    Given a contract titled "DEMO_SIGNED contrato 48"
    And the webhook is down, refusing connections, until 1500 ms after the contract's 201
    When the contract is created
    Then a "SIGNED" notification arrives once the webhook is back, within the profile's retry delays
    And its signature is valid for the webhook secret
    And it is not delivered again

  @DEMO-RETRY-SCHEDULE @profile
  Scenario: failures in a row are retried on the profile's schedule, and nothing follows the success
    Given a contract titled "DEMO_SIGNED contrato 47"
    And the webhook answers 503 to the contract's first 2 notifications
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered 2 more times, each after the profile's next retry delay, with the same event_id
    And each delivery again has a valid signature for the webhook secret
    And no further delivery follows the one answered 2xx

  @DEMO-RETRY-EXHAUSTED @profile
  Scenario: a notification never answered 2xx is retried after each retry delay of the profile, then recorded as failed
    Given a contract titled "DEMO_SIGNED contrato 49"
    And the webhook answers 503 to every notification of the contract
    When the contract is created
    Then a "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it is delivered again after each retry delay of the profile, with the same event_id
    And each delivery again has a valid signature for the webhook secret
    And no delivery follows the last retry, the event being recorded as failed

  @DEMO-NOT-DEMO
  Scenario Outline: a title that does not start with a reserved prefix gets no notification
    Given a contract titled "<title>"
    When the contract is created
    Then no notification arrives within 3000 ms of the 201

    @spec
    Examples:
      | title                |
      | Contrato 42          |
      | contrato DEMO_SIGNED |
      | DEMO_SIGN contrato   |
      | DEMO contrato        |
      | DEMO_ contrato       |
      | DEMO_PENDING x       |
      | ＤＥＭＯ_SIGNED x      |

    @profile
    Examples:
      | title                |
      | demo_signed contrato |
      | Demo_Signed contrato |
      | DEMO_signed contrato |

  @DEMO-NOT-DEMO-LEADING-SPACE @spec
  Scenario: a title with a space before the prefix does not start with it
    Given a contract titled " DEMO_SIGNED contrato 42"
    When the contract is created
    Then no notification arrives within 3000 ms of the 201

  @DEMO-PREFIX-ESCAPED @spec
  Scenario Outline: a title whose prefix is written with JSON escapes starts with the prefix once decoded, and is notified
    Given a contract titled "DEMO_SIGNED contrato 42"
    When each neighbour of the request by "<operator>" is sent
    Then each one is created and notified once, as its decoded title says

    Examples:
      | operator     |
      | demo-escaped |

  @DEMO-PREFIX-NEAR @spec
  Scenario Outline: a title one step from a reserved prefix, or the prefix elsewhere in the body, gets no notification
    Given a contract titled "DEMO_SIGNED contrato 42"
    When each neighbour of the request by "<operator>" is sent
    Then each one is created and gets no notification

    Examples:
      | operator  |
      | demo-near |

  @DEMO-MANY-AT-ONCE @spec
  Scenario Outline: contracts created at the same instant each get their own signature_id and their own notification
    Given a contract titled "DEMO_SIGNED contrato 42"
    When each neighbour of the request by "<operator>" is sent
    Then each one gets its own signature_id and exactly one notification, naming its own contract and title

    Examples:
      | operator     |
      | many-at-once |

  @DEMO-TWO-MERCHANTS @spec @needs-other-merchant-webhook
  Scenario: another merchant's demo contract is notified to that merchant's own webhook, signed with its secret, and to no other
    Given a contract of the other merchant titled "DEMO_SIGNED contrato de otro comercio"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it arrived at the other merchant's webhook, signed with that merchant's webhook secret, and none at this merchant's
    And its signature_id is the one created
