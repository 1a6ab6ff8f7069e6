# language: es
Característica: Notificaciones de demostración
  Un contrato cuyo título empieza con un prefijo reservado recibe la
  notificación correspondiente unos 500 ms después de crearse, firmada como
  una real (X-Service-Signature según el perfil incluido). Cualquier otro
  título no recibe ninguna. "Unos 500 ms" se comprueba como de 300 ms a
  1500 ms después del 201.

  @DEMO-NOTIFICATION @spec
  Esquema del escenario: cada prefijo reservado recibe exactamente una notificación firmada de su estado
    Dado un contrato titulado "<prefix> contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "<state>" entre 300 y 1500 ms después del 201
    Y su firma es válida para el secreto del webhook
    Y su signature_id es el del contrato creado

    Ejemplos:
      | prefix        | state    |
      | DEMO_CREATED  | CREATED  |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |
      | DEMO_SIGNED   | SIGNED   |

  @DEMO-SIGNED-DOCUMENT-URL @spec
  Escenario: una notificación SIGNED trae un document_url y ningún reason
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y trae un document_url
    Y no trae reason

  @DEMO-SIGNED-DOCUMENT-OPENS @reference
  Escenario: el document_url del servidor de referencia se abre de verdad
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y el document_url abre un PDF

  @DEMO-REASON @spec
  Esquema del escenario: las notificaciones BOUNCED, REJECTED y CANCELED traen un reason y ningún document_url
    Dado un contrato titulado "<prefix> contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "<state>" entre 300 y 1500 ms después del 201
    Y trae un reason no vacío
    Y no trae document_url

    Ejemplos:
      | prefix        | state    |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |

  @DEMO-CREATED-FIELDS @spec
  Escenario: una notificación CREATED no trae document_url ni reason
    Dado un contrato titulado "DEMO_CREATED contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "CREATED" entre 300 y 1500 ms después del 201
    Y no trae document_url
    Y no trae reason

  @DEMO-FREE-TEXT @spec
  Esquema del escenario: el texto después del prefijo es libre
    Dado un contrato titulado "<title>"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201

    Ejemplos:
      | title                            |
      | DEMO_SIGNED                      |
      | DEMO_SIGNED   con   espacios     |
      | DEMO_SIGNED contrato ñandú á é ü |
      | DEMO_SIGNED 😀✍️ firmado          |

  @DEMO-SAME-RESPONSE @spec
  Escenario: un título de demostración recibe la misma respuesta de creación que cualquier otro
    Dado que se ha creado un contrato titulado "Contrato 42"
    Y un contrato titulado "DEMO_SIGNED Contrato 42"
    Cuando se crea el contrato
    Entonces la respuesta coincide con la anterior salvo signature_id, title y created_at

  @DEMO-NOT-DEMO
  Esquema del escenario: un título que no empieza con un prefijo reservado no recibe notificación
    Dado un contrato titulado "<title>"
    Cuando se crea el contrato
    Entonces no llega ninguna notificación dentro de 1500 ms

    @spec
    Ejemplos:
      | title                |
      | Contrato 42          |
      | contrato DEMO_SIGNED |
      | DEMO_SIGN contrato   |
      | DEMO contrato        |

    @profile
    Ejemplos:
      | title                |
      | demo_signed contrato |
      | Demo_Signed contrato |
