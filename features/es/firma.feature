# language: es
Característica: Crear una solicitud de firma
  Un comercio pide al servicio que envíe a sus firmantes un contrato digital,
  construido a partir de una plantilla entregada de antemano. La respuesta es
  201 con el sobre de firma de la interfaz, sección 2.2. Los valores que envía
  la solicitud vuelven byte a byte. Las horas se juzgan con el reloj de la
  propia suite, con un margen de 30 s por la diferencia de reloj entre las dos
  máquinas.

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
    Y created_at es una hora UTC con milisegundos, dentro del margen de reloj

  @SIG-ENVELOPE-SHAPE @profile
  Escenario: la respuesta trae exactamente status_code, message y el sobre, y el sobre exactamente los campos de la interfaz
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces la respuesta y su sobre traen exactamente los campos de la interfaz, ninguno null

  @SIG-CREATE-MESSAGE @profile
  Escenario: la respuesta de creación confirma la creación con el mensaje del perfil
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces el mensaje de la respuesta es "Signature request created"

  @SIG-SENDER @profile @needs-sender
  Escenario: el sobre nombra al remitente configurado del comercio
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces el remitente es el nombre y el e-mail configurados del comercio

  @SIG-CREATE-REFERENCE @reference
  Escenario: el servidor de referencia nombra a su comercio de demostración como remitente y titula su plantilla de demostración
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces el remitente es "Comercio Demo" con e-mail "contratos@comercio-demo.test"
    Y los documentos se titulan "Contrato de arriendo"

  @SIG-DOCUMENT-TITLE @profile
  Escenario: cada documento lleva el título de su plantilla
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se crea el contrato
    Entonces cada documento lleva el título de su plantilla

  @SIG-UNIQUE-ID @spec
  Escenario: cada contrato recibe su propio signature_id
    Dado que se ha creado un contrato titulado "Contrato 42"
    Y un contrato titulado "Contrato 42"
    Cuando se crea el contrato
    Entonces su signature_id difiere del del contrato anterior

  @SIG-TITLE-ECHO @spec
  Esquema del escenario: el título vuelve exactamente como se envió
    Dado un contrato titulado con la muestra "<sample>"
    Cuando se crea el contrato
    Entonces el título del sobre es el título enviado

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

  @SIG-RECIPIENTS-ORDER @profile
  Escenario: los destinatarios se listan signer_1, signer_2, … sea cual sea el orden de la solicitud
    Dado un contrato titulado "Contrato de arriendo 42"
    Y los firmantes se envían en orden inverso
    Cuando se crea el contrato
    Entonces hay un destinatario por firmante, con claves desde signer_1, cada uno "pending"

  @SIG-SIGNER-FORMS @profile
  Esquema del escenario: se aceptan firmantes escritos como los escriben personas y sistemas de correo reales, y vuelven tal como se enviaron
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "signers[0].<field>" del cuerpo vale <value>
    Cuando se crea el contrato
    Entonces hay un destinatario por firmante, con claves desde signer_1, cada uno "pending"

    Ejemplos:
      | field | value                                                                                           |
      | email | "ana+contratos@example.com"                                                                     |
      | email | "ana.perez-soto@correo.example.cl"                                                              |
      | email | "o'higgins@example.com"                                                                         |
      | email | "ana@xn--and-6ma2c.example"                                                                     |
      | email | "ANA.PEREZ@EXAMPLE.COM"                                                                         |
      | name  | "María José de los Ángeles Pérez-Cotapos O'Ryan y Fernández de Castro Ñuñez"                    |
      | name  | "Nguyễn Thị Minh Khai 阮氏明開"                                                                      |

  @SIG-ROUTING @profile
  Esquema del escenario: el enrutamiento pedido vuelve en el sobre
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "routing" del cuerpo vale "<routing>"
    Cuando se crea el contrato
    Entonces el enrutamiento es "<routing>"

    Ejemplos:
      | routing    |
      | sequential |
      | parallel   |

  @SIG-ROUTING-REFUSED @profile
  Esquema del escenario: se rechaza con un 400 que nombra el campo un enrutamiento que no es parallel ni sequential, escrito exactamente así
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "routing" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el campo "routing"

    Ejemplos:
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
  Esquema del escenario: un enrutamiento enviado vacío o null se rechaza con un 400 que nombra el campo, o se toma como ausente, parallel, con una advertencia
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "routing" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el campo "routing", o un contrato con enrutamiento "parallel" con una advertencia

    Ejemplos:
      | value |
      | ""    |
      | null  |

  @SIG-REFUSED-MISSING @profile
  Esquema del escenario: se rechaza con un 400 una solicitud a la que le falta una parte obligatoria
    Dado un contrato titulado "DEMO_SIGNED Contrato de arriendo 42"
    Y se quita el campo "<field>" del cuerpo
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el problema

    Ejemplos:
      | field            |
      | title            |
      | documents        |
      | signers          |
      | signers[1]       |
      | data             |
      | data.{data-key}  |

  @SIG-REFUSED-INVALID @profile
  Esquema del escenario: se rechaza con un 400 una solicitud con un valor o un tipo incorrecto
    Dado un contrato titulado "DEMO_SIGNED Contrato de arriendo 42"
    Y el campo "<field>" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 que nombra el problema

    Ejemplos:
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
  Esquema del escenario: una solicitud a la que le falta una parte obligatoria se rechaza con un 400 cuyo mensaje nombra la parte
    Dado un contrato titulado "Contrato de arriendo 42"
    Y se quita el campo "<field>" del cuerpo
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 cuyo mensaje nombra "<names>"

    Ejemplos:
      | field           | names      |
      | title           | title      |
      | documents       | documents  |
      | signers         | signers    |
      | data            | data       |
      | signers[1]      | {signer-1} |
      | data.{data-key} | {data-key} |

  @SIG-REFUSAL-NAMES-INVALID @profile
  Esquema del escenario: una solicitud con un valor incorrecto se rechaza con un 400 cuyo mensaje nombra el campo y el valor en falta
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "<field>" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es un 400 cuyo mensaje nombra "<names>"

    Ejemplos:
      | field                     | value                                                               | names                     |
      | documents                 | ["firmakit_no_such_template"]                                       | firmakit_no_such_template |
      | signers[0].email          | "ana@"                                                              | email, {signer-0}         |
      | signers[+]                | {"key": "signer_99", "name": "Extra", "email": "extra@example.com"} | signer_99                 |
      | data.firmakit_no_such_key | "1"                                                                 | firmakit_no_such_key      |
      | routing                   | "mixed"                                                             | routing                   |
      | title                     | 42                                                                  | title                     |

  @SIG-VALIDATION-MISSING @reference
  Esquema del escenario: el servidor de referencia nombra la parte que falta
    Dado un contrato titulado "Contrato de arriendo 42"
    Y se quita el campo "<field>" del cuerpo
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "<message>"

    Ejemplos:
      | field              | message                         |
      | title              | title is required               |
      | data.monto_mensual | missing data key: monto_mensual |
      | signers[1]         | missing signer: signer_2        |

  @SIG-VALIDATION-INVALID @reference
  Esquema del escenario: el servidor de referencia nombra el campo y el fallo
    Dado un contrato titulado "Contrato de arriendo 42"
    Y el campo "<field>" del cuerpo vale <value>
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "<message>"

    Ejemplos:
      | field            | value   | message                                |
      | documents        | ["x"]   | unknown document: x                    |
      | signers[0].email | "ana@"  | invalid email for signer_1             |
      | data.montto      | "1"     | unknown data key: montto               |
      | routing          | "mixed" | routing must be parallel or sequential |

  @SIG-OTHER-VERSION @spec
  Esquema del escenario: un contrato enviado a otra versión que v1 no se crea, y no le sigue ninguna notificación
    Dado un contrato titulado "DEMO_SIGNED enviado a la version <segment>"
    Y el segmento de versión de la ruta es "<segment>"
    Cuando se envía la solicitud
    Entonces la solicitud se rechaza (un 4xx, mejor con la forma de error de la API)
    Y no llega ninguna notificación con el título enviado dentro de 3000 ms después de la respuesta

    Ejemplos:
      | segment |
      | v2      |
      | V1      |
      | v1.0    |
      | v01     |
      | v10     |
      |         |

  @SIG-TITLE-ECHO-NEIGHBOURS @spec
  Esquema del escenario: un título con saltos de línea, separadores, caracteres invisibles, otra forma de normalización o marcado vuelve byte a byte
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se crea y su sobre devuelve el texto byte a byte

    Ejemplos:
      | operator   |
      | title-echo |

  @SIG-CLIENT-CLOCK @spec
  Esquema del escenario: una solicitud firmada a una hora dentro de la ventana pero lejos de ahora recibe un created_at del reloj del servicio, no del cliente
    Dado un contrato titulado "Contrato con reloj desviado"
    Y la marca de tiempo está desfasada en <offset> segundos
    Cuando se crea el contrato
    Entonces created_at es una hora UTC con milisegundos, dentro del margen de reloj

    Ejemplos:
      | offset |
      | -290   |
      | 290    |

  @SIG-FIELD-NEIGHBOURS @profile
  Esquema del escenario: un nombre de documento, clave de firmante, clave de datos o routing a un paso del que asignó el servicio se rechaza con un 400, pues se comparan exactamente
    Dado un contrato titulado "Contrato de arriendo 42"
    Cuando se envía cada vecino de la solicitud por "<operator>"
    Entonces cada uno se rechaza con un 400 que nombra el problema

    Ejemplos:
      | operator      |
      | document-name |
      | signer-key    |
      | data-key      |
      | routing-value |
