// Command produce sends one message with Sarama or franz-go, the way a small Go app does: the
// library's defaults apart from the connection settings a scenario needs (TLS, SASL), the library's
// logger on stderr as their docs show (sarama.Logger; kgo.BasicLogger at INFO), and the error printed
// with log.Fatal.
//
//	produce -lib sarama|franz -brokers HOST:PORT[,HOST:PORT] -topic T [-tls] [-ca FILE]
//	        [-sasl-user U -sasl-password P]   (SASL/PLAIN)
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

type settings struct {
	brokers      []string
	topic        string
	tls          *tls.Config
	saslUser     string
	saslPassword string
}

func main() {
	lib := flag.String("lib", "sarama", "sarama or franz")
	brokers := flag.String("brokers", "", "bootstrap brokers, comma-separated")
	topic := flag.String("topic", "", "the topic to produce to")
	useTLS := flag.Bool("tls", false, "connect with TLS")
	ca := flag.String("ca", "", "PEM file of the CA to trust (implies -tls)")
	user := flag.String("sasl-user", "", "SASL/PLAIN user")
	password := flag.String("sasl-password", "", "SASL/PLAIN password")
	flag.Parse()
	if *brokers == "" || *topic == "" {
		flag.Usage()
		os.Exit(2)
	}
	s := settings{brokers: strings.Split(*brokers, ","), topic: *topic, saslUser: *user, saslPassword: *password}
	if *useTLS || *ca != "" {
		s.tls = &tls.Config{}
		if *ca != "" {
			pem, err := os.ReadFile(*ca)
			if err != nil {
				log.Fatal(err)
			}
			s.tls.RootCAs = x509.NewCertPool()
			s.tls.RootCAs.AppendCertsFromPEM(pem)
		}
	}
	switch *lib {
	case "sarama":
		produceWithSarama(s)
	case "franz":
		produceWithFranz(s)
	default:
		log.Fatalf("unknown -lib %q", *lib)
	}
}

func produceWithSarama(s settings) {
	sarama.Logger = log.New(os.Stderr, "[sarama] ", log.LstdFlags)
	config := sarama.NewConfig()
	config.Producer.Return.Successes = true // a SyncProducer needs it
	if s.tls != nil {
		config.Net.TLS.Enable = true
		config.Net.TLS.Config = s.tls
	}
	if s.saslUser != "" {
		config.Net.SASL.Enable = true
		config.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		config.Net.SASL.User = s.saslUser
		config.Net.SASL.Password = s.saslPassword
	}
	producer, err := sarama.NewSyncProducer(s.brokers, config)
	if err != nil {
		log.Fatal(err)
	}
	defer producer.Close()
	partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{Topic: s.topic,
		Value: sarama.StringEncoder("hello")})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("produced to %s [%d] at offset %d", s.topic, partition, offset)
}

func produceWithFranz(s settings) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.brokers...),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, nil)),
	}
	if s.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(s.tls))
	}
	if s.saslUser != "" {
		opts = append(opts, kgo.SASL(plain.Auth{User: s.saslUser, Pass: s.saslPassword}.AsMechanism()))
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	record := &kgo.Record{Topic: s.topic, Value: []byte("hello")}
	if err := client.ProduceSync(context.Background(), record).FirstErr(); err != nil {
		log.Fatal(err)
	}
	log.Printf("produced to %s [%d] at offset %d", s.topic, record.Partition, record.Offset)
}
