package receiver

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func (p *pgStore) rules() *pgRules { return &pgRules{pool: p.pool} }

// pgRules keeps the programmed answers in the answer_rules table, where
// every replica reads them. A rule with a count keeps what is left in
// remaining (NULL: until cleared); taking one is one conditional UPDATE,
// so that two replicas never both take the last use.
type pgRules struct {
	pool *pgxpool.Pool
}

// liveRule is the condition of a rule not used up.
const liveRule = `(remaining IS NULL OR remaining > 0)`

func (b *pgRules) set(ctx context.Context, channel string, r *answerRule) error {
	// Replicas adding rules at once count and insert one at a time, so
	// that together they stay within maxRules.
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockRules); err != nil {
		return err
	}
	var n int
	var replaces bool
	if err := tx.QueryRow(ctx, `SELECT COUNT(*), COALESCE(bool_or(channel = $1 AND signature_id = $2), false)
		FROM answer_rules WHERE `+liveRule, []byte(channel), []byte(r.SignatureID)).Scan(&n, &replaces); err != nil {
		return err
	}
	if !replaces && n >= maxRules {
		return ErrTooManyRules
	}
	var remaining *int32
	if r.Remaining > 0 {
		v := int32(r.Remaining)
		remaining = &v
	}
	if _, err := tx.Exec(ctx, `INSERT INTO answer_rules (channel, signature_id, status, delay, delay_us, hang_up, reset, remaining)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (channel, signature_id) DO UPDATE SET status = excluded.status, delay = excluded.delay,
			delay_us = excluded.delay_us, hang_up = excluded.hang_up, reset = excluded.reset, remaining = excluded.remaining`,
		[]byte(channel), []byte(r.SignatureID), int32(r.Status), r.Delay, r.delay.Microseconds(), r.HangUp, r.Reset, remaining); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (b *pgRules) clear(ctx context.Context, channel, signatureID string) error {
	var err error
	if signatureID != "" {
		_, err = b.pool.Exec(ctx, `DELETE FROM answer_rules WHERE channel = $1 AND signature_id = $2`, []byte(channel), []byte(signatureID))
	} else {
		_, err = b.pool.Exec(ctx, `DELETE FROM answer_rules WHERE channel = $1`, []byte(channel))
	}
	return err
}

func (b *pgRules) take(ctx context.Context, channel, signatureID string) (Answer, bool, error) {
	keys := []string{""}
	if signatureID != "" {
		keys = []string{signatureID, ""} // the contract's own rule first
	}
	for _, sig := range keys {
		var a Answer
		var status int32
		var us int64
		var left *int32
		err := b.pool.QueryRow(ctx, `UPDATE answer_rules SET remaining = remaining - 1
			WHERE channel = $1 AND signature_id = $2 AND `+liveRule+`
			RETURNING status, delay_us, hang_up, reset, remaining`, []byte(channel), []byte(sig)).Scan(&status, &us, &a.HangUp, &a.Reset, &left)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return Answer{}, false, err
		}
		if left != nil && *left == 0 {
			// Used up: gone, unless set again meanwhile.
			_, _ = b.pool.Exec(ctx, `DELETE FROM answer_rules WHERE channel = $1 AND signature_id = $2 AND remaining = 0`, []byte(channel), []byte(sig))
		}
		a.Status, a.Delay = int(status), time.Duration(us)*time.Microsecond
		return a, true, nil
	}
	return Answer{}, false, nil
}

func (b *pgRules) list(ctx context.Context, channel string) (*answerRule, []answerRule, error) {
	rules := []answerRule{}
	err := pgDB{b.pool}.each(ctx, `SELECT signature_id, status, delay, delay_us, hang_up, reset, COALESCE(remaining, 0)
		FROM answer_rules WHERE channel = $1 AND `+liveRule+` ORDER BY signature_id`, []any{[]byte(channel)},
		func(row scanner) (bool, error) {
			var sig []byte
			var status, remaining int32
			var us int64
			var a answerRule
			err := row.Scan(&sig, &status, &a.Delay, &us, &a.HangUp, &a.Reset, &remaining)
			a.SignatureID, a.Status, a.Remaining, a.delay = string(sig), int(status), int(remaining), time.Duration(us)*time.Microsecond
			rules = append(rules, a)
			return true, err
		})
	if err != nil {
		return nil, nil, err
	}
	var all *answerRule
	if len(rules) > 0 && rules[0].SignatureID == "" {
		c := rules[0]
		all = &c
	}
	return all, rules, nil
}
