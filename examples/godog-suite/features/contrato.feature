# language: es
Característica: Contratos de arriendo firmados por la plataforma
  Como equipo de QA del comercio
  Quiero usar las frases de firmakit junto a las nuestras
  Para probar nuestra integración contra el servicio

  Escenario: un contrato de demostración firmado llega a nuestro registro
    Dado un contrato titulado "DEMO_SIGNED arriendo depto 42"
    Cuando se crea el contrato
    Entonces la respuesta es un sobre de firma creado
    Y signature_id es un UUID
    Y llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y su firma es válida para el secreto del webhook
    Y nuestro registro guarda el contrato "SIGNED"

  Escenario: una solicitud sin firma se rechaza
    Dada una solicitud firmada al endpoint "check"
    Y no se envía ninguna cabecera de autenticación
    Cuando se envía la solicitud
    Entonces la respuesta es 400 "Missing headers"
