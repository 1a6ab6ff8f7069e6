package reference

import (
	"errors"
	"fmt"
	"strings"

	"github.com/firmakit/firmakit"
)

// ErrNoDefaultMerchant is returned by DefaultMerchant when a configuration
// has several merchants and none is the demo merchant.
var ErrNoDefaultMerchant = errors.New("no default merchant")

// DefaultMerchant returns the merchant that a setting naming no merchant
// applies to (a bare 'firmakit serve --webhook-url URL', the demo buttons of
// 'firmakit up'): the only merchant of the configuration, else the demo
// merchant. With several merchants and no demo merchant it returns an
// error wrapping ErrNoDefaultMerchant that lists them.
func (c *Config) DefaultMerchant() (*Merchant, error) {
	if len(c.Merchants) == 1 {
		return c.Merchants[0], nil
	}
	if m := c.Merchant(firmakit.Demo().MerchantID); m != nil {
		return m, nil
	}
	if len(c.Merchants) == 0 {
		return nil, fmt.Errorf("%w: the configuration has no merchant", ErrNoDefaultMerchant)
	}
	ids := make([]string, 0, len(c.Merchants))
	for _, m := range c.Merchants {
		ids = append(ids, m.ID)
	}
	return nil, fmt.Errorf("%w: the configuration has %d merchants (%s) and none is %s",
		ErrNoDefaultMerchant, len(ids), strings.Join(ids, ", "), firmakit.Demo().MerchantID)
}
