"""lua-resty-kafka (OpenResty, Kong, APISIX): its connections are nginx's cosockets, so its errors are OpenResty's,
and the brokers the metadata gave it are a Lua table its users print.

- ``ngx.socket.tcp():connect(host, port)`` resolves a name only through nginx's own ``resolver`` directive, never
  /etc/hosts or the system resolver: with none configured it returns ``no resolver defined to resolve "<host>"``
  (ngx_http_lua_socket_tcp.c; nginx's core logs ``no resolver defined to resolve <host>``). The name does not resolve
  for this client, whatever the machine's resolver would say;
- client.lua's metadata_decode keeps the brokers as ``brokers[nodeid] = {host = ..., port = ...}``: printed with
  cjson (``brokers: [null,{"host":"b2.example","port":9092}]``) a table of node ids 1..n becomes an array whose index
  plus one is the node id; a table cjson cannot make an array becomes an object keyed by node id (``{"0":{...}}``).
  A name that fails after such a dump is an advertised broker's;
- client.lua's _fetch_metadata asks each address of the broker_list it was given (the bootstrap list) in turn, logs
  each one's failure at INFO (``broker fetch metadata failed, err:...``, hidden at nginx's usual ``error`` level) and
  then, at ERR, only ``all brokers failed in fetch topic metadata``: no bootstrap address answered, and the line does
  not say why (most often a name with no ``resolver`` directive, else refused, timed out, a listener's security).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import gave_up
from kdiag.explain.sightings import (BOOTSTRAP, HOST, OTHER, RESOLVE, UNKNOWN, Fact, Item, Pattern, ScanState, Sighting,
                                     registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("openresty.no_resolver", OTHER, "no resolver defined to resolve",
         rf'no resolver defined to resolve "?(?P<host>{HOST})"?',
         'send err:no resolver defined to resolve "kafka-1.example"')
def _no_resolver(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host = m.group("host")
    role = BOOTSTRAP if "broker fetch metadata failed" in m.string else UNKNOWN  # client.lua: the broker_list given
    yield Sighting(RESOLVE, OTHER, host, scan.port_of(host), role=role, status="error",
                   detail="no resolver defined to resolve: nginx resolves names only through its resolver directive")


@pattern("lua_resty_kafka.brokers", OTHER, '"host":', r'brokers:\s*(?P<table>[\[{].{0,4000})',
         'brokers: [null,{"host":"kafka-2.example","port":9092}];')
def _brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    try:
        table, _ = json.JSONDecoder().raw_decode(m.group("table"))
    except ValueError:
        return
    entries = enumerate(table, start=1) if isinstance(table, list) else \
        ((key, value) for key, value in table.items() if key.isdigit()) if isinstance(table, dict) else ()
    for node_id, entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("host"), str) or not entry["host"]:
            continue
        port = entry.get("port")
        if not isinstance(port, int) or not 0 < port < 65536:
            continue
        yield Fact("broker", entry["host"][:255], port, int(node_id))


# client.lua's _fetch_metadata once every bootstrap address failed (each failure only at INFO): the client gave up.
pattern("lua_resty_kafka.all_brokers_failed", OTHER, "all brokers failed in fetch topic metadata",
        r"all brokers failed in fetch topic metadata",
        "[error] 7#0: *1 [lua] client.lua:150: _fetch_metadata(): all brokers failed in fetch topic metadata, client: "
        "127.0.0.1, server: localhost")(gave_up("all brokers failed in fetch topic metadata"))
