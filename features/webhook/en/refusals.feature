Feature: A merchant's endpoint refuses what the service did not send
  Anyone can post to a webhook URL. A notification whose signature does not
  match the raw body and its timestamp under the merchant's webhook secret, or
  whose timestamp is more than the profile's tolerance (300 s) away from now,
  did not come from the service as it is: the endpoint must refuse it with
  any status other than 2xx, within the delivery timeout, and act on nothing
  in it. Timestamps are made on firmakit's clock; those outside the tolerance
  are 10 s or more outside it, an allowance for the endpoint's clock (an
  answer that could have fallen on either side of the tolerance, the suite
  having been slow, is inconclusive, not failed). Only v1 entries are
  signatures, t is whole Unix seconds, and the signed text is exactly
  "<t>." followed by the raw body.

  @WH-BODY-CHANGED @profile
  Scenario: a body changed after signing is refused
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its body is changed after signing
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

  @WH-WRONG-SECRET @profile
  Scenario: a notification signed with another secret is refused
    Given a "SIGNED" notification
    And it is signed with another secret
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

  @WH-HEADER-MISSING @profile
  Scenario: a notification without the signature header is refused
    Given a "SIGNED" notification
    And it is sent without the signature header
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

  @WH-HEADER-MALFORMED @profile
  Scenario Outline: a malformed signature header is refused
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And the signature header is malformed: "<form>"
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | form                   |
      | no-timestamp           |
      | no-signature           |
      | empty                  |
      | not-key-value          |

  @WH-TIMESTAMP-OLD @profile
  Scenario Outline: a timestamp older than the tolerance is refused, though the signature matches it
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its timestamp is <seconds> seconds older than the tolerance allows
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | seconds |
      | 10      |
      | 30      |
      | 86400   |

  @WH-TIMESTAMP-AHEAD @profile
  Scenario Outline: a timestamp further ahead than the tolerance is refused, though the signature matches it
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its timestamp is <seconds> seconds further ahead than the tolerance allows
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | seconds |
      | 10      |
      | 30      |
      | 86400   |

  @WH-TIMESTAMP-CHANGED @profile
  Scenario Outline: a valid signature kept while the timestamp is changed is refused
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its timestamp is changed by <seconds> seconds after signing
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | seconds |
      | 1       |
      | -60     |

  @WH-SIGNATURE-FORM @profile
  Scenario Outline: a header whose signature is not a v1 entry over "<t>." + body is refused
    Given a "SIGNED" notification
    And it is signed otherwise: "<form>"
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | form           |
      | v0-only        |
      | v2-only        |
      | v1-empty       |
      | v1-shortened   |
      | v1-lengthened  |
      | body-only      |
      | no-dot         |
      | body-then-t    |
      | no-t-body-only |

  @WH-TIMESTAMP-FORM @profile
  Scenario Outline: a t that is not whole seconds in base-10 digits is refused, or, since the service never writes it so and it was signed as written, accepted with a warning
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its t is written "<form>", signed as written
    When it is posted to the endpoint
    Then the endpoint refuses it, or its acceptance is only a warning

    Examples:
      | form      |
      | fraction  |
      | exponent  |
      | nan       |
      | plus-sign |
      | word      |

  @WH-TIMESTAMP-FORM-OLD @profile
  Scenario Outline: a t older than the tolerance is refused however it is written, though signed as written
    Given a "SIGNED" notification
    And it is signed with the webhook secret
    And its t is written "<form>", signed as written
    And its timestamp is 30 seconds older than the tolerance allows
    When it is posted to the endpoint
    Then the endpoint refuses it with a status other than 2xx

    Examples:
      | form      |
      | fraction  |
      | exponent  |
      | plus-sign |

  @WH-HEADER-FORGED @profile
  Scenario: every forged neighbour of the signature header is refused, however its entries are laid out
    Given a "SIGNED" notification
    When every forged neighbour of its signature header is posted to the endpoint
    Then the endpoint refuses every one with a status other than 2xx

  @WH-FORGERY-PATHS @profile
  Scenario Outline: every forgery of a <state> notification is refused, at every body size, about a demo and a real contract
    Given a "<state>" notification
    When every forgery of it is posted to the endpoint, at every body size, about a demo and a real contract
    Then the endpoint refuses every one with a status other than 2xx

    Examples:
      | state    |
      | CREATED  |
      | BOUNCED  |
      | REJECTED |
      | CANCELED |
      | SIGNED   |
