package reports

import (
	"fmt"
	"strings"

	"github.com/firmakit/firmakit"
)

// Languages of report.html. Every key is in both tables; a test fails
// on a key missing from either, or used by the page and in neither.
var (
	english = map[string]string{
		"title":     "firmakit conformance report",
		"generated": "generated",
		"verdict":   "Verdict",

		"banner.passed":                        "Every selected scenario passed",
		"banner.failed":                        "The suite failed",
		"banner.inconclusive":                  "Inconclusive: a timing check could not be judged",
		"banner.incomplete":                    "Incomplete: not every selected scenario was run",
		"banner.passed with expected failures": "Passed, but for the expected failures declared",
		"banner.passed with warnings":          "Passed, with warnings",
		"counts":                               "%d passed, %d failed, %d not run",
		"counts.expected":                      ", expected failures: %d",
		"counts.inconclusive":                  ", %d inconclusive",
		"counts.warned":                        ", %d with warnings",
		"counts.of":                            ", of %d scenarios",

		"target":             "Target",
		"target.bundled":     "bundled reference server (started by certify, in-process)",
		"merchant":           "merchant",
		"contracts":          "contracts (signature_id)",
		"profile":            "Profile",
		"suite":              "Suite",
		"features":           "features",
		"tags":               "tags",
		"tags.all":           "(all)",
		"certificate":        "Certificate",
		"certificate.verify": "check that it was not changed with",

		"grid.title": "Requirements at a glance",
		"grid.help":  "One box per requirement the run selected; each links to its row below.",
		"grid.none":  "No requirement was selected.",

		"notrun.title":     "Not run",
		"col.scenarios":    "scenarios",
		"col.why":          "why",
		"col.requirements": "requirements",
		"col.torun":        "to run them",
		"col.leaveout":     "to leave them out",
		"noflag":           "no flag",

		"failures.title":     "Failures, by cause",
		"failures.summary":   "Failed scenario runs: %d; scenario rows, once the Spanish and English copies of each are merged: %d; causes: %d.",
		"inconclusive.title": "Inconclusive",
		"inconclusive.help":  "The suite's own process did not run on time, so these timing checks could not be judged either way. Run them again on a quieter machine or with a lower --concurrency.",
		"expected.title":     "Expected failures",
		"expected.help":      "Known deviations of the target, declared with --expected-failures by whoever ran the suite, each with the reason given for it: read each reason. A failure an entry covers does not fail the run; an entry whose scenarios all passed is stale, and fails the run until it is removed.",
		"expected.count":     "%d of %d failed, as declared; %d passed",
		"expected.errors":    "what failed",
		"expected.one":       "1 expected failure",
		"expected.n":         "%d expected failures",
		"col.entry":          "entry",
		"col.reason":         "reason",
		"col.expected":       "expected failures",
		"col.warnings":       "warnings",
		"warnings.title":     "Warnings",
		"warnings.help":      "What the target does that the documents do not require, or that departs from the profile's letter without consequence: nobody gets in, nothing is lost or duplicated, no correct peer breaks. A warning does not fail its scenario; --strict makes it fail. Each group names the practice, and the sentence of the documents or the practice it rests on.",
		"warnings.summary":   "%d warnings, in %d scenarios that passed.",
		"warnings.one":       "1 warning",
		"warnings.n":         "%d warnings",
		"warnings.basis":     "Rests on",
		"warnings.practice":  "a practice: no sentence of the documents requires it",
		"warnings.mark":      "passed with a warning",
		"warnings.step":      "Step",
		"cause.breaks":       "Breaks",
		"cause.failed":       "%d failed",
		"cause.inconclusive": "%d inconclusive",
		"cause.rows":         "%d rows, languages merged",
		"cause.row":          "1 row, languages merged",
		"cause.error":        "Error, as the results share it",
		"cause.requirements": "Requirements",
		"cause.steps":        "Failed steps",
		"cause.example":      "Example",
		"cause.step":         "Failed step",
		"cause.others":       "The other %d rows with this cause",
		"cause.langs":        "languages",

		"diag.not-found":            "The endpoints answered 404: the base URL (--target) or the API version (--api-version) is probably wrong.",
		"diag.server-error":         "The target answered with a 5xx error: its own logs say why.",
		"diag.unreachable":          "No answer came back on any attempt (the connection refused, reset or closed without one): when the target answered the run's other requests, it drops these (a handler that crashes?) or something on the way does, so look at its logs for them; else check --target and that the service is running.",
		"diag.webhook-signature":    "Every such notification's signature is invalid: the webhook secret (--webhook-secret) is probably not the merchant's, or the target signs other bytes.",
		"diag.notification-missing": "Demo notifications did not arrive: the target's signature_webhook for the merchant does not point at the suite's receiver (the URL certify prints at start), or the target cannot reach it.",
		"diag.notification-late":    "Notifications arrived outside the 300–1500 ms window: see the timeline.",
		"diag.answer-form":          "Answers do not have the API's form: a JSON body (Content-Type application/json) whose status_code is the HTTP status and whose message is a string. Each failure names what differs.",
		"diag.authentication":       "Signed requests were not accepted or refused as the checks of defaults.md A say, in their order: each failure names the answer expected and the one that came.",
		"diag.envelope":             "The create-signature answer differs from the envelope of §2.2: a field missing, of another type or form, or a value not echoed byte for byte from the request.",
		"diag.create-request":       "Create-signature requests were judged otherwise than defaults.md C says: a missing or wrong field accepted, or a valid request refused.",
		"diag.notification-form":    "Notifications do not have the profile's form (defaults.md B): how they are posted and signed, or what their body holds.",
		"diag.delivery":             "Deliveries are not made as the profile says (defaults.md B): a failed delivery not retried on its schedule, a retry that is not the same event, or a success delivered again.",
		"diag.demo":                 "Demo titles did not get the one notification their prefix names (defaults.md D, §6.2), or a title that is not a demo got one.",
		"diag.rule":                 "A rule of the documents is broken: each failure cites its sentence.",

		"timeline.title":   "Notification timeline",
		"timeline.help":    "Each dot is one notification's arrival at the suite's receiver, counted from when the 201 that created its contract was seen. The shaded band is the 300–1500 ms window the suite accepts, the dashed line the 500 ms the interface promises.",
		"timeline.none":    "No notification timings were recorded in this run, so there is no timeline: either no scenario waited for a notification, or the steps of this firmakit do not record them.",
		"timeline.summary": "%d notifications: median %d ms, slowest %d ms; %d outside 300–1500 ms.",
		"timeline.axis":    "ms after the 201",
		"timeline.window":  "300–1500 ms window",
		"timeline.mark":    "500 ms",

		"interface.title": "The interface, item by item",
		"interface.help":  "The interface document is quoted as written.",
		"col.item":        "item",
		"col.text":        "interface text",
		"col.status":      "status",
		"col.checkedby":   "checked by",

		"requirements.title": "Requirements",
		"col.tag":            "tag",
		"col.kind":           "kind",
		"col.passed":         "passed",
		"col.failed":         "failed",
		"col.notrun":         "not run",
		"col.inconclusive":   "inconclusive",
		"col.scenario":       "scenario",

		"ids.title":     "Contracts and notifications of this run",
		"ids.help":      "The signature_id of every contract the run created and the event_id of every notification it received, so that the service provider can match them against its own records.",
		"ids.signature": "%d signature_id",
		"ids.event":     "%d event_id",
		"ids.none":      "The run recorded no signature_id and no event_id.",

		"status.passed":                        "passed",
		"status.failed":                        "failed",
		"status.not run":                       "not run",
		"status.inconclusive":                  "inconclusive",
		"status.incomplete":                    "incomplete",
		"status.not tested":                    "not tested",
		"status.passed, partly not run":        "passed, partly not run",
		"status.not selected":                  "not selected",
		"status.passed, partly not selected":   "passed, partly not selected",
		"status.expected failure":              "expected failure",
		"status.passed with expected failures": "passed with expected failures",
		"status.passed with warnings":          "passed with warnings",
		"status.stale":                         "stale: remove the entry",

		"explain.passed":                  "passed: every selected scenario passed, %d of %d",
		"explain.passed.expected":         "passed with %s (%s), declared with --expected-failures: every other selected scenario passed, %d of %d",
		"explain.failed":                  "failed: %d of %s failed (%s); each failure names the step, what was sent and what came back%s",
		"explain.inconclusive":            "inconclusive: %d of %s could not be judged (%s): the suite's own process did not run on time, so a timing check could not tell; run them again on a quieter machine or with a lower --concurrency%s",
		"explain.inconclusive.unanswered": "inconclusive: %d of %s could not be judged (%s): their requests got no answer on any attempt (the connection refused, reset or closed without one), so there was nothing to judge; run them again, and if it repeats while the target answers other requests, look at its logs for them%s",
		"explain.inconclusive.time":       "inconclusive: %d of %s were not judged (%s): the run reached its --max-duration before they ended; run them again with a longer --max-duration, or select fewer with --tags%s",
		"explain.incomplete":              "incomplete: %d of %s not run; %sleave them out with --tags '%s'",
		"explain.nothing":                 "incomplete: no scenario ran",
		"explain.give":                    "give %s, or ",
		"explain.and":                     " and ",
		"explain.also":                    "; also %s",
		"explain.n.inconclusive":          "%d inconclusive",
		"explain.n.warnings":              "%s in %d scenarios (passed with warnings)",
		"explain.passed.warnings":         "passed with %s: every selected scenario passed, %d of %d; %d of them with warnings (%s), on what the documents do not require: each warning names the practice or the sentence behind it; --strict makes them fail",
		"explain.n.notrun":                "%d not run",
		"scenario":                        "1 scenario",
		"scenarios":                       "%d scenarios",

		"need.needs-disabled-credential": "no disabled credential given (--disabled-key, --disabled-secret)",
		"need.needs-other-merchant":      "no other merchant's credential given (--other-key, --other-secret)",
		"need.needs-sender":              "the merchant's sender was not given (--sender-name, --sender-email)",

		"caveats.title":    "What passing does not prove",
		"caveat.profile":   "It checks the target under the profile named above. A deployment that signs differently passes only under its own profile, and nothing here proves which profile a production service uses.",
		"caveat.demo":      "Notifications are checked in demo mode only; real contracts, real signers and the conditions that trigger each state outside demo mode are not exercised. Retries are checked once: the first retry of one notification answered 503.",
		"caveat.reference": "@reference scenarios check choices of the reference server; a run that leaves them out says nothing about validation messages.",
		"caveat.timing":    "\"About 500 ms\" is checked as 300 to 1500 ms after the 201, as the suite sees it; a remote receiver adds its network delay.",
		"caveat.ledger":    "The ledger sees what reached the suite's receiver during the run: a duplicate sent after the run ended is not seen.",
		"caveat.scope":     "Rate limits, size limits and the other services the interface lists (payin, payout, direct debit, code catalog) are not covered.",
		"caveat.digest":    "The certificate's digest shows whether the file was changed after it was written; anyone can compute a SHA-256, so it does not prove who wrote it.",

		// The webhook set (certify-webhook): its target, its hints (Run.Hints,
		// "hint."+Hint.ID) and what passing it does not prove.
		"target.webhook": "merchant webhook endpoint",
		"hints.title":    "What the failures point at",
		"exchange":       "sent and answered",

		"notproven.webhook.profile":   "It checks the endpoint under the profile named above, with the secret it was given: it says nothing of a production service that signs otherwise.",
		"notproven.webhook.effects":   "An answer is judged by its status alone: that the endpoint acted on a valid notification (stored it, moved the contract on) and on nothing it refused is not seen from outside.",
		"notproven.webhook.duplicate": "A duplicate is judged by its answer: that the endpoint did not act twice on the same event_id is not seen from outside.",
		"notproven.webhook.timing":    "Whether the endpoint compares signatures in constant time is not measured.",
		"notproven.webhook.scope":     "Each scenario sends one to three notifications, bodies of a few KiB at most; load, concurrency and bodies near a size limit of the endpoint are not exercised, nor retries beyond the first.",

		"hint.no-status":             "no status",
		"hint.unreachable":           "%d scenario(s) got no answer at all (%s): check that the endpoint runs at %s and that this machine can reach it.",
		"hint.all-refused":           "Everything was refused, the valid notifications too (answered %s): the endpoint verifies with another secret than the one given (--webhook-secret), or computes the signature over a re-serialised body instead of the raw bytes it received (read the body as bytes before any JSON parsing, and sign \"<t>%s\" + those bytes), or its clock is more than %d s off, or it allows less than a second (a tolerance read in milliseconds?) and the notifications took longer to arrive.",
		"hint.all-accepted":          "Everything was accepted, the forged notifications too (answered %s): the endpoint does not verify the %s header at all, so anyone who knows its URL can make it act. Verify the signature, and the age of t, before acting on a notification.",
		"hint.raw-bytes":             "Notifications written as firmakit's encoder writes them were accepted, the same ones written otherwise were refused (%s): the endpoint verifies a re-serialised or re-formatted body, not the raw bytes it received.",
		"hint.rotation-first-only":   "A header whose valid signature came second was refused: the endpoint checks only the first %s= entry. During a secret rotation the service sends one entry per active secret; accept the notification when any entry matches.",
		"hint.rotation-last-only":    "A header whose valid signature came first was refused: the endpoint checks only the last %s= entry; accept the notification when any entry matches.",
		"hint.rotation-any":          "A header with two %s= entries was refused though one was valid: during a secret rotation the service sends one entry per active secret; accept the notification when any entry matches.",
		"hint.duplicate-refused":     "The retry of an event the endpoint had accepted was refused: answer 2xx again to an event_id already handled (and do nothing more), or the service retries it until it gives up.",
		"hint.timestamp-unchecked":   "The endpoint checks the signature but not the age of t: a notification captured once can be replayed at any time. Refuse a t more than %d s from the endpoint's clock, either way.",
		"hint.timestamp-ahead":       "The endpoint refuses an old t but not one ahead of its clock: refuse a t more than %d s away either way (compare the absolute difference).",
		"hint.timestamp-old":         "The endpoint refuses a t ahead of its clock but not an old one: refuse a t more than %d s away either way.",
		"hint.timestamp-unsigned":    "A signature was accepted with another t than the one it was made for: the endpoint's signature does not cover t, so a replay with a fresh t passes its age check. The signed text is \"<t>%s\" + the raw body.",
		"hint.timestamp-nan":         "A t that is not a number was accepted: read as a number it is NaN, and an age check that compares a NaN always passes. Refuse a t that is not base-10 digits.",
		"hint.late":                  "The endpoint answered after the %s delivery timeout: the service counts that as a failure and retries. Answer 2xx first, do the work afterwards.",
		"hint.unknown-contract":      "Every valid notification was refused with 404: the endpoint does not know the contracts (signature_id) firmakit made up. Give ids of contracts it knows with --signature-id ID or --signature-ids FILE; its secret was not put to the test.",
		"hint.unknown-contracts":     "Every valid notification was refused with 404, though about contracts given as known (%s): the endpoint does not know them, or 404 is the answer of another path than the endpoint's.",
		"hint.clock-off":             "Every valid notification was refused (answered %s), but one whose t was %+d s (%+.0f h) from firmakit's clock was accepted: the endpoint's clock, or the time it reads t against, is off by that much (Unix time is UTC, never local time). Its secret and its signing are right.",
		"hint.clock-millis":          "Every valid notification was refused (answered %s), but one whose t was written in milliseconds was accepted: the endpoint compares t with its clock in milliseconds. t is whole seconds; divide the clock's milliseconds by 1000. Its secret and its signing are right.",
		"hint.exact-retry-refused":   "A delivery repeated with the same bytes and the same %s header was refused, though a retry signed anew was accepted: the endpoint guards against replays by the header or the bytes. The service may send the very same request again; drop duplicates by event_id and answer 2xx.",
		"hint.same-state-refused":    "A second event of one contract in one state was refused, though events of one contract in different states were accepted: the endpoint drops duplicates by contract and state. Each signer's mail can bounce, each in an event of its own; drop duplicates by event_id only.",
		"hint.out-of-order-refused":  "A CREATED event of a contract that had arrived in a later state was refused, though events arriving in order were accepted: the endpoint refuses events that arrived out of order. A retry after a failed delivery can bring an earlier event after a later one; accept each, and order them by created_at if the order matters.",
		"hint.boundary-bytes":        "Bodies whose multi-byte characters a buffer boundary cuts were refused (%s), other long bodies accepted: the endpoint turns the body into text piece by piece (a chunk, a read buffer) before verifying, and a character cut in two changes. Verify the raw bytes received, then decode them whole.",
		"hint.retry-after-failure":   "The valid retry of an event whose first delivery failed was refused (%s): the endpoint remembers its first answer to an event_id, a refusal or a broken delivery too. Note an event as handled only once it verified and was handled; answer a retry as the first valid delivery.",
		"hint.header-forged":         "Forged signature headers were accepted in some layouts only (%s): the endpoint's parser reads the header loosely (a %s given twice read once for its age and once for the signature, a key that only starts like %s, …). Take exactly one t, only the exact signature key's entries, and refuse anything else.",
		"hint.forgery-path":          "Forgeries were accepted on some paths only (%s), the same forgeries refused on others: the endpoint answers before verifying for a state, a kind of contract or a large body. Verify every notification, whatever it holds and however large, before answering 2xx.",
		"hint.same-contract-refused": "A second event of one contract was refused: the endpoint drops duplicates by signature_id. One contract has several events (CREATED, then SIGNED or BOUNCED …); drop duplicates by event_id only.",
		"hint.body-text":             "Notifications with a long text, or text in several scripts, were refused (%s), others accepted: the endpoint verifies only part of the body, caps its size too low, or changes its characters before verifying. Verify every byte received, as received.",
		"hint.http-form":             "Notifications were refused for the way their HTTP headers were written (%s): header names are case-insensitive (%s may arrive in lower case, as HTTP/2 always sends it), and a Content-Type may carry parameters such as charset=utf-8.",
		"hint.real-contract":         "Notifications of a real contract (no demo key, a title without a DEMO_ prefix, no optional key its state does not need) were refused, demo ones accepted: the endpoint requires what only demo notifications carry.",
		"hint.window-future":         "A valid t a little ahead of firmakit's clock was refused: the endpoint refuses any t in the future. Clocks differ; accept a t up to %d s away either way.",
		"hint.window-narrow":         "A valid t inside the tolerance was refused (%s): the endpoint allows less than %d s either way.",
		"hint.signature-form":        "Signatures that are not a %s= entry over \"<t>%s\" + the raw body were accepted (%s): only v1 entries are signatures, and a signature must be the whole HMAC, compared whole, over exactly that text.",
		"hint.timestamp-form":        "A %[2]s that is not whole Unix seconds in base-10 digits was accepted (%[1]s): the endpoint reads it with a float or lenient parser. Refuse a t with anything but the digits 0-9.",
		"hint.tolerance-wide":        "A t a little more than %d s away was accepted: the endpoint allows more than the profile's tolerance.",
		"hint.charset":               "Valid notifications were refused unless every non-ASCII character of the body was escaped (\\u00f1): the endpoint reads the body in another charset than UTF-8 (Latin-1, say) and verifies the bytes it wrote back. Verify the bytes received, before decoding them.",
		"hint.tolerance-tiny":        "Valid notifications signed just now were refused at random, and every t a few seconds away: the endpoint allows less than a second instead of %d s (a tolerance read in milliseconds?).",
	}

	spanish = map[string]string{
		"title":     "Informe de conformidad de firmakit",
		"generated": "generado",
		"verdict":   "Veredicto",

		"banner.passed":                        "Todos los escenarios seleccionados pasaron",
		"banner.failed":                        "La suite falló",
		"banner.inconclusive":                  "No concluyente: una comprobación de tiempos no se pudo juzgar",
		"banner.incomplete":                    "Incompleto: no se ejecutaron todos los escenarios seleccionados",
		"banner.passed with expected failures": "Aprobado, salvo los fallos esperados declarados",
		"banner.passed with warnings":          "Aprobado, con advertencias",
		"counts":                               "%d aprobados, %d fallidos, %d sin ejecutar",
		"counts.expected":                      ", fallos esperados: %d",
		"counts.inconclusive":                  ", %d no concluyentes",
		"counts.warned":                        ", %d con advertencias",
		"counts.of":                            ", de %d escenarios",

		"target":             "Objetivo",
		"target.bundled":     "servidor de referencia incluido (lo inicia certify, en el mismo proceso)",
		"merchant":           "comercio",
		"contracts":          "contratos (signature_id)",
		"profile":            "Perfil",
		"suite":              "Suite",
		"features":           "features",
		"tags":               "etiquetas",
		"tags.all":           "(todas)",
		"certificate":        "Certificado",
		"certificate.verify": "compruebe que no se modificó con",

		"grid.title": "Requisitos de un vistazo",
		"grid.help":  "Una casilla por requisito seleccionado en la ejecución; cada una enlaza con su fila más abajo.",
		"grid.none":  "No se seleccionó ningún requisito.",

		"notrun.title":     "Sin ejecutar",
		"col.scenarios":    "escenarios",
		"col.why":          "por qué",
		"col.requirements": "requisitos",
		"col.torun":        "para ejecutarlos",
		"col.leaveout":     "para dejarlos fuera",
		"noflag":           "ninguna opción",

		"failures.title":     "Fallos, por causa",
		"failures.summary":   "Ejecuciones de escenario fallidas: %d; filas de escenario, al unir las copias en español e inglés de cada una: %d; causas: %d.",
		"inconclusive.title": "No concluyentes",
		"inconclusive.help":  "El propio proceso de la suite no se ejecutó a tiempo, así que estas comprobaciones de tiempos no se pudieron juzgar en ningún sentido. Vuelva a ejecutarlas en una máquina más tranquila o con un --concurrency menor.",
		"expected.title":     "Fallos esperados",
		"expected.help":      "Desviaciones conocidas del objetivo, declaradas con --expected-failures por quien ejecutó la suite, cada una con el motivo que se dio: lea cada motivo. Un fallo que cubre una entrada no hace fallar la ejecución; una entrada cuyos escenarios pasaron todos está obsoleta, y hace fallar la ejecución hasta que se quite.",
		"expected.count":     "%d de %d fallaron, como se declaró; %d pasaron",
		"expected.errors":    "lo que falló",
		"expected.one":       "1 fallo esperado",
		"expected.n":         "%d fallos esperados",
		"col.entry":          "entrada",
		"col.reason":         "motivo",
		"col.expected":       "fallos esperados",
		"col.warnings":       "advertencias",
		"warnings.title":     "Advertencias",
		"warnings.help":      "Lo que hace el objetivo que los documentos no exigen, o que se aparta de la letra del perfil sin consecuencias: nadie entra, nada se pierde ni se duplica, ningún par correcto se rompe. Una advertencia no hace fallar su escenario; --strict la hace fallar. Cada grupo nombra la práctica, y la frase de los documentos o la práctica en que se apoya.",
		"warnings.summary":   "%d advertencias, en %d escenarios aprobados.",
		"warnings.one":       "1 advertencia",
		"warnings.n":         "%d advertencias",
		"warnings.basis":     "Se apoya en",
		"warnings.practice":  "una práctica: ninguna frase de los documentos lo exige",
		"warnings.mark":      "aprobado con una advertencia",
		"warnings.step":      "Paso",
		"cause.breaks":       "Incumple",
		"cause.failed":       "%d fallidos",
		"cause.inconclusive": "%d no concluyentes",
		"cause.rows":         "%d filas, con los idiomas unidos",
		"cause.row":          "1 fila, con los idiomas unidos",
		"cause.error":        "Error, tal como lo comparten los resultados",
		"cause.requirements": "Requisitos",
		"cause.steps":        "Pasos fallidos",
		"cause.example":      "Ejemplo",
		"cause.step":         "Paso fallido",
		"cause.others":       "Las otras %d filas con esta causa",
		"cause.langs":        "idiomas",

		"diag.not-found":            "Los endpoints respondieron 404: la URL base (--target) o la versión de la API (--api-version) probablemente son incorrectas.",
		"diag.server-error":         "El objetivo respondió con un error 5xx: sus propios registros dicen por qué.",
		"diag.unreachable":          "No llegó ninguna respuesta en ningún intento (la conexión rechazada, reiniciada o cerrada sin ella): si el objetivo respondió las demás solicitudes de la ejecución, las descarta (¿un manejador que se cae?) o algo en el camino lo hace, así que revise sus registros para ellas; si no, revise --target y que el servicio esté en marcha.",
		"diag.webhook-signature":    "La firma de todas esas notificaciones no es válida: el secreto del webhook (--webhook-secret) probablemente no es el del comercio, o el objetivo firma otros bytes.",
		"diag.notification-missing": "Las notificaciones de demostración no llegaron: el signature_webhook del comercio en el objetivo no apunta al receptor de la suite (la URL que certify muestra al empezar), o el objetivo no puede llegar a él.",
		"diag.notification-late":    "Las notificaciones llegaron fuera de la ventana de 300–1500 ms: vea la línea de tiempo.",
		"diag.answer-form":          "Las respuestas no tienen la forma de la API: un cuerpo JSON (Content-Type application/json) cuyo status_code es el estado HTTP y cuyo message es un texto. Cada fallo dice qué difiere.",
		"diag.authentication":       "Las solicitudes firmadas no fueron aceptadas ni rechazadas como dicen las comprobaciones de defaults.md A, en su orden: cada fallo dice la respuesta esperada y la que llegó.",
		"diag.envelope":             "La respuesta de crear firma difiere del sobre de §2.2: falta un campo, es de otro tipo o forma, o un valor no se devuelve byte a byte como se envió.",
		"diag.create-request":       "Las solicitudes de crear firma se juzgaron de otro modo que dice defaults.md C: se aceptó un campo ausente o incorrecto, o se rechazó una solicitud válida.",
		"diag.notification-form":    "Las notificaciones no tienen la forma del perfil (defaults.md B): cómo se envían y se firman, o lo que lleva su cuerpo.",
		"diag.delivery":             "Las entregas no se hacen como dice el perfil (defaults.md B): una entrega fallida no se reintenta según su calendario, un reintento no es el mismo evento, o un éxito se entrega otra vez.",
		"diag.demo":                 "Los títulos de demostración no recibieron la única notificación que su prefijo nombra (defaults.md D, §6.2), o un título que no es de demostración recibió una.",
		"diag.rule":                 "Se incumple una regla de los documentos: cada fallo cita su frase.",

		"timeline.title":   "Línea de tiempo de las notificaciones",
		"timeline.help":    "Cada punto es la llegada de una notificación al receptor de la suite, contada desde que se vio el 201 que creó su contrato. La franja sombreada es la ventana de 300–1500 ms que acepta la suite; la línea discontinua, los 500 ms que promete la interfaz.",
		"timeline.none":    "Esta ejecución no registró tiempos de notificación, así que no hay línea de tiempo: o ningún escenario esperó una notificación, o los pasos de este firmakit no los registran.",
		"timeline.summary": "%d notificaciones: mediana %d ms, la más lenta %d ms; %d fuera de 300–1500 ms.",
		"timeline.axis":    "ms después del 201",
		"timeline.window":  "ventana de 300–1500 ms",
		"timeline.mark":    "500 ms",

		"interface.title": "La interfaz, punto por punto",
		"interface.help":  "El documento de la interfaz se cita tal como está escrito.",
		"col.item":        "punto",
		"col.text":        "texto de la interfaz",
		"col.status":      "estado",
		"col.checkedby":   "comprobado por",

		"requirements.title": "Requisitos",
		"col.tag":            "etiqueta",
		"col.kind":           "tipo",
		"col.passed":         "aprobados",
		"col.failed":         "fallidos",
		"col.notrun":         "sin ejecutar",
		"col.inconclusive":   "no concluyentes",
		"col.scenario":       "escenario",

		"ids.title":     "Contratos y notificaciones de esta ejecución",
		"ids.help":      "El signature_id de cada contrato que creó la ejecución y el event_id de cada notificación que recibió, para que el proveedor del servicio pueda cotejarlos con sus propios registros.",
		"ids.signature": "%d signature_id",
		"ids.event":     "%d event_id",
		"ids.none":      "La ejecución no registró ningún signature_id ni event_id.",

		"status.passed":                        "aprobado",
		"status.failed":                        "fallido",
		"status.not run":                       "sin ejecutar",
		"status.inconclusive":                  "no concluyente",
		"status.incomplete":                    "incompleto",
		"status.not tested":                    "no comprobado",
		"status.passed, partly not run":        "aprobado, en parte sin ejecutar",
		"status.not selected":                  "no seleccionado",
		"status.passed, partly not selected":   "aprobado, en parte no seleccionado",
		"status.expected failure":              "fallo esperado",
		"status.passed with expected failures": "aprobado con fallos esperados",
		"status.passed with warnings":          "aprobado con advertencias",
		"status.stale":                         "obsoleta: quite la entrada",

		"explain.passed":                  "aprobado: todos los escenarios seleccionados pasaron, %d de %d",
		"explain.passed.expected":         "aprobado con %s (%s), según --expected-failures: todos los demás escenarios seleccionados pasaron, %d de %d",
		"explain.failed":                  "fallido: fallaron %d de %s (%s); cada fallo indica el paso, lo que se envió y lo que se recibió%s",
		"explain.inconclusive":            "no concluyente: %d de %s no se pudieron juzgar (%s): el propio proceso de la suite no se ejecutó a tiempo, así que una comprobación de tiempos no pudo decidir; vuelva a ejecutarlos en una máquina más tranquila o con un --concurrency menor%s",
		"explain.inconclusive.unanswered": "no concluyente: %d de %s no se pudieron juzgar (%s): sus solicitudes no obtuvieron respuesta en ningún intento (la conexión rechazada, reiniciada o cerrada sin ella), así que no hubo nada que juzgar; vuelva a ejecutarlos y, si se repite mientras el objetivo responde otras solicitudes, revise sus registros para ellas%s",
		"explain.inconclusive.time":       "no concluyente: %d de %s no se juzgaron (%s): la ejecución llegó a su --max-duration antes de que terminaran; vuelva a ejecutarlos con un --max-duration mayor, o seleccione menos con --tags%s",
		"explain.incomplete":              "incompleto: %d de %s sin ejecutar; %sdéjelos fuera con --tags '%s'",
		"explain.nothing":                 "incompleto: no se ejecutó ningún escenario",
		"explain.give":                    "dé %s, o ",
		"explain.and":                     " y ",
		"explain.also":                    "; además %s",
		"explain.n.inconclusive":          "%d no concluyentes",
		"explain.n.warnings":              "%s en %d escenarios (aprobados con advertencias)",
		"explain.passed.warnings":         "aprobado con %s: todos los escenarios seleccionados pasaron, %d de %d; %d de ellos con advertencias (%s), sobre lo que los documentos no exigen: cada advertencia nombra la práctica o la frase en que se apoya; --strict las hace fallar",
		"explain.n.notrun":                "%d sin ejecutar",
		"scenario":                        "1 escenario",
		"scenarios":                       "%d escenarios",

		"need.needs-disabled-credential": "no se dio una credencial deshabilitada (--disabled-key, --disabled-secret)",
		"need.needs-other-merchant":      "no se dio la credencial de otro comercio (--other-key, --other-secret)",
		"need.needs-sender":              "no se dio el remitente configurado del comercio (--sender-name, --sender-email)",

		"caveats.title":    "Lo que aprobar no demuestra",
		"caveat.profile":   "Comprueba el objetivo con el perfil indicado arriba. Un despliegue que firma de otra forma solo pasa con su propio perfil, y nada de esto demuestra qué perfil usa un servicio en producción.",
		"caveat.demo":      "Las notificaciones solo se comprueban en modo de demostración; no se ejercitan contratos reales, firmantes reales ni las condiciones que provocan cada estado fuera de ese modo. Los reintentos se comprueban una vez: el primer reintento de una notificación respondida con 503.",
		"caveat.reference": "Los escenarios @reference comprueban decisiones del servidor de referencia; una ejecución que los deja fuera no dice nada de los mensajes de validación.",
		"caveat.timing":    "\"Unos 500 ms\" se comprueba como de 300 a 1500 ms después del 201, tal como lo ve la suite; un receptor remoto añade su demora de red.",
		"caveat.ledger":    "El libro ve lo que llegó al receptor de la suite durante la ejecución: un duplicado enviado después de terminar no se ve.",
		"caveat.scope":     "No se cubren los límites de tasa, los límites de tamaño ni los otros servicios que lista la interfaz (payin, payout, domiciliación, catálogo de códigos).",
		"caveat.digest":    "El resumen (digest) del certificado muestra si el archivo se modificó después de escribirse; cualquiera puede calcular un SHA-256, así que no demuestra quién lo escribió.",

		"target.webhook": "endpoint de webhook del comercio",
		"hints.title":    "A qué apuntan los fallos",
		"exchange":       "lo que se envió y lo que respondió",

		"notproven.webhook.profile":   "Comprueba el endpoint con el perfil indicado arriba y con el secreto que se le dio: no dice nada de un servicio en producción que firme de otra forma.",
		"notproven.webhook.effects":   "Una respuesta se juzga solo por su estado: que el endpoint actuara sobre una notificación válida (la guardara, hiciera avanzar el contrato) y sobre nada de lo que rechazó no se ve desde fuera.",
		"notproven.webhook.duplicate": "Un duplicado se juzga por su respuesta: que el endpoint no actuara dos veces sobre el mismo event_id no se ve desde fuera.",
		"notproven.webhook.timing":    "No se mide si el endpoint compara las firmas en tiempo constante.",
		"notproven.webhook.scope":     "Cada escenario envía de una a tres notificaciones, con cuerpos de unos pocos KiB como mucho; no se ejercitan la carga, la concurrencia ni los cuerpos cercanos a un límite de tamaño del endpoint, ni los reintentos más allá del primero.",

		"hint.no-status":             "sin estado",
		"hint.unreachable":           "%d escenario(s) no obtuvieron ninguna respuesta (%s): compruebe que el endpoint está en marcha en %s y que esta máquina puede llegar a él.",
		"hint.all-refused":           "Se rechazó todo, también las notificaciones válidas (respondió %s): el endpoint verifica con otro secreto que el que se dio (--webhook-secret), o calcula la firma sobre un cuerpo vuelto a serializar en lugar de los bytes tal como los recibió (lea el cuerpo como bytes antes de interpretar el JSON, y firme \"<t>%s\" + esos bytes), o su reloj está desviado más de %d s, o admite menos de un segundo (¿una tolerancia leída en milisegundos?) y las notificaciones tardaron más en llegar.",
		"hint.all-accepted":          "Se aceptó todo, también las notificaciones falsificadas (respondió %s): el endpoint no verifica la cabecera %s en absoluto, así que cualquiera que conozca su URL puede hacerlo actuar. Verifique la firma, y la antigüedad de t, antes de actuar sobre una notificación.",
		"hint.raw-bytes":             "Se aceptaron las notificaciones escritas como las escribe el codificador de firmakit y se rechazaron las mismas escritas de otra forma (%s): el endpoint verifica un cuerpo vuelto a serializar o a formatear, no los bytes tal como los recibió.",
		"hint.rotation-first-only":   "Se rechazó una cabecera cuya firma válida venía en segundo lugar: el endpoint solo comprueba la primera entrada %s=. Durante una rotación de secretos el servicio envía una entrada por cada secreto activo; acepte la notificación cuando cualquiera de ellas coincida.",
		"hint.rotation-last-only":    "Se rechazó una cabecera cuya firma válida venía en primer lugar: el endpoint solo comprueba la última entrada %s=; acepte la notificación cuando cualquiera de ellas coincida.",
		"hint.rotation-any":          "Se rechazó una cabecera con dos entradas %s= aunque una era válida: durante una rotación de secretos el servicio envía una entrada por cada secreto activo; acepte la notificación cuando cualquiera de ellas coincida.",
		"hint.duplicate-refused":     "Se rechazó el reintento de un evento que el endpoint ya había aceptado: responda de nuevo 2xx a un event_id ya procesado (y no haga nada más), o el servicio lo reintentará hasta rendirse.",
		"hint.timestamp-unchecked":   "El endpoint comprueba la firma pero no la antigüedad de t: una notificación capturada una vez puede reenviarse en cualquier momento. Rechace un t a más de %d s del reloj del endpoint, en cualquier sentido.",
		"hint.timestamp-ahead":       "El endpoint rechaza un t antiguo pero no uno adelantado a su reloj: rechace un t a más de %d s en cualquier sentido (compare la diferencia absoluta).",
		"hint.timestamp-old":         "El endpoint rechaza un t adelantado a su reloj pero no uno antiguo: rechace un t a más de %d s en cualquier sentido.",
		"hint.timestamp-unsigned":    "Se aceptó una firma con otro t que aquel para el que se hizo: la firma que calcula el endpoint no cubre t, así que un reenvío con un t nuevo pasa su control de antigüedad. El texto firmado es \"<t>%s\" + el cuerpo tal como llega.",
		"hint.timestamp-nan":         "Se aceptó un t que no es un número: leído como número es NaN, y un control de antigüedad que compara un NaN siempre pasa. Rechace un t que no sean dígitos en base 10.",
		"hint.late":                  "El endpoint respondió después del plazo de entrega de %s: el servicio lo cuenta como un fallo y reintenta. Responda 2xx primero y haga el trabajo después.",
		"hint.unknown-contract":      "Se rechazaron con 404 todas las notificaciones válidas: el endpoint no conoce los contratos (signature_id) que firmakit inventó. Dé ids de contratos que conozca con --signature-id ID o --signature-ids FILE; su secreto no llegó a ponerse a prueba.",
		"hint.unknown-contracts":     "Se rechazaron con 404 todas las notificaciones válidas, aunque eran de contratos dados como conocidos (%s): el endpoint no los conoce, o 404 es la respuesta de otra ruta que la del endpoint.",
		"hint.clock-off":             "Se rechazaron todas las notificaciones válidas (respondió %s), pero se aceptó una cuya t estaba a %+d s (%+.0f h) del reloj de firmakit: el reloj del endpoint, o la hora con que compara t, está desviado eso (la hora Unix es UTC, nunca la hora local). Su secreto y su firma están bien.",
		"hint.clock-millis":          "Se rechazaron todas las notificaciones válidas (respondió %s), pero se aceptó una cuya t estaba en milisegundos: el endpoint compara t con su reloj en milisegundos. t son segundos enteros; divida los milisegundos del reloj entre 1000. Su secreto y su firma están bien.",
		"hint.exact-retry-refused":   "Se rechazó una entrega repetida con los mismos bytes y la misma cabecera %s, aunque se aceptó un reintento firmado de nuevo: el endpoint se protege de repeticiones por la cabecera o por los bytes. El servicio puede enviar exactamente la misma petición otra vez; descarte duplicados por event_id y responda 2xx.",
		"hint.same-state-refused":    "Se rechazó un segundo evento de un mismo contrato en un mismo estado, aunque se aceptaron eventos del contrato en estados distintos: el endpoint descarta duplicados por contrato y estado. El correo de cada firmante puede rebotar, cada uno en un evento propio; descarte duplicados solo por event_id.",
		"hint.out-of-order-refused":  "Se rechazó un evento CREATED de un contrato que ya había llegado en un estado posterior, aunque se aceptaron eventos que llegaron en orden: el endpoint rechaza los eventos que llegan fuera de orden. Un reintento tras una entrega fallida puede traer un evento anterior después de uno posterior; acepte cada uno, y ordénelos por created_at si el orden importa.",
		"hint.boundary-bytes":        "Se rechazaron cuerpos cuyos caracteres de varios bytes corta un límite de búfer (%s), y se aceptaron otros cuerpos largos: el endpoint convierte el cuerpo en texto por partes (un fragmento, un búfer de lectura) antes de verificar, y un carácter cortado en dos cambia. Verifique los bytes recibidos tal cual y luego decodifíquelos enteros.",
		"hint.retry-after-failure":   "Se rechazó el reintento válido de un evento cuya primera entrega falló (%s): el endpoint recuerda su primera respuesta a un event_id, también un rechazo o una entrega cortada. Marque un evento como atendido solo cuando se verificó y se atendió; responda a un reintento como a la primera entrega válida.",
		"hint.header-forged":         "Se aceptaron cabeceras de firma falsificadas solo en algunas disposiciones (%s): el lector de la cabecera es laxo (una %s repetida, leída una vez para su antigüedad y otra para la firma, una clave que solo empieza como %s, …). Tome exactamente una t, solo las entradas de la clave exacta de la firma, y rechace todo lo demás.",
		"hint.forgery-path":          "Se aceptaron falsificaciones solo por algunos caminos (%s), y las mismas se rechazaron por otros: el endpoint responde antes de verificar según el estado, el tipo de contrato o el tamaño del cuerpo. Verifique cada notificación, sea lo que sea que traiga y por grande que sea, antes de responder 2xx.",
		"hint.same-contract-refused": "Se rechazó un segundo evento de un mismo contrato: el endpoint descarta duplicados por signature_id. Un contrato tiene varios eventos (CREATED, luego SIGNED o BOUNCED …); descarte duplicados solo por event_id.",
		"hint.body-text":             "Se rechazaron notificaciones con un texto largo, o en varias escrituras (%s), y se aceptaron las demás: el endpoint verifica solo parte del cuerpo, limita demasiado su tamaño o cambia sus caracteres antes de verificar. Verifique cada byte recibido, tal como llega.",
		"hint.http-form":             "Se rechazaron notificaciones por cómo venían escritas sus cabeceras HTTP (%s): los nombres de cabecera no distinguen mayúsculas (%s puede llegar en minúsculas, como siempre la envía HTTP/2), y un Content-Type puede llevar parámetros como charset=utf-8.",
		"hint.real-contract":         "Se rechazaron notificaciones de un contrato real (sin la clave demo, un título sin prefijo DEMO_, sin claves opcionales que su estado no necesita) y se aceptaron las de demostración: el endpoint exige lo que solo traen las notificaciones de demostración.",
		"hint.window-future":         "Se rechazó una t válida un poco adelantada al reloj de firmakit: el endpoint rechaza toda t futura. Los relojes difieren; acepte una t hasta %d s en cualquier sentido.",
		"hint.window-narrow":         "Se rechazó una t válida dentro de la tolerancia (%s): el endpoint permite menos de %d s en cualquier sentido.",
		"hint.signature-form":        "Se aceptaron firmas que no son una entrada %s= sobre \"<t>%s\" + el cuerpo tal como llega (%s): solo las entradas v1 son firmas, y una firma debe ser el HMAC entero, comparado entero, sobre exactamente ese texto.",
		"hint.timestamp-form":        "Se aceptó una %[2]s que no son segundos Unix enteros en dígitos decimales (%[1]s): el endpoint la lee con un intérprete de coma flotante o permisivo. Rechace una t con algo más que los dígitos 0-9.",
		"hint.tolerance-wide":        "Se aceptó una t a poco más de %d s: el endpoint permite más que la tolerancia del perfil.",
		"hint.charset":               "Se rechazaron las notificaciones válidas salvo cuando todo carácter no ASCII del cuerpo venía escapado (\\u00f1): el endpoint lee el cuerpo en otra codificación que UTF-8 (Latin-1, por ejemplo) y verifica los bytes que vuelve a escribir. Verifique los bytes recibidos, antes de decodificarlos.",
		"hint.tolerance-tiny":        "Se rechazaron al azar notificaciones válidas firmadas en el momento, y toda t a unos segundos: el endpoint permite menos de un segundo en lugar de %d s (¿una tolerancia leída en milisegundos?).",
	}

	tables = map[string]map[string]string{"en": english, "es": spanish}
)

