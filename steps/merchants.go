package steps

import (
	"context"
	"fmt"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Two merchants. A merchant's notifications go to its own
// signature_webhook (defaults §B paragraph 1), signed with its own webhook
// secrets; nothing of one merchant reaches another's. The suite listens
// on a receiver channel per merchant (/hooks/<merchant id>).

// otherMerchantGiven says why the scenarios of two merchants cannot run,
// "" when they can.
func (s *Steps) otherMerchantGiven() string {
	switch {
	case !s.T.Other.Given():
		return "no other merchant's credential given (--other-key, --other-secret)"
	case s.T.OtherMerchantID == "" || len(s.T.OtherWebhookSecrets) == 0:
		return "no other merchant's id and webhook secret given (--other-merchant, --other-webhook-secret)"
	}
	return ""
}

// aContractOfTheOtherMerchantTitled is a create request of the other
// merchant: its key, on its path, with the same template.
func (s *Steps) aContractOfTheOtherMerchantTitled(ctx context.Context, title string) error {
	if why := s.otherMerchantGiven(); why != "" {
		return s.notRun(ctx, why)
	}
	if err := s.aContractTitled(ctx, title); err != nil {
		return err
	}
	sc := get(ctx)
	other := s.T.OtherMerchantID
	sc.cred, sc.merchant = s.T.Other, &other
	return nil
}

// itArrivedAtTheOtherMerchantsWebhookOnly judges where the other
// merchant's notification went: to the receiver's channel of that
// merchant, signed with its webhook secret; and that none of the
// contract's notifications reached this merchant's channel.
func (s *Steps) itArrivedAtTheOtherMerchantsWebhookOnly(ctx context.Context) error {
	sc := get(ctx)
	if sc.note == nil {
		return fmt.Errorf("no notification was received")
	}
	other := s.T.OtherMerchantID
	if sc.note.Channel != other {
		return engine.Breaks(refWebhookSig, "expected the notification of merchant %s's contract %s at its own signature_webhook (the receiver's channel %q), got it at %q",
			other, sc.created, other, clip(sc.note.Channel, 100))
	}
	h := sc.note.Header.Get(s.T.Profile.Webhook.SignatureHeader)
	if err := s.T.Profile.VerifyWebhook(h, sc.note.Body, s.T.OtherWebhookSecrets, sc.note.ReceivedAt); err != nil {
		return engine.BreaksAs(reports.FailureWebhookSignature, refWebhookSig, "expected merchant %s's notification signed with its own webhook secret, got %q: %v", other, clip(h, 300), err)
	}
	mine, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Channel: s.T.MerchantID, Limit: 1})
	if err != nil {
		return err
	}
	if len(mine) > 0 {
		return engine.Breaks(refWebhookSig, "expected nothing of merchant %s's contract %s at merchant %s's signature_webhook, got a notification there: %s",
			other, sc.created, s.T.MerchantID, clip(string(mine[0].Body), 300))
	}
	return nil
}

func (s *Steps) bindMerchantSentences(sc registrar) {
	sc.Step(engine.Compiled(`^a contract of the other merchant titled "([^"]*)"$`), s.aContractOfTheOtherMerchantTitled)
	sc.Step(engine.Compiled(`^un contrato del otro comercio titulado "([^"]*)"$`), s.aContractOfTheOtherMerchantTitled)
	sc.Step(engine.Compiled(`^it arrived at the other merchant's webhook, signed with that merchant's webhook secret, and none at this merchant's$`), s.itArrivedAtTheOtherMerchantsWebhookOnly)
	sc.Step(engine.Compiled(`^llegó al webhook del otro comercio, firmada con el secreto de webhook de ese comercio, y ninguna al de este comercio$`), s.itArrivedAtTheOtherMerchantsWebhookOnly)
}
