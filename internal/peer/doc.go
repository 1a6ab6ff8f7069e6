// Package peer bounds what firmakit's HTTP clients read from the peers
// they call: the target of certify, the endpoint of certify-webhook, the
// endpoints the reference server delivers notifications to, and where
// the receiver forwards and replays. A peer may be hostile or broken, and
// whatever it answers must cost firmakit a bounded amount: the answer's
// headers (MaxHeaderBytes, here), the bytes of its body kept (each
// caller reads through an io.LimitReader of its own) and the time it
// takes (each client's Timeout, or its request's context).
package peer
