// SPDX-License-Identifier: Apache-2.0

// gopeer is one hashicorp/memberlist member driven over stdin/stdout, speaking the same line
// protocol as ingot-memberlist-peer, so tests can mix Go and Ingot members.
// Prints "port N" once bound. Commands: members | join HOST:PORT | leave | quit.
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/ioutil"
	"log"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/memberlist"
)

type events struct{}

func (events) NotifyJoin(n *memberlist.Node)   { fmt.Printf("event join %s\n", n.Name) }
func (events) NotifyLeave(n *memberlist.Node)  { fmt.Printf("event leave %s\n", n.Name) }
func (events) NotifyUpdate(n *memberlist.Node) { fmt.Printf("event update %s\n", n.Name) }

func main() {
	name := flag.String("name", "", "member name")
	bind := flag.String("bind", "127.0.0.1", "bind address")
	port := flag.Int("port", 0, "bind port (0: any)")
	join := flag.String("join", "", "seed host:port")
	secretFile := flag.String("secret-file", "", "MetalLB-style secret file")
	timing := flag.String("timing", "lan", "lan or local")
	flag.Parse()

	conf := memberlist.DefaultLANConfig()
	if *timing == "local" {
		conf = memberlist.DefaultLocalConfig()
	}
	conf.Name = *name
	conf.BindAddr = *bind
	conf.BindPort = *port
	conf.AdvertisePort = *port
	conf.Events = events{}
	conf.LogOutput = io.Discard
	if os.Getenv("GOPEER_DEBUG") != "" {
		conf.LogOutput = os.Stderr
	}
	if *secretFile != "" {
		secret, err := ioutil.ReadFile(*secretFile)
		if err != nil {
			log.Fatal(err)
		}
		// MetalLB's derivation: Sum appends the digest of nothing to the secret.
		conf.SecretKey = sha256.New().Sum(secret)[:32]
	}
	list, err := memberlist.Create(conf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("port %d\n", list.LocalNode().Port)
	if *join != "" {
		if _, err := list.Join([]string{*join}); err != nil {
			fmt.Printf("joinerror %v\n", err)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd := in.Text()
		switch {
		case cmd == "members":
			var names []string
			for _, m := range list.Members() {
				names = append(names, m.Name)
			}
			sort.Strings(names)
			fmt.Printf("members %s\n", strings.Join(names, " "))
		case strings.HasPrefix(cmd, "join "):
			if _, err := list.Join([]string{strings.TrimPrefix(cmd, "join ")}); err != nil {
				fmt.Printf("joinerror %v\n", err)
			}
		case cmd == "leave":
			list.Leave(time.Second)
			fmt.Println("left")
		case cmd == "quit":
			list.Shutdown()
			return
		}
	}
	list.Shutdown()
}
