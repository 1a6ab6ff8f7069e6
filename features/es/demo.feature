# language: es
Característica: Notificaciones de demostración
  Un contrato cuyo título empieza con un prefijo reservado recibe la
  notificación correspondiente unos 500 ms después de crearse, firmada como
  una real (X-Service-Signature según el perfil incluido). Cualquier otro
  título no recibe ninguna. "Unos 500 ms" se comprueba como de 300 ms a
  1500 ms después del 201, medidos desde que se vio el 201 hasta que la
  notificación llegó al receptor de la suite. "Exactamente una" significa que
  ninguna otra notificación de ese contrato llega hasta 3 s después del 201; al
  final de la ejecución, un libro de todas las notificaciones recibidas frente a
  todos los contratos creados no debe mostrar ninguna notificación de más,
  tardía o ajena en toda la ejecución. Las horas dentro de una notificación se
  juzgan con el reloj de la propia suite, con un margen de 30 s.

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

  @DEMO-PAYLOAD @profile
  Esquema del escenario: la notificación trae exactamente la carga del perfil incluido
    Dado un contrato titulado "<prefix> contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "<state>" entre 300 y 1500 ms después del 201
    Y trae exactamente los campos de una notificación "<state>", ninguno null
    Y su tipo es "signature.status"
    Y su merchant_id es el del comercio
    Y su título es el título enviado
    Y está marcada como demostración
    Y su event_id es un texto no vacío
    Y su created_at es una hora UTC con milisegundos, dentro del margen de reloj

    Ejemplos:
      | prefix        | state    |
      | DEMO_CREATED  | CREATED  |
      | DEMO_BOUNCED  | BOUNCED  |
      | DEMO_REJECTED | REJECTED |
      | DEMO_CANCELED | CANCELED |
      | DEMO_SIGNED   | SIGNED   |

  @DEMO-DELIVERY @profile
  Escenario: la notificación se envía como JSON con una cabecera de firma de la forma del perfil, firmada en el momento
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se envió con un tipo de contenido JSON
    Y su cabecera de firma tiene la forma del perfil, con una hora dentro del margen de reloj

  @DEMO-SIGNED-DOCUMENT-URL @spec
  Escenario: una notificación SIGNED trae un document_url y ningún reason
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y trae un document_url
    Y no trae reason

  @DEMO-SIGNED-DOCUMENT-OPENS @profile
  Escenario: el document_url de una notificación SIGNED se abre de verdad
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
      | DEMO_SIGNEDx                     |
      | DEMO_SIGNED_DEMO_CREATED         |
      | DEMO_SIGNED   con   espacios     |
      | DEMO_SIGNED contrato ñandú á é ü |
      | DEMO_SIGNED 😀✍️ firmado          |

  @DEMO-TITLE-ECHO @profile
  Esquema del escenario: el título de la notificación es el título enviado, byte a byte
    Dado un contrato "DEMO_CREATED" titulado con la muestra "<sample>"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "CREATED" entre 300 y 1500 ms después del 201
    Y su título es el título enviado

    Ejemplos:
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
  Escenario: un título de demostración recibe la misma respuesta de creación que cualquier otro
    Dado que se ha creado un contrato titulado "Contrato 42"
    Y un contrato titulado "DEMO_SIGNED Contrato 42"
    Cuando se crea el contrato
    Entonces la respuesta coincide con la anterior salvo signature_id, title y created_at

  @DEMO-EVENT-ID-UNIQUE @profile
  Escenario: cada evento recibe su propio event_id
    Dado que se ha creado y notificado un contrato titulado "DEMO_SIGNED contrato 1"
    Y un contrato titulado "DEMO_SIGNED contrato 2"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y su event_id difiere del de la notificación anterior

  @DEMO-RETRY @profile
  Esquema del escenario: una notificación respondida con un 5xx se entrega de nuevo, como el mismo evento
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Y el webhook responde <status> a la primera notificación del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id
    Y la nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

    Ejemplos:
      | status |
      | 503    |
      | 500    |

  @DEMO-RETRY-4XX @profile
  Esquema del escenario: una notificación respondida con un 4xx no queda entregada, así que se entrega de nuevo
    Dado un contrato titulado "DEMO_SIGNED contrato 43"
    Y el webhook responde <status> a la primera notificación del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id
    Y la nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

    Ejemplos:
      | status |
      | 400    |
      | 404    |
      | 410    |

  @DEMO-RETRY-3XX @profile
  Esquema del escenario: una notificación respondida con un 3xx no queda entregada (solo un 2xx lo hace), así que se entrega de nuevo, a la misma dirección
    Dado un contrato titulado "DEMO_SIGNED contrato 48"
    Y el webhook responde <status> a la primera notificación del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id
    Y la nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

    Ejemplos:
      | status |
      | 301    |
      | 302    |
      | 307    |

  @DEMO-NO-RETRY-2XX @profile
  Esquema del escenario: una notificación respondida con cualquier 2xx queda entregada, así que no se envía de nuevo
    Dado un contrato titulado "DEMO_SIGNED contrato 44"
    Y el webhook responde <status> a la primera notificación del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y no se entrega de nuevo

    Ejemplos:
      | status |
      | 204    |
      | 202    |

  @DEMO-RETRY-LATE-ANSWER @profile
  Escenario: un 2xx dado solo pasado el plazo de entrega no es una entrega, así que se entrega de nuevo
    Dado un contrato titulado "DEMO_SIGNED contrato 45"
    Y el webhook responde 200 a la primera notificación del contrato solo pasado el plazo de entrega del perfil
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo, no antes del plazo de entrega del perfil, con el mismo event_id
    Y la nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

  @DEMO-RETRY-HANG-UP @profile
  Esquema del escenario: una notificación cuya conexión se cierra o se reinicia sin respuesta se entrega de nuevo
    Dado un contrato titulado "DEMO_SIGNED contrato 46"
    Y el webhook termina la conexión de la primera notificación del contrato con un <tcp> TCP, sin responder
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id
    Y la nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

    Ejemplos:
      | tcp |
      | FIN |
      | RST |

  @DEMO-RETRY-REFUSED @profile
  Escenario: una notificación cuya conexión se rechaza, con el webhook caído, se entrega de nuevo cuando vuelve
    Dado un contrato titulado "DEMO_SIGNED contrato 48"
    Y el webhook está caído, rechazando conexiones, hasta 1500 ms después del 201 del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" cuando el webhook vuelve, dentro de las esperas de reintento del perfil
    Y su firma es válida para el secreto del webhook
    Y no se entrega de nuevo

  @DEMO-RETRY-SCHEDULE @profile
  Escenario: los fallos seguidos se reintentan según el calendario del perfil, y nada sigue al éxito
    Dado un contrato titulado "DEMO_SIGNED contrato 47"
    Y el webhook responde 503 a las primeras 2 notificaciones del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega 2 veces más, cada una tras la siguiente espera de reintento del perfil, con el mismo event_id
    Y cada nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna otra entrega a la respondida con 2xx

  @DEMO-RETRY-EXHAUSTED @profile
  Escenario: una notificación nunca respondida con 2xx se reintenta tras cada espera de reintento del perfil, y luego queda como fallida
    Dado un contrato titulado "DEMO_SIGNED contrato 49"
    Y el webhook responde 503 a todas las notificaciones del contrato
    Cuando se crea el contrato
    Entonces llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y se entrega de nuevo tras cada espera de reintento del perfil, con el mismo event_id
    Y cada nueva entrega tiene una firma válida para el secreto del webhook
    Y no sigue ninguna entrega al último reintento, el evento queda registrado como fallido

  @DEMO-NOT-DEMO
  Esquema del escenario: un título que no empieza con un prefijo reservado no recibe notificación
    Dado un contrato titulado "<title>"
    Cuando se crea el contrato
    Entonces no llega ninguna notificación dentro de 3000 ms después del 201

    @spec
    Ejemplos:
      | title                |
      | Contrato 42          |
      | contrato DEMO_SIGNED |
      | DEMO_SIGN contrato   |
      | DEMO contrato        |
      | DEMO_ contrato       |
      | DEMO_PENDING x       |
      | ＤＥＭＯ_SIGNED x      |

    @profile
    Ejemplos:
      | title                |
      | demo_signed contrato |
      | Demo_Signed contrato |
      | DEMO_signed contrato |

  @DEMO-NOT-DEMO-LEADING-SPACE @spec
  Escenario: un título con un espacio antes del prefijo no empieza con él
    Dado un contrato titulado " DEMO_SIGNED contrato 42"
    Cuando se crea el contrato
    Entonces no llega ninguna notificación dentro de 3000 ms después del 201

  @DEMO-PREFIX-ESCAPED @spec
  Esquema del escenario: un título cuyo prefijo se escribe con escapes JSON empieza con el prefijo una vez decodificado, y se notifica
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se crea y se notifica una vez, como dice su título decodificado

    Ejemplos:
      | operator     |
      | demo-escaped |

  @DEMO-PREFIX-NEAR @spec
  Esquema del escenario: un título a un paso de un prefijo reservado, o el prefijo en otra parte del cuerpo, no recibe ninguna notificación
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se crea y no recibe ninguna notificación

    Ejemplos:
      | operator  |
      | demo-near |

  @DEMO-MANY-AT-ONCE @spec
  Esquema del escenario: los contratos creados en el mismo instante reciben cada uno su propio signature_id y su propia notificación
    Dado un contrato titulado "DEMO_SIGNED contrato 42"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno recibe su propio signature_id y exactamente una notificación, que nombra su propio contrato y título

    Ejemplos:
      | operator     |
      | many-at-once |

  @DEMO-TWO-MERCHANTS @spec @needs-other-merchant-webhook
  Escenario: el contrato de demostración de otro comercio se notifica al webhook de ese comercio, firmado con su secreto, y a ningún otro
    Dado un contrato del otro comercio titulado "DEMO_SIGNED contrato de otro comercio"
    Cuando se crea el contrato
    Entonces llega exactamente una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y llegó al webhook del otro comercio, firmada con el secreto de webhook de ese comercio, y ninguna al de este comercio
    Y su signature_id es el del contrato creado
