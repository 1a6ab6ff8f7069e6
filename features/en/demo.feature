Feature: Demo notifications
  A contract whose title starts with a reserved prefix gets the matching
  notification about 500 ms after it is created, signed like a real one
  (X-Service-Signature under the bundled profile). Any other title gets none.
  "About 500 ms" is checked as 300 ms to 1500 ms after the 201.

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

  @DEMO-SIGNED-DOCUMENT-URL @spec
  Scenario: a SIGNED notification carries a document_url and no reason
    Given a contract titled "DEMO_SIGNED contrato 42"
    When the contract is created
    Then exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201
    And it carries a document_url
    And it carries no reason

  @DEMO-SIGNED-DOCUMENT-OPENS @reference
  Scenario: the document_url of the reference server really opens
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
      | DEMO_SIGNED   con   espacios     |
      | DEMO_SIGNED contrato ñandú á é ü |
      | DEMO_SIGNED 😀✍️ firmado          |

  @DEMO-SAME-RESPONSE @spec
  Scenario: a demo title gets the same create response as any other title
    Given a contract titled "Contrato 42" has been created
    And a contract titled "DEMO_SIGNED Contrato 42"
    When the contract is created
    Then the response matches the earlier one but for signature_id, title and created_at

  @DEMO-NOT-DEMO
  Scenario Outline: a title that does not start with a reserved prefix gets no notification
    Given a contract titled "<title>"
    When the contract is created
    Then no notification arrives within 1500 ms

    @spec
    Examples:
      | title                |
      | Contrato 42          |
      | contrato DEMO_SIGNED |
      | DEMO_SIGN contrato   |
      | DEMO contrato        |

    @profile
    Examples:
      | title                |
      | demo_signed contrato |
      | Demo_Signed contrato |
