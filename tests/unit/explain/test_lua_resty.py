"""lua-resty-kafka (OpenResty, Kong, APISIX) in its own words: nginx's cosocket resolves a name only through the
``resolver`` directive, and says ``no resolver defined to resolve "<host>"`` without one (ngx_http_lua_socket_tcp.c);
client.lua keeps the brokers the metadata gave it as ``brokers[nodeid] = {host = ..., port = ...}``, which its users
print with cjson. A name that fails after such a dump is an advertised broker's."""

from __future__ import annotations

from kdiag.explain.patterns import Scanner
from tests.unit.explain.helpers import explained, ids, only


def test_the_printed_brokers_are_the_metadatas_node_ids():
    scanner = Scanner()
    facts = scanner.scan(1, '    brokers: [null,{"host":"kafka-2.example","port":9094}];')
    assert [(f.host, f.port, f.node_id) for f in facts] == [("kafka-2.example", 9094, 2)]
    keyed = Scanner().scan(1, 'brokers: {"0":{"host":"kafka-0.example","port":9092}}; partitions: {"num":1}')
    assert [(f.host, f.node_id) for f in keyed] == [("kafka-0.example", 0)]


def test_a_name_no_resolver_resolves_after_the_brokers_dump_is_the_advertised_brokers():
    paste = ('[fetch_metadata]\n    brokers: [null,{"host":"kafka-2.corp.example","port":9094}];\n'
             '    partitions: {"errcode":0,"num":1,"0":{"id":0,"errcode":0,"replicas":[2],"isr":[2],"leader":2}};\n'
             '    [send message]\n    send err:no resolver defined to resolve "kafka-2.corp.example"\n')
    found = only(explained(paste), "ADVERTISED_UNRESOLVABLE")
    assert found.severity == "error" and found.evidence["node_id"] == 2 and found.evidence["port"] == 9094
    assert "no resolver defined" in found.explanation


def test_localhost_advertised_and_not_resolvable_by_nginx_is_the_name_not_loopback():
    paste = ('brokers: [{"host":"localhost","port":9092}]; partitions: {"0":{"id":0,"errcode":0,"leader":1}}\n'
             'send err1:no resolver defined to resolve "localhost"\n')
    assert ids(explained(paste)) == ["ADVERTISED_UNRESOLVABLE"]


def test_no_resolver_alone_is_a_name_that_does_not_resolve_whichever_its_role():
    found = ids(explained('failed to connect: no resolver defined to resolve "kafka.example"'))
    assert "BOOTSTRAP_UNRESOLVABLE" in found and "ADVERTISED_UNRESOLVABLE" in found


def test_all_brokers_failed_is_the_client_giving_up_on_its_bootstrap_list():
    """client.lua's _fetch_metadata: each bootstrap address's failure only at INFO, then this at ERR; the readings are
    the bootstrap's (its name not resolving, nginx's resolver directive missing, first), never an advertised broker's."""
    paste = ('2016/03/02 10:00:00 [error] 13484#0: *105 [lua] client.lua:150: _fetch_metadata(): all brokers failed in '
             'fetch topic metadata, client: 127.0.0.1, server: localhost, request: "GET /t HTTP/1.1", host: "localhost"')
    found = explained(paste).findings
    assert [f.id for f in found][:3] == ["BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT"]
    assert all(f.severity == "warning" and f.evidence["certain"] is False for f in found)
    assert not any(f.id.startswith("ADVERTISED_") for f in found)


def test_the_info_line_before_it_names_the_cause():
    paste = ('[info] 7#0: *1 [lua] client.lua:139: _fetch_metadata(): broker fetch metadata failed, err:no resolver '
             'defined to resolve "storm01"storm019092\n'
             '[error] 7#0: *1 [lua] client.lua:150: _fetch_metadata(): all brokers failed in fetch topic metadata\n')
    found = only(explained(paste), "BOOTSTRAP_UNRESOLVABLE")
    assert found.severity == "error" and found.evidence["host"] == "storm01" and found.evidence["role"] == "bootstrap"
