"""Real-broker labs: Apache Kafka from the Maven Central jars, optionally inside network namespaces."""
