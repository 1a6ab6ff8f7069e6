# language: es
Característica: Autenticación de solicitudes
  Un comercio comprueba que sus solicitudes firmadas, que expiran, son
  aceptadas antes de usar cualquier otro servicio. Los dos endpoints del
  comercio se autentican igual: "check" es POST /{api_version}/check/{merchant_id},
  "signature" es POST /v1/signature/{merchant_id}.
  Cada respuesta se juzga por su forma completa: el estado HTTP, un tipo de
  contenido JSON y un cuerpo que trae status_code (igual al estado HTTP) y
  message, con la etiqueta exacta de la interfaz para cada rechazo; una clave
  de más es una advertencia, pues los documentos no dicen "exactamente".
  Donde los documentos dicen qué se acepta pero no qué estado recibe el resto
  (otro método, otro segmento de versión), cualquier 4xx es un rechazo, y un
  2xx o un 5xx no lo es; un 4xx fuera de la forma de error de la API, o una
  redirección, no acepta nada y es una advertencia.
  Con el perfil incluido las comprobaciones siguen este orden, y la primera que
  falla decide la respuesta: cabeceras, marca de tiempo, credenciales, firma,
  cuerpo.

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
  Esquema del escenario: una marca de tiempo que no es la hora Unix en segundos enteros, en dígitos decimales, se rechaza como expirada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo es la hora actual escrita como "<form>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Request expired"

    Ejemplos:
      | endpoint  | form         |
      | check     | yesterday    |
      | check     | {now}.5      |
      | check     | +{old}       |
      | check     | {now}.0      |
      | check     | {now-ms}     |
      | signature | 0x{now-hex}  |
      | signature | -{now}       |
      | signature | {now}{now}   |
      | check     | {now-spaced} |
      | signature | +0{old}      |

  @AUTH-TIMESTAMP-SIGN @profile
  Esquema del escenario: una marca de tiempo con signo más no son dígitos decimales; si nombra la hora actual y se firmó tal como se envía, aceptarla no deja entrar a nadie y solo es una advertencia
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo es la hora actual escrita como "<form>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Request expired", o una aceptación que solo es una advertencia

    # {old} en las filas de arriba es una hora más antigua que la tolerancia:
    # escrita con signo también, debe rechazarse sea cual sea el lector.
    Ejemplos:
      | endpoint  | form    |
      | check     | +{now}  |
      | signature | +0{now} |

  @AUTH-TIMESTAMP-LEADING-ZEROS @profile
  Esquema del escenario: una marca de tiempo con ceros a la izquierda sigue siendo dígitos decimales, se firma tal como se envía y se acepta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la marca de tiempo es la hora actual escrita como "<form>"
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | form            | status |
      | check     | 0{now}          | 200    |
      | check     | 00000{now}      | 200    |
      | check     | 0000000000{now} | 200    |
      | signature | 0{now}          | 201    |

  @AUTH-HEADER-NAME-CASE @profile
  Esquema del escenario: las cabeceras de autenticación se leen sea cual sea la caja de sus nombres
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y las cabeceras de autenticación se nombran en caja "<case>"
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | case  | status |
      | check     | lower | 200    |
      | check     | upper | 200    |
      | check     | mixed | 200    |
      | signature | lower | 201    |

  @AUTH-CONTENT-TYPE-PARAMETERS @profile
  Esquema del escenario: se acepta un Content-Type JSON con parámetros o en otra caja
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el Content-Type es "<content-type>"
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | content-type                    | status |
      | check     | application/json; charset=utf-8 | 200    |
      | check     | Application/JSON                | 200    |
      | check     | application/json;charset=UTF-8  | 200    |
      | signature | application/json; charset=utf-8 | 201    |
      | signature | APPLICATION/JSON                | 201    |

  @AUTH-UNKNOWN-KEY @spec
  Esquema del escenario: se rechaza una clave que el servicio no conoce, y una clave se compara exactamente, así que la del propio comercio en otra caja es desconocida
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la solicitud se firma con la credencial "<credential>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    Ejemplos:
      | endpoint  | credential          |
      | check     | unknown             |
      | signature | unknown             |
      | check     | key-in-another-case |
      | signature | key-in-another-case |

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

  @AUTH-SIGNED-OTHER-TIMESTAMP @profile
  Esquema del escenario: se rechaza una firma calculada sobre otra marca de tiempo que la enviada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma cubre otra marca de tiempo
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-SIGNED-QUERY @profile
  Esquema del escenario: se acepta una solicitud cuya URL lleva una consulta cuando la consulta se firma tal como se envía
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la URL lleva la consulta "<query>"
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | query                          | status |
      | check     | lang=es                        | 200    |
      | check     | q=%C3%B1and%C3%BA%20a+b&lang=es | 200    |
      | signature | lang=es                        | 201    |

  @AUTH-QUERY-UNSIGNED @profile
  Esquema del escenario: se rechaza una firma que deja fuera la consulta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la URL lleva la consulta "lang=es"
    Y la firma deja fuera la consulta
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-QUERY-DECODED @profile
  Esquema del escenario: se rechaza una firma sobre la consulta decodificada en lugar de la consulta enviada
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la URL lleva la consulta "q=%C3%B1and%C3%BA%20a"
    Y la firma cubre la consulta decodificada
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  |
      | check     |
      | signature |

  @AUTH-RAW-BODY @profile
  Esquema del escenario: la firma cubre los bytes del cuerpo tal como se envían, se escriba como se escriba el JSON
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el cuerpo se escribe "<layout>"
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | layout          | status |
      | check     | indented        | 200    |
      | check     | escaped-unicode | 200    |
      | check     | keys-reversed   | 200    |
      | signature | indented        | 201    |
      | signature | escaped-unicode | 201    |
      | signature | keys-reversed   | 201    |
      | check     | padded          | 200    |
      | signature | padded          | 201    |

  @AUTH-SIGNATURE-UPPERCASE @profile
  Esquema del escenario: se acepta una firma hexadecimal en mayúsculas, ya que se comparan los bytes decodificados
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma se envía en mayúsculas
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | status |
      | check     | 200    |
      | signature | 201    |

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

  @AUTH-SIGNATURE-ALTERED @profile
  Esquema del escenario: se rechaza una firma alterada en cualquier byte, o de largo incorrecto
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y la firma se altera: "<alteration>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid signature"

    Ejemplos:
      | endpoint  | alteration |
      | check     | first-byte |
      | check     | last-byte  |
      | check     | truncated  |
      | check     | extended   |
      | signature | last-byte  |
      | signature | truncated  |

  @AUTH-CHECK-ORDER @profile
  Esquema del escenario: cuando fallan dos comprobaciones, la primera en el orden decide la respuesta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y incumple la comprobación "<first>"
    Y incumple la comprobación "<second>"
    Cuando se envía la solicitud
    Entonces la respuesta es <status> "<message>"

    Ejemplos:
      | endpoint  | first       | second      | status | message             |
      | check     | headers     | timestamp   | 400    | Missing headers     |
      | check     | headers     | credentials | 400    | Missing headers     |
      | check     | headers     | signature   | 400    | Missing headers     |
      | check     | headers     | body        | 400    | Missing headers     |
      | check     | timestamp   | credentials | 401    | Request expired     |
      | check     | timestamp   | signature   | 401    | Request expired     |
      | check     | timestamp   | body        | 401    | Request expired     |
      | check     | credentials | signature   | 401    | Invalid credentials |
      | check     | credentials | body        | 401    | Invalid credentials |
      | check     | signature   | body        | 401    | Invalid signature   |
      | signature | headers     | timestamp   | 400    | Missing headers     |
      | signature | headers     | credentials | 400    | Missing headers     |
      | signature | headers     | signature   | 400    | Missing headers     |
      | signature | headers     | body        | 400    | Missing headers     |
      | signature | timestamp   | credentials | 401    | Request expired     |
      | signature | timestamp   | signature   | 401    | Request expired     |
      | signature | timestamp   | body        | 401    | Request expired     |
      | signature | credentials | signature   | 401    | Invalid credentials |
      | signature | credentials | body        | 401    | Invalid credentials |
      | signature | signature   | body        | 401    | Invalid signature   |

  @AUTH-BODY-NOT-OBJECT @profile
  Esquema del escenario: un cuerpo bien firmado que no es un objeto JSON se rechaza con un 400 que nombra el problema
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el cuerpo enviado es el texto "<text>"
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el problema

    Ejemplos:
      | endpoint  | text     |
      | check     | not json |
      | check     | {"a":    |
      | check     |          |
      | check     | []       |
      | check     | null     |
      | check     | "texto"  |
      | check     | 42       |
      | check     | true     |
      | signature | not json |
      | signature | []       |
      | signature | null     |
      | check     | {}{}     |
      | check     | {} x     |
      | check     | {} ]     |
      | check     | {}\n]    |
      | signature | {} {}    |

  @AUTH-BODY-LENIENT-JSON @profile
  Esquema del escenario: una solicitud bien formada escrita como solo la lee un lector permisivo no es JSON, y se rechaza con un 400 en cada endpoint del comercio
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el cuerpo se escribe con "<flaw>"
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el problema

    # Cada cuerpo es la solicitud que el endpoint acepta, salvo el defecto:
    # los lectores de JSON5 y de JavaScript la leen, JSON no (RFC 8259).
    Ejemplos:
      | endpoint  | flaw           |
      | check     | trailing-comma |
      | signature | trailing-comma |
      | check     | comment        |
      | signature | comment        |
      | check     | single-quotes  |
      | signature | single-quotes  |
      | check     | nan            |
      | signature | nan            |

  @AUTH-BODY-LIMIT @profile
  Esquema del escenario: se lee un cuerpo de hasta 1 MiB, uno mayor se rechaza con 413, en cada endpoint del comercio
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el cuerpo es un objeto JSON de <size> bytes
    Cuando se envía la solicitud
    Entonces el estado de la respuesta es <status>

    Ejemplos:
      | endpoint  | size    | status |
      | check     | 1048576 | 200    |
      | check     | 1048577 | 413    |
      | signature | 1048576 | 201    |
      | signature | 1048577 | 413    |

  @AUTH-METHOD-NOT-POST @spec
  Esquema del escenario: se rechaza una solicitud con otro método que POST, por bien firmada que esté
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el método es "<method>"
    Cuando se envía la solicitud
    Entonces la solicitud se rechaza (un 4xx, mejor con la forma de error de la API)

    Ejemplos:
      | endpoint  | method |
      | check     | GET    |
      | check     | PUT    |
      | check     | PATCH  |
      | check     | DELETE |
      | signature | GET    |
      | signature | PUT    |
      | signature | PATCH  |
      | signature | DELETE |

  @AUTH-CHECK-OTHER-VERSION @profile
  Esquema del escenario: se rechaza una comprobación en otra api_version que la aceptada, por bien firmada que esté
    Dada una solicitud firmada al endpoint "check"
    Y el segmento de versión de la ruta es "<segment>"
    Cuando se envía la solicitud
    Entonces la solicitud se rechaza (un 4xx, mejor con la forma de error de la API)

    # {version} es la api_version que acepta el servicio (v1 con el perfil
    # incluido), {VERSION} la misma en mayúsculas, {next} la versión siguiente.
    Ejemplos:
      | segment     |
      | {next}      |
      | {VERSION}   |
      | {version}.0 |
      | {version}0  |
      | 0{version}  |
      |             |

  @AUTH-PATH-ENCODED-SLASH @profile
  Esquema del escenario: un segmento de comercio con una barra codificada no nombra a ningún comercio de la clave, y se rechaza, por bien firmado que esté
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el segmento de comercio de la ruta es "<segment>"
    Cuando se envía la solicitud
    Entonces la solicitud se rechaza (un 4xx, mejor con la forma de error de la API)

    # El segmento se envía tal como está escrito, con %2F: decodificado, no
    # es un id de comercio; un servicio puede responder 404 (no es un
    # endpoint) o 401.
    Ejemplos:
      | endpoint  | segment          |
      | check     | {merchant}%2Fx   |
      | check     | x%2F{merchant}   |
      | signature | {merchant}%2Fx   |
      | signature | x%2F{merchant}   |

  @AUTH-PATH-OTHER-MERCHANT @profile
  Esquema del escenario: se rechaza la clave del propio comercio en una ruta que nombra a otro comercio
    Dada una solicitud firmada al endpoint "<endpoint>"
    Y el segmento de comercio de la ruta es "<segment>"
    Cuando se envía la solicitud
    Entonces la respuesta es 401 "Invalid credentials"

    # {merchant} es el comercio al que pertenece la clave, {MERCHANT} el mismo
    # en mayúsculas.
    Ejemplos:
      | endpoint  | segment      |
      | check     | {MERCHANT}   |
      | check     | {merchant}_2 |
      | signature | {MERCHANT}   |
      | signature | {merchant}_2 |

  # Filas por operador: cada fila envía cada vecino que su operador deriva
  # de la solicitud válida, y juzga cada uno como dice la regla (ver
  # docs/operators.md).
  @AUTH-KEY-NEIGHBOURS @spec
  Esquema del escenario: cada vecino de la clave del comercio, firmado con su secreto, es una clave desconocida, pues una clave se compara exactamente
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con 401 "Invalid credentials"

    Ejemplos:
      | endpoint  | operator       |
      | check     | key-case       |
      | check     | key-one-more   |
      | check     | key-one-less   |
      | check     | key-look-alike |
      | signature | key-case       |
      | signature | key-one-more   |
      | signature | key-one-less   |
      | signature | key-look-alike |

  @AUTH-MERCHANT-NEIGHBOURS @profile
  Esquema del escenario: se rechaza la clave del propio comercio en una ruta que nombra a cualquier vecino de su comercio
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con 401 "Invalid credentials"

    Ejemplos:
      | endpoint  | operator            |
      | check     | merchant-case       |
      | check     | merchant-one-more   |
      | check     | merchant-one-less   |
      | check     | merchant-look-alike |
      | signature | merchant-case       |
      | signature | merchant-one-more   |
      | signature | merchant-one-less   |
      | signature | merchant-look-alike |

  @AUTH-SIGNATURE-NEIGHBOURS @profile
  Esquema del escenario: la firma correcta escrita en cualquier otra forma que la codificación del perfil no es hex, o no es el HMAC, y se rechaza
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con 401 "Invalid signature"

    Ejemplos:
      | endpoint  | operator             |
      | check     | signature-prefix     |
      | check     | signature-whitespace |
      | check     | signature-encoding   |
      | check     | signature-length     |
      | check     | signature-alphabet   |
      | signature | signature-prefix     |
      | signature | signature-whitespace |
      | signature | signature-encoding   |
      | signature | signature-length     |
      | signature | signature-alphabet   |

  @AUTH-SIGNATURE-CASE-NEIGHBOURS @profile
  Esquema del escenario: una firma hex con cualquiera de sus letras en otra caja se acepta, pues se comparan los bytes decodificados
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se acepta

    Ejemplos:
      | endpoint  | operator       |
      | check     | signature-case |
      | signature | signature-case |

  @AUTH-TIMESTAMP-NEIGHBOURS @profile
  Esquema del escenario: la hora actual escrita de otro modo que en dígitos ASCII de base 10, firmada tal como se envía, se rechaza como vencida
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con 401 "Request expired"

    Ejemplos:
      | endpoint  | operator             |
      | check     | timestamp-digits     |
      | check     | timestamp-separators |
      | check     | timestamp-notation   |
      | signature | timestamp-digits     |
      | signature | timestamp-separators |
      | signature | timestamp-notation   |

  @AUTH-BODY-FRAMING @profile
  Esquema del escenario: el límite del cuerpo se cumple como sea que vaya el cuerpo: con su longitud o por partes, en texto de caracteres de 1 y de 4 bytes
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno de hasta 1 MiB se acepta, y cada uno mayor se rechaza con 413

    Ejemplos:
      | endpoint  | operator     |
      | check     | body-framing |
      | signature | body-framing |

  @AUTH-BODY-ESCAPES @profile
  Esquema del escenario: una solicitud cuyas claves y textos se escriben con escapes JSON es la misma solicitud, y se acepta
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se acepta, y una creación devuelve el título decodificado

    Ejemplos:
      | endpoint  | operator     |
      | check     | body-escapes |
      | signature | body-escapes |

  @AUTH-BODY-CONTROLS @profile
  Esquema del escenario: un carácter de control sin escapar dentro de un texto no es JSON, y se rechaza con un 400 que nombra el problema
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con un 400 que nombra el problema

    Ejemplos:
      | endpoint  | operator      |
      | check     | body-controls |
      | signature | body-controls |

  @AUTH-BODY-OPEN @profile
  Esquema del escenario: un cuerpo que los documentos dejan al servicio (una marca de orden de bytes, una clave repetida, anidamiento profundo, números fuera de un double, texto que no es UTF-8) no recibe un 5xx
    Dada una solicitud firmada al endpoint "<endpoint>"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces ninguno recibe un 5xx, y cada rechazo tiene la forma de error documentada

    Ejemplos:
      | endpoint | operator  |
      | check    | body-open |