// ReportLangs are the languages report.html can be written in.
var ReportLangs = []string{"en", "es"}

// reasonsES translates the reasons for not running a scenario that the
// steps give in English; a reason not here is shown as the steps wrote it.
var reasonsES = map[string]string{
	"the template has a single signer":                                                                   "la plantilla tiene un solo firmante",
	"the template's title was not given (--template-title)":                                              "no se dio el título de la plantilla (--template-title)",
	"the receiver cannot be told to answer an error (use the in-process receiver or a firmakit receive)": "no se puede pedir al receptor que responda con un error (use el receptor de la suite o un firmakit receive)",
	"the profile has no retries (webhook.retries)":                                                       "el perfil no tiene reintentos (webhook.retries)",
	"selected, but godog did not run it":                                                                 "seleccionado, pero godog no lo ejecutó",
	"the document_url is on another host than the target's (--document-host)":                            "el document_url está en otro host que el del objetivo (--document-host)",
}

// lang returns a report language's table, English for any other.
func table(lang string) map[string]string {
	if t, ok := tables[lang]; ok {
		return t
	}
	return english
}

// tr says key in lang, formatted with args; a key in neither table comes
// out as itself, which the tests catch.
func tr(lang, key string, args ...any) string {
	s, ok := table(lang)[key]
	if !ok {
		s, ok = refusalDiag(lang, key)
	}
	if !ok {
		s, ok = english[key]
	}
	if !ok {
		return key
	}
	if len(args) == 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// refusalDiag is the diagnosis of an authentication refusal's kind
// ("diag.<kind>") in lang, or in English, from firmakit.Refusals.
func refusalDiag(lang, key string) (string, bool) {
	kind, ok := strings.CutPrefix(key, "diag.")
	if !ok {
		return "", false
	}
	for _, r := range firmakit.Refusals {
		if r.Kind != kind {
			continue
		}
		if d, ok := r.Diag[lang]; ok {
			return d, true
		}
		d, ok := r.Diag["en"]
		return d, ok
	}
	return "", false
}

// trStatus says a status (Passed, NotRun, …) in lang.
func trStatus(lang, status string) string {
	if s, ok := table(lang)["status."+status]; ok {
		return s
	}
	return status
}

// trReason says a reason for not running scenarios in lang: from their
// need tags when every scenario of the group shares one, else from the
// table of known reasons, else as the steps wrote it.
func trReason(lang string, g NotRunGroup) string {
	if lang == "en" {
		return g.Reason
	}
	if len(g.Needs) == 1 {
		if s, ok := table(lang)["need."+g.Needs[0]]; ok {
			return s
		}
	}
	if lang == "es" {
		if s, ok := reasonsES[g.Reason]; ok {
			return s
		}
	}
	return g.Reason
}

// expectedIn says "N expected failures" in lang.
func expectedIn(lang string, n int) string {
	if n == 1 {
		return tr(lang, "expected.one")
	}
	return tr(lang, "expected.n", n)
}

// warningsIn says "N warnings" in lang.
func warningsIn(lang string, n int) string {
	if n == 1 {
		return tr(lang, "warnings.one")
	}
	return tr(lang, "warnings.n", n)
}

// scenariosIn says "N scenarios" in lang.
func scenariosIn(lang string, n int) string {
	if n == 1 {
		return tr(lang, "scenario")
	}
	return tr(lang, "scenarios", n)
}

// joinAnd joins words with the language's "and".
func joinAnd(lang string, words []string) string {
	return strings.Join(words, tr(lang, "explain.and"))
}
