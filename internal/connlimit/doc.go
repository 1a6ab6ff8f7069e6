// Package connlimit caps the connections an HTTP server holds at once.
//
// A plain limit (golang.org/x/net/netutil.LimitListener) makes a new
// connection wait while the cap is reached, so a flood of connections that
// send nothing keeps out a client with a request to make until they time
// out. This listener instead makes room by closing, in this order: the
// keep-alive connection idle the longest between requests; the oldest
// connection that has not sent a whole request header within SlowAfter;
// the slowest request body that has been coming for SlowAfter (the fewest
// bytes read per second; with WatchBodies around the handler and
// ConnContext set on the server). So neither connections that send nothing nor ones that
// trickle their request keep a request out, and every connection gets
// SlowAfter to send its request. Requests being answered and hijacked
// connections (websockets) are never closed by it; when every connection
// is busy so, Accept waits for one to end.
package connlimit
