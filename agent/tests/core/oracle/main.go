// SPDX-License-Identifier: Apache-2.0

// Command l2oracle is the independent reference for the Layer 2 election tests: it formats
// addresses with Go's own net.IP.String() and orders nodes by crypto/sha256, the two things the
// C++ election must reproduce byte for byte.
//
// Input, one case per line on stdin: 32 hex digits (the 16 bytes of an IPv6 or IPv4-mapped
// address) followed by node names, separated by spaces. Output, one line per case: the address
// as Go prints it, then the node names in ascending order of sha256(node + "#" + address).
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
)

func order(ip string, nodes []string) []string {
	type ranked struct {
		node   string
		digest [32]byte
	}
	rs := make([]ranked, len(nodes))
	for i, n := range nodes {
		rs[i] = ranked{n, sha256.Sum256([]byte(n + "#" + ip))}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		return bytes.Compare(rs[i].digest[:], rs[j].digest[:]) < 0
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.node
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for line := 1; in.Scan(); line++ {
		fields := strings.Fields(in.Text())
		if len(fields) == 0 {
			continue
		}
		raw, err := hex.DecodeString(fields[0])
		if err != nil || len(raw) != net.IPv6len {
			fmt.Fprintf(os.Stderr, "line %d: want 32 hex digits, got %q\n", line, fields[0])
			os.Exit(2)
		}
		ip := net.IP(raw).String()
		fmt.Fprintln(out, strings.Join(append([]string{ip}, order(ip, fields[1:])...), " "))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
