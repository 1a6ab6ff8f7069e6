package steps

import (
	"context"
	"errors"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/reports"
)

// Steps binds sentences to a target. The methods live by job: request.go
// builds and sends requests, tamper.go alters them, response.go judges
// answers, envelope.go the create-signature envelope, notification.go
// the notifications, timing.go the clock, ledger.go the whole run.
type Steps struct {
	T *Target
	// Done receives the outcome of every scenario.
	Done func(reports.ScenarioResult)
	// Lag measures how late this process runs, to tell a late
	// notification from a suite that could not look in time.
	Lag *LagMonitor
	// Ledger keeps every contract the run created, for the check at the
	// end of the run.
	Ledger *Ledger
}

// InitializeScenario registers every sentence, English and Spanish side by
// side on the same method.
func (s *Steps) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		return context.WithValue(ctx, scenarioKey{}, newScenario(s.T.Credential)), nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		sc, ok := ctx.Value(scenarioKey{}).(*scenario)
		switch {
		case !ok || err == nil:
		case !errors.Is(err, godog.ErrSkip) && sc.failedStep == "":
			sc.failedStep = st.Text
		case sc.inconclusive != "" && sc.inconclusiveStep == "":
			sc.inconclusiveStep = st.Text
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		if s.Done != nil {
			s.Done(outcome(ctx, p, err))
		}
		return ctx, nil
	})
	bind := func(en, es string, fn any) {
		sc.Step("^"+en+"$", fn)
		sc.Step("^"+es+"$", fn)
	}
	const check = `"(headers|timestamp|credentials|signature|body)"`

	// Requests (request.go) and what alters them (tamper.go).
	bind(`a signed request to the "(check|signature)" endpoint`, `una solicitud firmada al endpoint "(check|signature)"`, s.aSignedRequestToTheEndpoint)
	bind(`the body sent is the text "([\s\S]*)"`, `el cuerpo enviado es el texto "([\s\S]*)"`, s.theBodySentIsTheText)
	bind(`the body sent is ([[{].*)`, `el cuerpo enviado es ([[{].*)`, s.theBodySentIs)
	bind(`the body is laid out "(indented|escaped-unicode|keys-reversed|padded)"`, `el cuerpo se escribe "(indented|escaped-unicode|keys-reversed|padded)"`, s.theBodyIsLaidOut)
	bind(`the Content-Type is "([^"]*)"`, `el Content-Type es "([^"]*)"`, s.theContentTypeIs)
	bind(`the authentication headers are named in "(lower|upper|mixed)" case`, `las cabeceras de autenticación se nombran en caja "(lower|upper|mixed)"`, s.theAuthenticationHeadersAreNamedIn)
	bind(`the body is a JSON object of (\d+) bytes`, `el cuerpo es un objeto JSON de (\d+) bytes`, s.theBodyIsAJSONObjectOfBytes)
	bind(`the URL carries the query "([^"]*)"`, `la URL lleva la consulta "([^"]*)"`, s.theURLCarriesTheQuery)
	bind(`the "(key|timestamp|signature)" header is missing`, `falta la cabecera "(key|timestamp|signature)"`, s.theHeaderIsMissing)
	bind(`the "(key|timestamp|signature)" header is empty`, `la cabecera "(key|timestamp|signature)" está vacía`, s.theHeaderIsEmpty)
	bind(`no authentication header is sent`, `no se envía ninguna cabecera de autenticación`, s.noAuthenticationHeaderIsSent)
	bind(`the timestamp is (-?\d+) seconds off`, `la marca de tiempo está desfasada en (-?\d+) segundos`, s.theTimestampIsSecondsOff)
	bind(`the timestamp is the current time written as "([^"]*)"`, `la marca de tiempo es la hora actual escrita como "([^"]*)"`, s.theTimestampIsTheCurrentTimeWrittenAs)
	bind(`the request is signed with the "(unknown|disabled|other-merchant)" credential`, `la solicitud se firma con la credencial "(unknown|disabled|other-merchant)"`, s.theRequestIsSignedWithTheCredential)
	bind(`the request is signed with a wrong secret`, `la solicitud se firma con un secreto incorrecto`, s.theRequestIsSignedWithAWrongSecret)
	bind(`the signature covers another body`, `la firma cubre otro cuerpo`, s.theSignatureCoversAnotherBody)
	bind(`the signature covers another path`, `la firma cubre otra ruta`, s.theSignatureCoversAnotherPath)
	bind(`the signature covers another method`, `la firma cubre otro método`, s.theSignatureCoversAnotherMethod)
	bind(`the signature covers another timestamp`, `la firma cubre otra marca de tiempo`, s.theSignatureCoversAnotherTimestamp)
	bind(`the signature leaves out the query`, `la firma deja fuera la consulta`, s.theSignatureLeavesOutTheQuery)
	bind(`the signature covers the decoded query`, `la firma cubre la consulta decodificada`, s.theSignatureCoversTheDecodedQuery)
	bind(`the signature is sent in upper case`, `la firma se envía en mayúsculas`, s.theSignatureIsSentInUpperCase)
	bind(`the signature is not properly encoded`, `la firma no está bien codificada`, s.theSignatureIsNotProperlyEncoded)
	bind(`the signature is altered: "(first-byte|last-byte|truncated|extended)"`, `la firma se altera: "(first-byte|last-byte|truncated|extended)"`, s.theSignatureIsAltered)
	bind(`the method is "(GET|PUT|PATCH|DELETE)"`, `el método es "(GET|PUT|PATCH|DELETE)"`, s.theMethodIs)
	bind(`the version segment of the path is "([^"]*)"`, `el segmento de versión de la ruta es "([^"]*)"`, s.theVersionSegmentOfThePathIs)
	bind(`the merchant segment of the path is "([^"]*)"`, `el segmento de comercio de la ruta es "([^"]*)"`, s.theMerchantSegmentOfThePathIs)
	bind(`it breaks the `+check+` check`, `incumple la comprobación `+check, s.itBreaksTheCheck)
	bind(`the request is sent`, `se envía la solicitud`, s.theRequestIsSent)

	// Answers (response.go).
	bind(`the response is (\d+) "([^"]*)"`, `la respuesta es (\d+) "([^"]*)"`, s.theResponseIs)
	bind(`the response status is (\d+)`, `el estado de la respuesta es (\d+)`, s.theResponseStatusIs)
	bind(`the response is a 400 naming the problem`, `la respuesta es un 400 que nombra el problema`, s.theResponseIsA400NamingTheProblem)
	bind(`the response is a 400 naming the field "([^"]*)"`, `la respuesta es un 400 que nombra el campo "([^"]*)"`, s.theResponseIsA400NamingTheField)
	bind(`the response is a 400 whose message names "([^"]*)"`, `la respuesta es un 400 cuyo mensaje nombra "([^"]*)"`, s.theResponseIsA400WhoseMessageNames)
	bind(`the response is a refusal in the API's error shape`, `la respuesta es un rechazo con la forma de error de la API`, s.theResponseIsARefusalInTheAPIsErrorShape)

	// Create signature (request.go, tamper.go, envelope.go).
	bind(`a contract titled "([^"]*)"`, `un contrato titulado "([^"]*)"`, s.aContractTitled)
	bind(`a contract titled with the sample "([a-z]+)"`, `un contrato titulado con la muestra "([a-z]+)"`, s.aContractTitledWithTheSample)
	bind(`a "(DEMO_[A-Z]+)" contract titled with the sample "([a-z]+)"`, `un contrato "(DEMO_[A-Z]+)" titulado con la muestra "([a-z]+)"`, s.aDemoContractTitledWithTheSample)
	bind(`a contract titled "([^"]*)" has been created`, `que se ha creado un contrato titulado "([^"]*)"`, s.aContractTitledHasBeenCreated)
	bind(`a contract titled "([^"]*)" has been created and notified`, `que se ha creado y notificado un contrato titulado "([^"]*)"`, s.aContractTitledHasBeenCreatedAndNotified)
	bind(`the body field "([^"]*)" is removed`, `se quita el campo "([^"]*)" del cuerpo`, s.theBodyFieldIsRemoved)
	bind(`the body field "([^"]*)" is set to (.+)`, `el campo "([^"]*)" del cuerpo vale (.+)`, s.theBodyFieldIsSetTo)
	bind(`the signers are sent in reverse order`, `los firmantes se envían en orden inverso`, s.theSignersAreSentInReverseOrder)
	bind(`the contract is created`, `se crea el contrato`, s.theContractIsCreated)
	bind(`the response is a created signature envelope`, `la respuesta es un sobre de firma creado`, s.theResponseIsACreatedSignatureEnvelope)
	bind(`the answer and its envelope hold exactly the fields of the interface, none null`, `la respuesta y su sobre traen exactamente los campos de la interfaz, ninguno null`, s.theAnswerAndItsEnvelopeHoldExactlyTheFields)
	bind(`signature_id is a UUID`, `signature_id es un UUID`, s.signatureIDIsAUUID)
	bind(`its signature_id differs from the earlier contract's`, `su signature_id difiere del del contrato anterior`, s.itsSignatureIDDiffersFromTheEarlierContracts)
	bind(`the envelope status is "([^"]*)"`, `el estado del sobre es "([^"]*)"`, s.theEnvelopeStatusIs)
	bind(`the envelope title is the title sent`, `el título del sobre es el título enviado`, s.theEnvelopeTitleIsTheTitleSent)
	bind(`the routing is "([^"]*)"`, `el enrutamiento es "([^"]*)"`, s.theRoutingIs)
	bind(`the sender has a name and a valid e-mail`, `el remitente tiene nombre y un e-mail válido`, s.theSenderHasANameAndAValidEmail)
	bind(`there is one document per template sent, keyed from document_0`, `hay un documento por plantilla enviada, con claves desde document_0`, s.thereIsOneDocumentPerTemplateSent)
	bind(`each document carries the title of its template`, `cada documento lleva el título de su plantilla`, s.eachDocumentCarriesTheTitleOfItsTemplate)
	bind(`there is one recipient per signer, keyed from signer_1, each "([^"]*)"`, `hay un destinatario por firmante, con claves desde signer_1, cada uno "([^"]*)"`, s.thereIsOneRecipientPerSigner)
	bind(`created_at is a UTC time with milliseconds, within the clock allowance`, `created_at es una hora UTC con milisegundos, dentro del margen de reloj`, s.createdAtIsAUTCTimeWithMilliseconds)
	bind(`the response message is "([^"]*)"`, `el mensaje de la respuesta es "([^"]*)"`, s.theResponseMessageIs)
	bind(`the sender is "([^"]*)" with e-mail "([^"]*)"`, `el remitente es "([^"]*)" con e-mail "([^"]*)"`, s.theSenderIs)
	bind(`the sender is the merchant's configured name and e-mail`, `el remitente es el nombre y el e-mail configurados del comercio`, s.theSenderIsTheMerchantsConfiguredOne)
	bind(`the documents are titled "([^"]*)"`, `los documentos se titulan "([^"]*)"`, s.theDocumentsAreTitled)
	bind(`the response matches the earlier one but for signature_id, title and created_at`, `la respuesta coincide con la anterior salvo signature_id, title y created_at`, s.theResponseMatchesTheEarlierOne)

	// Notifications (notification.go).
	bind(`the webhook answers (\d+) to the contract's first notification`, `el webhook responde (\d+) a la primera notificación del contrato`, s.theWebhookAnswersToTheFirstNotification)
	bind(`exactly one "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201`, `llega exactamente una notificación "([A-Z]+)" entre (\d+) y (\d+) ms después del 201`, s.exactlyOneNotificationArrivesBetween)
	bind(`a "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201`, `llega una notificación "([A-Z]+)" entre (\d+) y (\d+) ms después del 201`, s.aNotificationArrivesBetween)
	bind(`the webhook answers (\d+) to the contract's first (\d+) notifications`, `el webhook responde (\d+) a las primeras (\d+) notificaciones del contrato`, s.theWebhookAnswersToTheFirstNotifications)
	bind(`the webhook answers (\d+) to the contract's first notification only after the profile's delivery timeout`, `el webhook responde (\d+) a la primera notificación del contrato solo pasado el plazo de entrega del perfil`, s.theWebhookAnswersOnlyAfterTheDeliveryTimeout)
	bind(`the webhook hangs up on the contract's first notification without answering`, `el webhook cierra la conexión de la primera notificación del contrato sin responder`, s.theWebhookHangsUpOnTheFirstNotification)
	bind(`it is delivered again after the profile's first retry delay, with the same event_id`, `se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id`, s.itIsDeliveredAgainWithTheSameEventID)
	bind(`it is delivered again, not sooner than the profile's delivery timeout, with the same event_id`, `se entrega de nuevo, no antes del plazo de entrega del perfil, con el mismo event_id`, s.itIsDeliveredAgainWithTheSameEventID)
	bind(`it is delivered (\d+) more times, each after the profile's next retry delay, with the same event_id`, `se entrega (\d+) veces más, cada una tras la siguiente espera de reintento del perfil, con el mismo event_id`, s.itIsDeliveredMoreTimes)
	bind(`it is not delivered again`, `no se entrega de nuevo`, s.itIsNotDeliveredAgain)
	bind(`the delivery again has a valid signature for the webhook secret`, `la nueva entrega tiene una firma válida para el secreto del webhook`, s.theDeliveryAgainHasAValidSignature)
	bind(`each delivery again has a valid signature for the webhook secret`, `cada nueva entrega tiene una firma válida para el secreto del webhook`, s.theDeliveryAgainHasAValidSignature)
	bind(`no further delivery follows the one answered 2xx`, `no sigue ninguna otra entrega a la respondida con 2xx`, s.noFurtherDeliveryFollows)
	bind(`its signature is valid for the webhook secret`, `su firma es válida para el secreto del webhook`, s.itsSignatureIsValidForTheWebhookSecret)
	bind(`its signature_id is the one created`, `su signature_id es el del contrato creado`, s.itsSignatureIDIsTheOneCreated)
	bind(`it holds exactly the fields of a "([A-Z]+)" notification, none null`, `trae exactamente los campos de una notificación "([A-Z]+)", ninguno null`, s.itHoldsExactlyTheFieldsOfANotification)
	bind(`its type is "([^"]*)"`, `su tipo es "([^"]*)"`, s.itsTypeIs)
	bind(`its merchant_id is the merchant's`, `su merchant_id es el del comercio`, s.itsMerchantIDIsTheMerchants)
	bind(`its title is the title sent`, `su título es el título enviado`, s.itsTitleIsTheTitleSent)
	bind(`it is marked as a demo`, `está marcada como demostración`, s.itIsMarkedAsADemo)
	bind(`its event_id is a non-empty string`, `su event_id es un texto no vacío`, s.itsEventIDIsANonEmptyString)
	bind(`its event_id differs from the earlier notification's`, `su event_id difiere del de la notificación anterior`, s.itsEventIDDiffersFromTheEarlierNotifications)
	bind(`its created_at is a UTC time with milliseconds, within the clock allowance`, `su created_at es una hora UTC con milisegundos, dentro del margen de reloj`, s.itsCreatedAtIsAUTCTimeWithMilliseconds)
	bind(`it was posted with a JSON content type`, `se envió con un tipo de contenido JSON`, s.itWasPostedWithAJSONContentType)
	bind(`its signature header has the profile's form, with a time within the clock allowance`, `su cabecera de firma tiene la forma del perfil, con una hora dentro del margen de reloj`, s.itsSignatureHeaderHasTheProfilesForm)
	bind(`it carries a document_url`, `trae un document_url`, s.itCarriesADocumentURL)
	bind(`it carries no document_url`, `no trae document_url`, s.itCarriesNoDocumentURL)
	bind(`it carries a non-empty reason`, `trae un reason no vacío`, s.itCarriesANonEmptyReason)
	bind(`it carries no reason`, `no trae reason`, s.itCarriesNoReason)
	bind(`the document_url opens a PDF`, `el document_url abre un PDF`, s.theDocumentURLOpensAPDF)
	bind(`no notification arrives within (\d+) ms of the 201`, `no llega ninguna notificación dentro de (\d+) ms después del 201`, s.noNotificationArrivesWithin)
	bind(`no notification carrying the title sent arrives within (\d+) ms of the answer`, `no llega ninguna notificación con el título enviado dentro de (\d+) ms después de la respuesta`, s.noNotificationCarryingTheTitleSentArrivesWithin)
}

// Timing of the notification checks.
const (
	// quietAfter is how long after the 201 no second notification of a
	// contract may arrive: "exactly one" is judged until then.
	quietAfter = 3 * time.Second
	// missingAfter is how long the suite waits before it calls a
	// notification missing rather than late.
	missingAfter = 10 * time.Second
)
