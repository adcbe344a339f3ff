// Produces one message with kafkajs, the way a small app does: the library's defaults (retries,
// timeouts, its JSON console logger at INFO), only the connection settings a scenario needs, and the
// error printed with console.error before exiting 1.
//
//   node produce.js --brokers HOST:PORT[,HOST:PORT] --topic T [--ssl] [--ca FILE]
//                   [--sasl-mechanism plain --sasl-username U --sasl-password P]
'use strict'

const fs = require('fs')
const { Kafka } = require('kafkajs')

function options(argv) {
  const parsed = {}
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '')
    if (name === 'ssl') parsed.ssl = true
    else parsed[name] = argv[++i]
  }
  if (!parsed.brokers || !parsed.topic) {
    console.error('usage: node produce.js --brokers HOST:PORT --topic T [--ssl] [--ca FILE] [--sasl-mechanism M ' +
                  '--sasl-username U --sasl-password P]')
    process.exit(2)
  }
  return parsed
}

async function main() {
  const opts = options(process.argv.slice(2))
  const config = { clientId: 'app', brokers: opts.brokers.split(',') }
  if (opts.ssl || opts.ca) config.ssl = opts.ca ? { ca: [fs.readFileSync(opts.ca, 'utf-8')] } : true
  if (opts['sasl-mechanism']) {
    config.sasl = { mechanism: opts['sasl-mechanism'], username: opts['sasl-username'],
                    password: opts['sasl-password'] }
  }
  const producer = new Kafka(config).producer()
  await producer.connect()
  await producer.send({ topic: opts.topic, messages: [{ value: 'hello' }] })
  await producer.disconnect()
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
