Feature: Create a signature request
  A merchant asks the service to send a digital contract, built from a
  template it delivered beforehand, to its signers. The answer is 201 with
  the signature envelope of the interface, section 2.2.

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
    And created_at is a UTC time with milliseconds

  @SIG-CREATE-REFERENCE @reference
  Scenario: the reference server names the merchant as sender and confirms the creation
    Given a contract titled "Contrato de arriendo 42"
    When the contract is created
    Then the response message is "Signature request created"
    And the sender is "Comercio Demo" with e-mail "contratos@comercio-demo.test"
    And the documents are titled "Contrato de arriendo"

  @SIG-VALIDATION-MISSING @reference
  Scenario Outline: a request without a required part is refused, naming it
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is removed
    When the request is sent
    Then the response is 400 "<message>"

    Examples:
      | field                    | message                         |
      | title                    | title is required               |
      | data.monto_mensual       | missing data key: monto_mensual |
      | signers[1]               | missing signer: signer_2        |

  @SIG-VALIDATION-INVALID @reference
  Scenario Outline: a request with a wrong value is refused, naming the field and the fault
    Given a contract titled "Contrato de arriendo 42"
    And the body field "<field>" is set to <value>
    When the request is sent
    Then the response is 400 "<message>"

    Examples:
      | field            | value   | message                        |
      | documents        | ["x"]   | unknown document: x            |
      | signers[0].email | "ana@"  | invalid email for signer_1     |
      | data.montto      | "1"     | unknown data key: montto       |
      | routing          | "mixed" | routing must be parallel or sequential |
