# language: es
Característica: El endpoint del comercio acepta las notificaciones del servicio
  El servicio envía una notificación firmada al signature_webhook del comercio
  cada vez que un contrato cambia de estado. Aquí firmakit hace de servicio:
  escribe cada notificación con la carga del perfil, la firma con el secreto
  del webhook del comercio en el momento del envío y la envía al endpoint, que
  debe responder 2xx dentro del plazo de entrega del perfil (10 s) a todo lo que
  el servicio envía de verdad: cada estado, una cabecera con una firma por
  secreto activo, el mismo evento otra vez como reintento, y un cuerpo escrito
  de otra forma que como lo escribiría el propio codificador JSON del endpoint
  (la firma cubre los bytes enviados, nunca un valor vuelto a serializar).

  @WH-STATE @spec
  Esquema del escenario: se acepta una notificación válida de cada estado
    Dada una notificación "<state>"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | state    |
      | CREATED  |
      | BOUNCED  |
      | REJECTED |
      | CANCELED |
      | SIGNED   |

  @WH-ROTATION @profile
  Esquema del escenario: durante una rotación de secretos, se acepta una cabecera cuya firma válida es una de dos
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook y con uno retirado, siendo válida la firma número <valid>
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | valid |
      | 1     |
      | 2     |

  @WH-DUPLICATE @profile
  Escenario: el mismo evento entregado de nuevo como reintento se acepta las dos veces
    Dada una notificación "CANCELED"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Y el mismo evento se entrega de nuevo tras la primera espera de reintento del perfil, firmado otra vez
    Entonces el endpoint responde 2xx a ambas entregas dentro del plazo de entrega

  @WH-RAW-BYTES @profile
  Esquema del escenario: un cuerpo escrito de otra forma que como lo escribiría un codificador se verifica tal como llega
    Dada una notificación "SIGNED"
    Y su cuerpo se escribe "<layout>"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | layout          |
      | keys-reversed   |
      | indented        |
      | escaped-unicode |
      | escaped-slash   |
      | crlf            |

  @WH-BODY-TEXT @profile
  Esquema del escenario: una notificación con un texto libre largo, o en varias escrituras, se verifica sobre todos sus bytes
    Dada una notificación "<state>"
    Y su texto libre es "<text>"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | state    | text           |
      | SIGNED   | long-title     |
      | REJECTED | long-reason    |
      | CREATED  | scripts-title  |
      | BOUNCED  | scripts-reason |

  @WH-TIME-WINDOW @profile
  Esquema del escenario: se acepta una marca de tiempo alejada de ahora pero dentro de la tolerancia, en el pasado y en el futuro
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su marca de tiempo está a <seconds> segundos de ahora
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | seconds |
      | -30     |
      | 30      |
      | -290    |
      | 290     |

  @WH-HTTP-FORM @profile
  Esquema del escenario: se acepta una notificación se escriban como se escriban sus cabeceras HTTP
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y se envía con "<form>"
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | form                   |
      | lower-case-header-name |
      | content-type-charset   |

  @WH-REAL-CONTRACT @spec
  Esquema del escenario: se acepta la notificación de un contrato real, sin la clave demo y solo con las claves que su estado exige
    Dada una notificación "<state>" de un contrato real, sin sus claves opcionales
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | state   |
      | CREATED |
      | SIGNED  |

  @WH-SAME-CONTRACT @profile
  Escenario: se acepta cada uno de varios eventos de un mismo contrato
    Dada una notificación "CREATED"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Y una notificación "BOUNCED" del mismo contrato se envía al endpoint
    Y una notificación "CANCELED" del mismo contrato se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

  @WH-OUT-OF-ORDER @profile
  Esquema del escenario: se acepta cada evento de un contrato que llega fuera de orden, como lo entregan los reintentos tras un fallo
    Dada una notificación "<later>"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Y una notificación "CREATED" del mismo contrato se envía al endpoint
    Entonces el endpoint responde 2xx dentro del plazo de entrega

    Ejemplos:
      | later    |
      | SIGNED   |
      | CANCELED |

  @WH-DUPLICATE-EXACT @profile
  Escenario: se acepta las dos veces un reintento con los mismos bytes y la misma cabecera de firma
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Y la misma entrega se repite enseguida, con los mismos bytes y la misma cabecera de firma
    Entonces el endpoint responde 2xx a ambas entregas dentro del plazo de entrega

  @WH-HEADER-NEIGHBOURS @profile
  Escenario: se acepta una cabecera cuya firma válida es una de dos, tres o cuatro entradas, en cualquier posición
    Dada una notificación "SIGNED"
    Cuando se envía al endpoint cada vecina de su cabecera de firma cuya firma válida es una de varias entradas
    Entonces el endpoint responde 2xx a cada una dentro del plazo de entrega

  @WH-BOUNDARY-BYTES @profile
  Esquema del escenario: un cuerpo cuyos caracteres corta en dos el búfer de un lector se verifica sobre los bytes recibidos
    Dada una notificación "SIGNED"
    Cuando se envía al endpoint con caracteres "<characters>" cortados por cada posición potencia de dos de su cuerpo
    Entonces el endpoint responde 2xx a cada una dentro del plazo de entrega

    Ejemplos:
      | characters |
      | 2-byte     |
      | 3-byte     |
      | 4-byte     |
      | combining  |

  @WH-RETRY-AFTER-FAILURE @profile
  Esquema del escenario: se acepta el reintento válido de un evento cuya primera entrega falló
    Dada una notificación "SIGNED"
    Y su primera entrega falla: "<first>"
    Cuando se envía al endpoint
    Y el mismo evento se entrega de nuevo tras la primera espera de reintento del perfil, bien firmado
    Entonces el endpoint responde 2xx al reintento dentro del plazo de entrega

    Ejemplos:
      | first          |
      | another-secret |
      | no-header      |
      | stale-t        |
      | cut-short      |

  @WH-EVENTS-OVER-TIME @profile
  Escenario: se acepta cada estado de un contrato por turno, uno de ellos dos veces por dos firmantes
    Dada una notificación "CREATED"
    Y se firma con el secreto del webhook
    Cuando se envía al endpoint
    Y le siguen por turno los demás estados del mismo contrato, uno de ellos dos veces por dos firmantes
    Entonces el endpoint responde 2xx dentro del plazo de entrega
