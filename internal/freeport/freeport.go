// Package freeport finds a loopback port for a process to listen on,
// where the process is given an address rather than a listener (a
// firmakit command's --listen, PostgreSQL's -p).
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
)

// Addr is a loopback address nothing listens on, for a process started
// with it to listen there. The port is taken below the kernel's
// ephemeral range when it leaves room (ephemeralLow): a port of that
// range, closed here, may be the local port of an outgoing connection
// by the time the process listens, as tests beside this one open
// hundreds on loopback.
func Addr() (string, error) {
	low := ephemeralLow()
	for try := 0; try < 50 && low > 11000; try++ {
		port := 10000 + rand.N(low-10000)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // in use
		}
		ln.Close()
		return ln.Addr().String(), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// ephemeralLow is the first port of the range the kernel picks outgoing
// connections' local ports from (Linux's ip_local_port_range); 0 when it
// cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	var low, high int
	if _, err := fmt.Sscan(string(b), &low, &high); err != nil {
		return 0
	}
	return low
}

// Port is Addr's port.
func Port() (int, error) {
	addr, err := Addr()
	if err != nil {
		return 0, err
	}
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return 0, err
	}
	return a.Port, nil
}
