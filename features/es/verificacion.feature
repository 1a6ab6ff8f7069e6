# language: es
Característica: Autenticación de solicitudes
  Un comercio comprueba que sus solicitudes firmadas, que expiran, son
  aceptadas antes de usar cualquier otro servicio. Cada fallo responde con el
  estado HTTP y la etiqueta exacta de la interfaz, y un cuerpo cuyo status_code
  es igual al estado. Los dos endpoints del comercio se autentican igual:
  "check" es POST /{api_version}/check/{merchant_id}, "signature" es
  POST /v1/signature/{merchant_id}.

  @AUTH-OK @spec
  Esquema del escenario: se acepta una solicitud firmada, sea cual sea el objeto JSON que lleve
    Dada una solicitud firmada al endpoint "check"
    Y el cuerpo enviado es <body>
    Cuando se envía la solicitud
    Entonces la respuesta es 200 "Authenticated"

    Ejemplos:
      | body                                              |
      | {}                                                |
      | {"amount": 450000, "currency": "CLP"}             |
      | {"nested": {"list": [1, 2, 3]}, "ñandú": "árbol"} |

  @AUTH-MISSING-HEADER @spec
  Esquema del escenario: se rechaza una solicitud a la que le falta una cabecera de autenticación
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y falta la cabecera "<header>"
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "Missing headers"

    Ejemplos:
      | endpoint  | header    |
      | check     | key       |
      | check     | timestamp |
      | check     | signature |
      | signature | key       |
      | signature | timestamp |
      | signature | signature |

  @AUTH-MISSING-ALL @spec
  Esquema del escenario: se rechaza una solicitud sin ninguna cabecera de autenticación
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y no se envía ninguna cabecera de autenticación
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "Missing headers"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-EMPTY-HEADER @profile
  Esquema del escenario: una cabecera de autenticación enviada vacía cuenta como ausente
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la cabecera "<header>" está vacía
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "Missing headers"

    Ejemplos:
      | endpoint  | header    |
      | check     | key       |
      | check     | timestamp |
      | check     | signature |
      | signature | key       |
      | signature | timestamp |
      | signature | signature |

  @AUTH-EXPIRED @spec
  Esquema del escenario: se rechaza una solicitud firmada hace demasiado tiempo o demasiado adelantada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo está desfasada en <offset> segundos
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Request expired"

    Ejemplos:
      | endpoint  | offset |
      | check     | -301   |
      | check     | 301    |
      | check     | -86400 |
      | signature | -301   |
      | signature | 301    |
      | signature | 86400  |

  @AUTH-EXPIRY-BOUNDARY @profile
  Esquema del escenario: se acepta una solicitud dentro de la tolerancia de 300 s, en el pasado y en el futuro
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo está desfasada en <offset> segundos
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | offset | status |
      | check     | -299   | 200    |
      | check     | 299    | 200    |
      | signature | -299   | 201    |
      | signature | 299    | 201    |

  @AUTH-TIMESTAMP-NOT-A-NUMBER @profile
  Esquema del escenario: una marca de tiempo que no es una hora Unix en segundos se rechaza como expirada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo es "<timestamp>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Request expired"

    Ejemplos:
      | endpoint  | timestamp            |
      | check     | yesterday            |
      | check     | 1763805600.5         |
      | signature | -1763805600          |
      | signature | 17638056001763805600 |

  @AUTH-UNKNOWN-KEY @spec
  Esquema del escenario: se rechaza una clave que el servicio no conoce
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con la credencial "unknown"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-DISABLED-KEY @spec @needs-disabled-credential
  Esquema del escenario: se rechaza una clave deshabilitada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con la credencial "disabled"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-OTHER-MERCHANT-KEY @spec @needs-other-merchant
  Esquema del escenario: se rechaza la clave de otro comercio en la ruta de este comercio
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con la credencial "other-merchant"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-WRONG-SECRET @spec
  Esquema del escenario: se rechaza una firma hecha con un secreto incorrecto
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con un secreto incorrecto
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-BODY @profile
  Esquema del escenario: se rechaza una firma calculada sobre otro cuerpo
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma cubre otro cuerpo
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-PATH @profile
  Esquema del escenario: se rechaza una firma calculada sobre otra ruta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma cubre otra ruta
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-OTHER-METHOD @profile
  Esquema del escenario: se rechaza una firma calculada sobre otro método
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma cubre otro método
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNATURE-ENCODING @profile
  Esquema del escenario: se rechaza una firma que no está bien codificada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma no está bien codificada
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-PRECEDENCE-MISSING-EXPIRED @profile
  Esquema del escenario: una cabecera ausente prima sobre una marca de tiempo expirada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo está desfasada en -3600 segundos
    Y falta la cabecera "key"
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "Missing headers"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-PRECEDENCE-EXPIRED-SIGNATURE @profile
  Esquema del escenario: una marca de tiempo expirada prima sobre una firma incorrecta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo está desfasada en -3600 segundos
    Y la firma se reemplaza por una incorrecta
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Request expired"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-PRECEDENCE-CREDENTIALS-SIGNATURE @profile
  Esquema del escenario: unas credenciales incorrectas priman sobre una firma incorrecta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con la credencial "unknown"
    Y la firma se reemplaza por una incorrecta
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |
