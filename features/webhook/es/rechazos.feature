# language: es
Característica: El endpoint del comercio rechaza lo que el servicio no envió
  Cualquiera puede enviar algo a la URL de un webhook. Una notificación cuya
  firma no corresponde al cuerpo tal como llega y a su marca de tiempo con el
  secreto del webhook del comercio, o cuya marca de tiempo está a más de la
  tolerancia del perfil (300 s) de la hora actual, no vino del servicio tal
  como está: el endpoint debe rechazarla con cualquier estado distinto de 2xx,
  dentro del plazo de entrega, y no actuar sobre nada de lo que trae. Las
  marcas de tiempo se hacen con el reloj de firmakit; las que quedan fuera de
  la tolerancia quedan 10 s o más fuera, un margen para el reloj del endpoint
  (una respuesta que pudo caer a uno u otro lado de la tolerancia, por la
  lentitud de la propia suite, es no concluyente, no un fallo). Solo las
  entradas v1 son firmas, t son segundos Unix enteros, y el texto firmado es
  exactamente "<t>." seguido del cuerpo tal como llega.

  @WH-BODY-CHANGED @profile
  Escenario: se rechaza un cuerpo cambiado después de firmarlo
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su cuerpo se cambia después de firmarlo
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

  @WH-WRONG-SECRET @profile
  Escenario: se rechaza una notificación firmada con otro secreto
    Dada una notificación "SIGNED"
    Y se firma con otro secreto
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

  @WH-HEADER-MISSING @profile
  Escenario: se rechaza una notificación sin la cabecera de firma
    Dada una notificación "SIGNED"
    Y se envía sin la cabecera de firma
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

  @WH-HEADER-MALFORMED @profile
  Esquema del escenario: se rechaza una cabecera de firma mal formada
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y la cabecera de firma está mal formada: "<form>"
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
      | form                   |
      | no-timestamp           |
      | no-signature           |
      | empty                  |
      | not-key-value          |

  @WH-TIMESTAMP-OLD @profile
  Esquema del escenario: se rechaza una marca de tiempo más antigua que la tolerancia, aunque la firma le corresponda
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su marca de tiempo es <seconds> segundos más antigua de lo que permite la tolerancia
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
      | seconds |
      | 10      |
      | 30      |
      | 86400   |

  @WH-TIMESTAMP-AHEAD @profile
  Esquema del escenario: se rechaza una marca de tiempo más adelantada que la tolerancia, aunque la firma le corresponda
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su marca de tiempo está <seconds> segundos más adelantada de lo que permite la tolerancia
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
      | seconds |
      | 10      |
      | 30      |
      | 86400   |

  @WH-TIMESTAMP-CHANGED @profile
  Esquema del escenario: se rechaza una firma válida conservada mientras se cambia la marca de tiempo
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su marca de tiempo se cambia en <seconds> segundos después de firmar
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
      | seconds |
      | 1       |
      | -60     |

  @WH-SIGNATURE-FORM @profile
  Esquema del escenario: se rechaza una cabecera cuya firma no es una entrada v1 sobre "<t>." + cuerpo
    Dada una notificación "SIGNED"
    Y se firma de otra manera: "<form>"
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
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
  Esquema del escenario: se rechaza una t que no son segundos enteros en dígitos decimales, o, como el servicio nunca la escribe así y se firmó tal como se escribe, se acepta con una advertencia
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su t se escribe "<form>", firmada tal como se escribe
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza, o su aceptación solo es una advertencia

    Ejemplos:
      | form      |
      | fraction  |
      | exponent  |
      | nan       |
      | plus-sign |
      | word      |

  @WH-TIMESTAMP-FORM-OLD @profile
  Esquema del escenario: se rechaza una t más antigua que la tolerancia, se escriba como se escriba, aunque se firme tal como se escribe
    Dada una notificación "SIGNED"
    Y se firma con el secreto del webhook
    Y su t se escribe "<form>", firmada tal como se escribe
    Y su marca de tiempo es 30 segundos más antigua de lo que permite la tolerancia
    Cuando se envía al endpoint
    Entonces el endpoint la rechaza con un estado distinto de 2xx

    Ejemplos:
      | form      |
      | fraction  |
      | exponent  |
      | plus-sign |

  @WH-HEADER-FORGED @profile
  Escenario: se rechaza cada vecina falsificada de la cabecera de firma, se dispongan como se dispongan sus entradas
    Dada una notificación "SIGNED"
    Cuando se envía al endpoint cada vecina falsificada de su cabecera de firma
    Entonces el endpoint rechaza cada una con un estado distinto de 2xx

  @WH-FORGERY-PATHS @profile
  Esquema del escenario: se rechaza cada falsificación de una notificación <state>, con cada tamaño de cuerpo, sobre un contrato demo y uno real
    Dada una notificación "<state>"
    Cuando se envía al endpoint cada falsificación de ella, con cada tamaño de cuerpo, sobre un contrato demo y uno real
    Entonces el endpoint rechaza cada una con un estado distinto de 2xx

    Ejemplos:
      | state    |
      | CREATED  |
      | BOUNCED  |
      | REJECTED |
      | CANCELED |
      | SIGNED   |
