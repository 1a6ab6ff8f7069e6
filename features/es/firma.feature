# language: es
Característica: Crear una solicitud de firma
  Un comercio pide al servicio que envíe a sus firmantes un contrato digital,
  construido a partir de una plantilla entregada de antemano. La respuesta es
  201 con el sobre de firma de la interfaz, sección 2.2.

  @SIG-CREATE @spec
  Escenario: el sobre de un contrato nuevo trae todos los campos de la interfaz
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces la respuesta es un sobre de firma creado
    Y signature_id es un UUID
    Y el estado del sobre es "PENDIENTE"
    Y el título del sobre es el título enviado
    Y el enrutamiento es "parallel"
    Y el remitente tiene nombre y un e-mail válido
    Y hay un documento por plantilla enviada, con claves desde document_0
    Y hay un destinatario por firmante, con claves desde signer_1, cada uno "pending"
    Y created_at es una hora UTC con milisegundos

  @SIG-CREATE-REFERENCE @reference
  Escenario: el servidor de referencia nombra al comercio como remitente y confirma la creación
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces el mensaje de la respuesta es "Signature request created"
    Y el remitente es "Comercio Demo" con e-mail "contratos@comercio-demo.test"
    Y los documentos se titulan "Contrato de arriendo"

  @SIG-VALIDATION-MISSING @reference
  Esquema del escenario: se rechaza una solicitud a la que le falta una parte obligatoria, nombrándola
    Dado un contrato titulado "Contrato de arriendo 42"
    Y se quita el campo "<field>" del cuerpo
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "<message>"

    Ejemplos:
      | field                    | message                         |
      | title                    | title is required               |
      | data.monto_mensual       | missing data key: monto_mensual |
      | signers[1]               | missing signer: signer_2        |

  @SIG-VALIDATION-INVALID @reference
  Esquema del escenario: se rechaza una solicitud con un valor incorrecto, nombrando el campo y el fallo
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "<field>" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "<message>"

    Ejemplos:
      | field            | value   | message                        |
      | documents        | ["x"]   | unknown document: x            |
      | signers[0].email | "ana@"  | invalid email for signer_1     |
      | data.montto      | "1"     | unknown data key: montto       |
      | routing          | "mixed" | routing must be parallel or sequential |
