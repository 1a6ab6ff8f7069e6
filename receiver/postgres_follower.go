package receiver

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

func (p *pgStore) raiseLast(id int64) {
	for {
		cur := p.lastID.Load()
		if id <= cur || p.lastID.CompareAndSwap(cur, id) {
			return
		}
	}
}

func (p *pgStore) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// follow publishes every committed record to the hub, in id order, each
// once, whichever replica committed it.
func (p *pgStore) follow() {
	defer p.bg.Done()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.wake:
		case <-retry.C:
			// A read that failed is tried again.
		}
		if err := p.catchUp(); err != nil && p.ctx.Err() == nil {
			p.resync.Store(true)
		}
	}
}

// catchUp publishes this replica's committed batches and, when another
// replica notified newer ids (or after a reconnection), the rows after the
// last one published, read from the table.
func (p *pgStore) catchUp() error {
	p.mu.Lock()
	own := p.own
	p.own = nil
	p.mu.Unlock()
	for i, batch := range own {
		first, lastOf := batch[0].ID, batch[len(batch)-1].ID
		if lastOf <= p.seen.Load() {
			continue
		}
		// Ids below this batch's were committed before it: any not yet
		// published are another replica's, read from the table.
		if err := p.readUpTo(first); err != nil {
			p.mu.Lock()
			p.own = append(own[i:], p.own...)
			p.mu.Unlock()
			return err
		}
		var out []*Record
		for _, r := range batch {
			if r.ID > p.seen.Load() {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			p.publish(out)
			p.seen.Store(lastOf)
		}
	}
	if p.resync.Swap(false) || p.newest.Load() > p.seen.Load() {
		if err := p.readUpTo(0); err != nil {
			return err
		}
	}
	return nil
}

// readUpTo publishes the committed rows after the last one published and
// below before (0: all of them), a page at a time.
func (p *pgStore) readUpTo(before int64) error {
	for {
		after := p.seen.Load()
		if before > 0 && after >= before-1 {
			return nil
		}
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		recs, _, err := p.list(ctx, Filter{AfterID: after, BeforeID: before, Limit: 500}, listBytes)
		cancel()
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			if before > 0 {
				p.seen.Store(before - 1)
			}
			return nil
		}
		for _, r := range recs {
			r.wire = &lazyJSON{}
		}
		p.publish(recs)
		last := recs[len(recs)-1].ID
		p.seen.Store(last)
		p.raiseLast(last)
	}
}

func (p *pgStore) publish(recs []*Record) {
	if p.published != nil {
		p.published(recs)
	}
}

// listenLoop keeps a connection that LISTENs for other replicas' batches,
// reconnecting when it drops; the database's state shows in health.
func (p *pgStore) listenLoop() {
	defer p.bg.Done()
	wait := 100 * time.Millisecond
	for p.ctx.Err() == nil {
		err := p.listenOnce()
		if p.ctx.Err() != nil {
			return
		}
		p.unhealthy(err)
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// listenOnce connects, listens, and waits for notifications until the
// connection fails.
func (p *pgStore) listenOnce() error {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(ctx, p.listen)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(p.ctx, `LISTEN `+notifyChannel); err != nil {
		return err
	}
	// Whatever was committed while nobody listened is read from the table.
	p.resync.Store(true)
	p.poke()
	p.healthyAgain()
	for {
		n, err := conn.WaitForNotification(p.ctx)
		if err != nil {
			return err
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil {
			for cur := p.newest.Load(); id > cur && !p.newest.CompareAndSwap(cur, id); cur = p.newest.Load() {
			}
		}
		p.poke()
	}
}
