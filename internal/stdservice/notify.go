package stdservice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// demoPrefixes maps the reserved title prefixes to the state they trigger.
var demoPrefixes = []struct{ prefix, state string }{
	{"DEMO_CREATED", "CREATED"},
	{"DEMO_BOUNCED", "BOUNCED"},
	{"DEMO_REJECTED", "REJECTED"},
	{"DEMO_CANCELED", "CANCELED"},
	{"DEMO_SIGNED", "SIGNED"},
}

// demoReasons are the representative reasons of the states that carry one.
var demoReasons = map[string]string{
	"BOUNCED":  "The e-mail to a signer bounced (demo)",
	"REJECTED": "A signer rejected the contract (demo)",
	"CANCELED": "The sender canceled the contract (demo)",
}

func demoState(title string) (string, bool) {
	for _, p := range demoPrefixes {
		if strings.HasPrefix(title, p.prefix) {
			return p.state, true
		}
	}
	return "", false
}

// Notification is the webhook payload of defaults.md B. Keys without a value
// for the state are left out.
type Notification struct {
	EventID     string `json:"event_id"`
	Type        string `json:"type"`
	MerchantID  string `json:"merchant_id"`
	SignatureID string `json:"signature_id"`
	Title       string `json:"title"`
	Status      string `json:"status"`
	DocumentURL string `json:"document_url,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Demo        bool   `json:"demo"`
	CreatedAt   string `json:"created_at"`
}

// Delivery is the record of one notification's delivery.
type Delivery struct {
	Notification Notification
	URL          string
	Attempts     int
	// Outcome is "pending", "delivered", "failed" or "canceled".
	Outcome   string
	LastError string
}

// Deliveries returns a copy of the delivery records, oldest first.
func (s *Service) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		out[i] = *d
	}
	return out
}

func (s *Service) update(d *Delivery, f func(*Delivery)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(d)
}

// scheduleDemo sends exactly one notification for env after the demo delay.
func (s *Service) scheduleDemo(merchantID string, env *Envelope, state, base string) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		timer := time.NewTimer(s.cfg.DemoDelay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-s.ctx.Done():
			return
		}
		n := Notification{
			EventID:     newUUID(),
			Type:        "signature.status",
			MerchantID:  merchantID,
			SignatureID: env.SignatureID,
			Title:       env.Title,
			Status:      state,
			Reason:      demoReasons[state],
			Demo:        true,
			CreatedAt:   s.timestamp(),
		}
		if state == "SIGNED" {
			n.DocumentURL = base + "/demo/documents/" + env.SignatureID + ".pdf"
			s.mu.Lock()
			s.documents[env.SignatureID] = env.Title
			s.mu.Unlock()
		}
		s.deliver(n)
	}()
}

// signatureHeader is "t=<t>,v1=<hex>" with one v1 entry per webhook secret.
func (s *Service) signatureHeader(t int64, body []byte) string {
	var b strings.Builder
	b.WriteString("t=" + strconv.FormatInt(t, 10))
	for _, secret := range s.cfg.WebhookSecrets {
		b.WriteString(",v1=" + WebhookSignature(secret, t, body))
	}
	return b.String()
}

// deliver posts n until an attempt gets a 2xx, waiting RetryWaits between
// attempts; the body, and so the event_id, is the same on every attempt.
func (s *Service) deliver(n Notification) {
	body, _ := json.Marshal(n)
	d := &Delivery{Notification: n, Outcome: "pending"}
	if s.cfg.WebhookURL != nil {
		d.URL = s.cfg.WebhookURL(n.MerchantID)
	}
	s.mu.Lock()
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
	if d.URL == "" {
		s.update(d, func(d *Delivery) { d.Outcome, d.LastError = "failed", "no signature_webhook configured" })
		return
	}
	for attempt := 0; ; attempt++ {
		err := s.post(d.URL, body)
		s.update(d, func(d *Delivery) {
			d.Attempts++
			if err == nil {
				d.Outcome, d.LastError = "delivered", ""
			} else {
				d.LastError = err.Error()
			}
		})
		if err == nil {
			return
		}
		if s.ctx.Err() != nil {
			s.update(d, func(d *Delivery) { d.Outcome = "canceled" })
			return
		}
		if attempt >= len(s.cfg.RetryWaits) {
			s.update(d, func(d *Delivery) { d.Outcome = "failed" })
			return
		}
		timer := time.NewTimer(s.cfg.RetryWaits[attempt])
		select {
		case <-timer.C:
		case <-s.ctx.Done():
			timer.Stop()
			s.update(d, func(d *Delivery) { d.Outcome = "canceled" })
			return
		}
	}
}

// post makes one delivery attempt: success is a 2xx within DeliveryTimeout.
func (s *Service) post(url string, body []byte) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSignature, s.signatureHeader(s.cfg.Now().Unix(), body))
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

func (s *Service) handleDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".pdf")
	s.mu.Lock()
	title, known := s.documents[id]
	s.mu.Unlock()
	if !ok || !known {
		writeError(w, http.StatusNotFound, "document not found")
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="`+id+`.pdf"`)
	http.ServeContent(w, r, id+".pdf", time.Time{}, bytes.NewReader(demoPDF(id, title)))
}

// pdfText keeps the printable ASCII of s and escapes it for a PDF string.
func pdfText(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '(' || c == ')' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteRune(c)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// demoPDF is a one-page PDF that stands for the signed contract.
func demoPDF(id, title string) []byte {
	content := fmt.Sprintf("BT /F1 16 Tf 72 770 Td (Signed contract - demo) Tj 0 -28 Td /F1 11 Tf (%s) Tj 0 -18 Td (Signature %s) Tj ET",
		pdfText(title), pdfText(id))
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}
