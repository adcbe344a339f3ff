// Command produce sends one message with Sarama, franz-go or segmentio/kafka-go, the way a small Go
// app does: the library's defaults apart from the connection settings a scenario needs (TLS, SASL), the
// library's logger on stderr as their docs show (sarama.Logger; kgo.BasicLogger at INFO; kafka.Writer's
// ErrorLogger), and the error printed with log.Fatal.
//
//	produce -lib sarama|franz|segmentio -brokers HOST:PORT[,HOST:PORT] -topic T [-tls] [-ca FILE]
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
	"github.com/segmentio/kafka-go"
	segmentioplain "github.com/segmentio/kafka-go/sasl/plain"
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
	lib := flag.String("lib", "sarama", "sarama, franz or segmentio")
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
	case "segmentio":
		produceWithSegmentio(s)
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

func produceWithSegmentio(s settings) {
	transport := &kafka.Transport{TLS: s.tls}
	if s.saslUser != "" {
		transport.SASL = segmentioplain.Mechanism{Username: s.saslUser, Password: s.saslPassword}
	}
	writer := &kafka.Writer{
		Addr:        kafka.TCP(s.brokers...),
		Topic:       s.topic,
		Transport:   transport,
		ErrorLogger: log.New(os.Stderr, "kafka-go: ", log.LstdFlags),
	}
	defer writer.Close()
	if err := writer.WriteMessages(context.Background(), kafka.Message{Value: []byte("hello")}); err != nil {
		log.Fatal("failed to write messages: ", err)
	}
	log.Printf("produced to %s", s.topic)
}
