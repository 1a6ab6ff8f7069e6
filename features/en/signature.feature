Feature: Create a signature request
  A merchant asks the service to send a digital contract, built from a
  template it delivered beforehand, to its signers. The answer is 201 with
  the signature envelope of the interface, section 2.2. Values the request
  sends come back byte for byte. Times are judged against the suite's own
  clock with an allowance of 30 s for clock skew between the two machines.

  @SIG-CREATE @spec
  Scenario: the envelope of a new contract holds every field of the interface
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the response is a created signature envelope
    And signature_id is a UUID
    And the envelope status is "PENDIENTE"
    And the envelope title is the title sent
    And the routing is "parallel"
    And the sender has a name and a valid e-mail
    And there is one document per template sent, keyed from document_0
    And there is one recipient per signer, keyed from signer_1, each "pending"
    And created_at is a UTC time with milliseconds, within the clock allowance

  @SIG-ENVELOPE-SHAPE @profile
  Scenario: the answer holds exactly status_code, message and the envelope, and the envelope exactly the fields of the interface
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the answer and its envelope hold exactly the fields of the interface, none null

  @SIG-CREATE-MESSAGE @profile
  Scenario: the create answer confirms the creation with the profile's message
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the response message is "Signature request created"

  @SIG-SENDER @profile @needs-sender
  Scenario: the envelope names the merchant's configured sender
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the sender is the merchant's configured name and e-mail

  @SIG-CREATE-REFERENCE @reference
  Scenario: the reference server names its demo merchant as sender and titles its demo template
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the sender is "Comercio Demo" with e-mail "contratos@comercio-demo.test"
    And the documents are titled "Contrato de arriendo"

  @SIG-DOCUMENT-TITLE @profile
  Scenario: each document carries its template's title
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then each document carries the title of its template

  @SIG-UNIQUE-ID @spec
  Scenario: every contract gets its own signature_id
    Given a contract titled "Contrato 42" has been created
    And a contract titled "Contrato 42"
    When the contract is created
    Then its signature_id differs from the earlier contract's

  @SIG-TITLE-ECHO @spec
  Scenario Outline: the title comes back exactly as sent
    Given a contract titled with the sample "<sample>"
    When the contract is created
    Then the envelope title is the title sent

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

  @SIG-RECIPIENTS-ORDER @profile
  Scenario: recipients are listed signer_1, signer_2, … whatever the order of the request
    Given a contract titled "Contrato de arriendo 42"
    And the signers are sent in reverse order
    When the contract is created
    Then there is one recipient per signer, keyed from signer_1, each "pending"

  @SIG-SIGNER-FORMS @profile
  Scenario Outline: signers written as real people and real mail systems write them are taken and come back as sent
    Given a contract titled "Contrato de arriendo 42"
    And the body field "signers[0].<field>" is set to <value>
    When the contract is created
    Then there is one recipient per signer, keyed from signer_1, each "pending"

    Examples:
      | field | value                                                                                           |
      | email | "ana+contratos@example.com"                                                                     |
      | email | "ana.perez-soto@correo.example.cl"                                                              |
      | email | "o'higgins@example.com"                                                                         |
      | email | "ana@xn--and-6ma2c.example"                                                                     |
      | email | "ANA.PEREZ@EXAMPLE.COM"                                                                         |
      | name  | "María José de los Ángeles Pérez-Cotapos O'Ryan y Fernández de Castro Ñuñez"                    |
      | name  | "Nguyễn Thị Minh Khai 阮氏明開"                                                                      |

  @SIG-ROUTING @profile
  Scenario Outline: the routing requested comes back in the envelope
    Given a contract titled "Contrato de arriendo 42"
    And the body field "routing" is set to "<routing>"
    When the contract is created
    Then the routing is "<routing>"

    Examples:
      | routing    |
      | sequential |
      | parallel   |

  @SIG-ROUTING-REFUSED @profile
  Scenario Outline: a routing other than parallel or sequential, written exactly so, is refused with a 400 naming the field
    Given a contract titled "Contrato de arriendo 42"
    And the body field "routing" is set to <value>
    When the request is sent
    Then the response is a 400 naming the field "routing"

    Examples:
      | value         |
      | "Parallel"    |
      | "SEQUENTIAL"  |
      | " parallel"   |
      | "sequential " |
      | "paralelo"    |
      | 1             |
      | true          |
      | ["parallel"]  |

  @SIG-ROUTING-EMPTY @profile
  Scenario Outline: a routing sent empty or null is refused with a 400 naming the field, or taken as absent, parallel, with a warning
    Given a contract titled "Contrato de arriendo 42"
    And the body field "routing" is set to <value>
    When the request is sent
    Then the response is a 400 naming the field "routing", or a contract routed "parallel" with a warning

    Examples:
      | value |
      | ""    |
      | null  |

  @SIG-REFUSED-MISSING @profile
  Scenario Outline: a request without a required part is refused with a 400
    Given a contract titled "DEMO_SIGNED Contrato de arriendo 42"
    And the body field "<field>" is removed
    When the request is sent
    Then the response is a 400 naming the problem

    Examples:
      | field            |
      | title            |
      | documents        |
      | signers          |
      | signers[1]       |
      | data             |
      | data.{data-key}  |

  @SIG-REFUSED-INVALID @profile
  Scenario Outline: a request with a wrong value or type is refused with a 400
    Given a contract titled "DEMO_SIGNED Contrato de arriendo 42"
    And the body field "<field>" is set to <value>
    When the request is sent
    Then the response is a 400 naming the problem

    Examples:
      | field            | value                                                                         |
      | documents        | ["x"]                                                                         |
      | documents        | "{template}"                                                                  |
      | signers[0].email | "ana@"                                                                        |
      | signers[+]       | {"key": "{signer-0}", "name": "Ana Pérez Ñuñez", "email": "otra@example.com"} |
      | signers[+]       | {"key": "signer_99", "name": "Extra", "email": "extra@example.com"}           |
      | data.montto      | "1"                                                                           |
      | routing          | "mixed"                                                                       |
      | title            | 42                                                                            |
      | title            | null                                                                          |
      | signers          | {}                                                                            |
      | data             | []                                                                            |

  @SIG-REFUSAL-NAMES-MISSING @profile
  Scenario Outline: a request without a required part is refused with a 400 whose message names the part
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is removed
    When the request is sent
    Then the response is a 400 whose message names "<names>"

    Examples:
      | field           | names      |
      | title           | title      |
      | documents       | documents  |
      | signers         | signers    |
      | data            | data       |
      | signers[1]      | {signer-1} |
      | data.{data-key} | {data-key} |

  @SIG-REFUSAL-NAMES-INVALID @profile
  Scenario Outline: a request with a wrong value is refused with a 400 whose message names the field and the value at fault
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is set to <value>
    When the request is sent
    Then the response is a 400 whose message names "<names>"

    Examples:
      | field                     | value                                                               | names                     |
      | documents                 | ["firmakit_no_such_template"]                                       | firmakit_no_such_template |
      | signers[0].email          | "ana@"                                                              | email, {signer-0}         |
      | signers[+]                | {"key": "signer_99", "name": "Extra", "email": "extra@example.com"} | signer_99                 |
      | data.firmakit_no_such_key | "1"                                                                 | firmakit_no_such_key      |
      | routing                   | "mixed"                                                             | routing                   |
      | title                     | 42                                                                  | title                     |

  @SIG-VALIDATION-MISSING @reference
  Scenario Outline: the reference server names the missing part
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is removed
    When the request is sent
    Then the response is 400 "<message>"

    Examples:
      | field              | message                         |
      | title              | title is required               |
      | data.monto_mensual | missing data key: monto_mensual |
      | signers[1]         | missing signer: signer_2        |

  @SIG-VALIDATION-INVALID @reference
  Scenario Outline: the reference server names the field and the fault
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is set to <value>
    When the request is sent
    Then the response is 400 "<message>"

    Examples:
      | field            | value   | message                                |
      | documents        | ["x"]   | unknown document: x                    |
      | signers[0].email | "ana@"  | invalid email for signer_1             |
      | data.montto      | "1"     | unknown data key: montto               |
      | routing          | "mixed" | routing must be parallel or sequential |

  @SIG-OTHER-VERSION @spec
  Scenario Outline: a contract sent to another version than v1 is not created, and no notification follows
    Given a contract titled "DEMO_SIGNED sent to version <segment>"
    And the version segment of the path is "<segment>"
    When the request is sent
    Then the request is refused (a 4xx, best in the API's error shape)
    And no notification carrying the title sent arrives within 3000 ms of the answer

    Examples:
      | segment |
      | v2      |
      | V1      |
      | v1.0    |
      | v01     |
      | v10     |
      |         |

  @SIG-TITLE-ECHO-NEIGHBOURS @spec
  Scenario Outline: a title with line breaks, separators, invisible characters, another normalization form or markup comes back byte for byte
    Given a contract titled "Contrato de arriendo 42"
    When each neighbour of the request by "<operator>" is sent
    Then each one is created and its envelope echoes the text byte for byte

    Examples:
      | operator   |
      | title-echo |

  @SIG-CLIENT-CLOCK @spec
  Scenario Outline: a request signed at a time inside the window but far from now gets a created_at of the service's clock, not the client's
    Given a contract titled "Contrato con reloj desviado"
    And the timestamp is <offset> seconds off
    When the contract is created
    Then created_at is a UTC time with milliseconds, within the clock allowance

    Examples:
      | offset |
      | -290   |
      | 290    |

  @SIG-FIELD-NEIGHBOURS @profile
  Scenario Outline: a document name, signer key, data key or routing one step from the one the service assigned is refused with a 400, for they are compared exactly
    Given a contract titled "Contrato de arriendo 42"
    When each neighbour of the request by "<operator>" is sent
    Then each one is refused with a 400 naming the problem

    Examples:
      | operator      |
      | document-name |
      | signer-key    |
      | data-key      |
      | routing-value |
