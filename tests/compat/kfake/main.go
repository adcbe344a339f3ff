// Command kfake runs franz-go's kfake, an independent implementation of the Kafka protocol, for kdiag's
// compatibility matrix (tests/compat): one or more brokers on loopback, optionally capped at the protocol
// versions of an older Kafka release, with SASL users, and with or without topic auto-creation.
//
//	kfake -caps 2.0 -brokers 1 -sasl -auto-create
//
// It prints one line, "ready HOST:PORT[,HOST:PORT...]", once the brokers listen, and runs until its
// standard input closes or it gets SIGTERM/SIGINT.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"
)

// The users the matrix logs in as; the wrong-password cases send anything else.
const (
	user     = "alice"
	password = "alice-secret"
)

var caps = map[string]func() *kversion.Versions{
	"0.10": kversion.V0_10_0,
	"0.11": kversion.V0_11_0,
	"1.0":  kversion.V1_0_0,
	"2.0":  kversion.V2_0_0,
}

func main() {
	capped := flag.String("caps", "", "advertise at most the protocol versions of this Kafka release (0.10, 0.11, 1.0, 2.0)")
	brokers := flag.Int("brokers", 1, "number of brokers")
	sasl := flag.Bool("sasl", false, "require SASL: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 users "+user)
	autoCreate := flag.Bool("auto-create", false, "create a topic on the first Metadata request that names it")
	flag.Parse()

	opts := []kfake.Opt{kfake.NumBrokers(*brokers), kfake.SeedTopics(1, "kdiag-compat")}
	if *capped != "" {
		versions, ok := caps[*capped]
		if !ok {
			fmt.Fprintf(os.Stderr, "kfake: unknown -caps %q\n", *capped)
			os.Exit(2)
		}
		opts = append(opts, kfake.MaxVersions(versions()))
	}
	if *sasl {
		opts = append(opts, kfake.EnableSASL(),
			kfake.Superuser("PLAIN", user, password),
			kfake.Superuser("SCRAM-SHA-256", user, password),
			kfake.Superuser("SCRAM-SHA-512", user, password))
	}
	if *autoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfake: %v\n", err)
		os.Exit(1)
	}
	defer cluster.Close()
	fmt.Printf("ready %s\n", strings.Join(cluster.ListenAddrs(), ","))

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(closed)
	}()
	select {
	case <-stop:
	case <-closed:
	}
}
