"""Send one message with a Python Kafka client, the way a small app does.

    produce.py --lib kafka-python|aiokafka|confluent-kafka --brokers HOST:PORT --topic T
               [--ssl] [--sasl-username U --sasl-password P]   (SASL/PLAIN)

The library's defaults apart from the connection settings a scenario needs, Python's logging set up
the way most snippets do (``logging.basicConfig()``: WARNING and above, ``LEVEL:logger:message``; for
confluent-kafka, librdkafka's own log lines on stderr), and an exception left uncaught, so the
interpreter prints its traceback as users paste it. It runs on whatever interpreter runs it: the
project's own for today's kafka-python and aiokafka, the old-clients virtual environments that
``scripts/setup`` makes for confluent-kafka 1.9.2 (librdkafka 1.9) and 0.11.6 (librdkafka 0.11, the log
format before 1.0), and kafka-python 2.0.2. Only the standard library besides the client itself (it
runs on Python 3.7).
"""

import argparse
import logging
import sys


def options(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True, choices=("kafka-python", "aiokafka", "confluent-kafka"))
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--ssl", action="store_true")
    parser.add_argument("--sasl-username")
    parser.add_argument("--sasl-password")
    return parser.parse_args(argv)


def security_protocol(args):
    if args.sasl_username:
        return "SASL_SSL" if args.ssl else "SASL_PLAINTEXT"
    return "SSL" if args.ssl else "PLAINTEXT"


def with_kafka_python(args):
    from kafka import KafkaProducer

    settings = dict(bootstrap_servers=args.brokers.split(","), security_protocol=security_protocol(args))
    if args.sasl_username:
        settings.update(sasl_mechanism="PLAIN", sasl_plain_username=args.sasl_username,
                        sasl_plain_password=args.sasl_password)
    producer = KafkaProducer(**settings)
    producer.send(args.topic, b"hello").get(timeout=15)
    producer.close()
    print("produced to", args.topic)


def with_aiokafka(args):
    import asyncio

    from aiokafka import AIOKafkaProducer

    async def produce():
        settings = dict(bootstrap_servers=args.brokers, security_protocol=security_protocol(args))
        if args.ssl:
            from aiokafka.helpers import create_ssl_context
            settings["ssl_context"] = create_ssl_context()
        if args.sasl_username:
            settings.update(sasl_mechanism="PLAIN", sasl_plain_username=args.sasl_username,
                            sasl_plain_password=args.sasl_password)
        producer = AIOKafkaProducer(**settings)
        await producer.start()
        try:
            await producer.send_and_wait(args.topic, b"hello")
        finally:
            await producer.stop()
        print("produced to", args.topic)

    asyncio.run(produce())


def with_confluent_kafka(args):
    from confluent_kafka import Producer

    settings = {"bootstrap.servers": args.brokers, "security.protocol": security_protocol(args)}
    if args.sasl_username:
        settings.update({"sasl.mechanisms": "PLAIN", "sasl.username": args.sasl_username,
                         "sasl.password": args.sasl_password})
    producer = Producer(settings)
    errors = []
    producer.produce(args.topic, b"hello", callback=lambda err, msg: errors.append(err) if err else None)
    left = producer.flush(15)
    if errors:
        raise SystemExit("delivery failed: {}".format(errors[0]))
    if left:
        raise SystemExit("{} message(s) still in queue after 15 s".format(left))
    print("produced to", args.topic)


def main(argv):
    logging.basicConfig()
    args = options(argv)
    {"kafka-python": with_kafka_python, "aiokafka": with_aiokafka,
     "confluent-kafka": with_confluent_kafka}[args.lib](args)


if __name__ == "__main__":
    main(sys.argv[1:])
