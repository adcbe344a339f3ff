"""A server that is not Kafka, in its own log, about a client that spoke Kafka to it: ZooKeeper's lines when a
Kafka client bootstrapped on its client port (2181).

Message family (ZooKeeper's server, org.apache.zookeeper.server): a Kafka request read as ZooKeeper's
ConnectRequest. Its size frames, and its body reads as nonsense: ``Refusing session request for client /ip:port
as it has seen zxid 0x...`` (ZooKeeperServer.processConnectRequest: the request's bytes read as a zxid far ahead),
``Unreasonable length = N`` (jute's BinaryInputArchive.checkLength), ``Len error N`` (NIOServerCnxn.readLength),
``Connection request from old client /ip:port`` (a ConnectRequest shorter than today's). The address they name is
the *client's*, never a Kafka address; the finding is about the bootstrap address the client used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (NOT_KAFKA, PLAINTEXT_ON_TLS, TLS_ON_PLAINTEXT, ZOOKEEPER, Fact, Item, Pattern,
                                     ScanState, Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_ZOOKEEPER = "ZooKeeper read a client's bytes as its own protocol and refused them"


@pattern("zookeeper.refusing_session", ZOOKEEPER, "Refusing session request for client",
         r"Refusing session request for client /?\S+ as it has seen zxid 0x(?P<zxid>[0-9a-fA-F]+)",
         "2026-11-26 10:02:11,410 [myid:1] - INFO  [NIOWorkerThread-2:ZooKeeperServer@1107] - Refusing session request "
         "for client /10.0.0.7:51234 as it has seen zxid 0x30000000f our last zxid is 0x0 client must try another "
         "server")
def _zookeeper_refusing_session(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """ZooKeeper's ensemble members say this to a real ZooKeeper client that saw a newer server: a guess."""
    yield Sighting(NOT_KAFKA, ZOOKEEPER, detail=f"{_ZOOKEEPER}: {m.group(0)}",
                   guess="Refusing session request ... as it has seen zxid (a ZooKeeper client that saw a newer "
                         "ensemble member gets it too)")


@pattern("zookeeper.unreasonable_length", ZOOKEEPER, "nreasonable length", r"Unreasonable length = (?P<n>-?\d+)",
         "2026-11-26 10:02:11,410 [myid:] - WARN  [NIOWorkerThread-1:NIOServerCnxn@373] - Close of session 0x0 "
         "java.io.IOException: Unreasonable length = 1701080931")
def _zookeeper_unreasonable_length(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if _zookeeper_server(m.string):
        yield Sighting(NOT_KAFKA, ZOOKEEPER, detail=f"{_ZOOKEEPER}: {m.group(0)}")


@pattern("zookeeper.len_error", ZOOKEEPER, "Len error", r"Len error (?P<n>-?\d+)",
         "2026-11-26 10:02:11,410 [myid:] - WARN  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:NIOServerCnxn@362] - "
         "Exception causing close of session 0x0 due to java.io.IOException: Len error 369295617")
def _zookeeper_len_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    raw = (int(m.group("n")) & 0xFFFFFFFF).to_bytes(4, "big")
    if raw.isascii() and raw.decode("ascii").isprintable():  # "GET " and the like: a text client, not Kafka's
        return
    yield Sighting(NOT_KAFKA, ZOOKEEPER, detail=f"{_ZOOKEEPER}: {m.group(0)}")


@pattern("zookeeper.old_client", ZOOKEEPER, "Connection request from old client",
         r"Connection request from old client /?\S+?;",
         "2026-11-26 10:02:11,410 [myid:] - INFO  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:ZooKeeperServer@1018] - "
         "Connection request from old client /10.0.0.7:51234; will be dropped if server is in r-o mode")
def _zookeeper_old_client(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NOT_KAFKA, ZOOKEEPER, detail=f"{_ZOOKEEPER}: {m.group(0)}",
                   guess="Connection request from old client (a ZooKeeper client before 3.3 gets it too)")


# Netty's SslHandler throws NotSslRecordException ("not an SSL/TLS record: <the bytes, in hex>") on whichever side
# expected TLS and read something else. Written by a server (ZooKeeper's NettyServerCnxnFactory on its secure client
# port, as Strimzi runs it): the peer spoke plaintext to a TLS port. Written by a client (ZooKeeper's
# ClientCnxnSocketNetty, a broker with zookeeper.ssl.client.enable): the server is not TLS. Who wrote it is the logger
# on its line or the one just above; when no line says, a server's (ZooKeeper's secure port, a Netty-based component).
# Text bytes ("GET ", a health check) are no Kafka-family client.
_SIDES = {"ServerCnxn": "server", "ClientCnxn": "client"}
for _needle, _side in _SIDES.items():
    @pattern(f"netty.side.{_side}", ZOOKEEPER, _needle, re.escape(_needle),
             "2020-09-13 00:26:19,877 WARN Exception caught (org.apache.zookeeper.server.NettyServerCnxnFactory)"
             if _side == "server" else "org.apache.zookeeper.ClientCnxnSocketNetty")
    def _netty_side(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        scan.netty_side = (scan.line, _SIDES[m.group(0)])
        yield Fact("netty_side")  # read: the exception below it is this side's


@pattern("netty.not_ssl_record", ZOOKEEPER, "not an SSL/TLS record",
         r"not an SSL/TLS record: (?P<hex>[0-9a-fA-F]{0,64})",
         "io.netty.handler.codec.DecoderException: io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS record: "
         "fff4fffd06")
def _netty_not_ssl_record(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    first = bytes.fromhex(m.group("hex")[:8] if len(m.group("hex")) >= 8 else "")
    if first and first.isascii() and first.decode("ascii").isprintable():  # an HTTP request or another text client
        return
    side = scan.netty_side[1] if scan.netty_side and scan.line - scan.netty_side[0] <= NETTY_CONTEXT else None
    detail = f"Netty: not an SSL/TLS record: {m.group('hex')}"
    if side == "client":  # the server this client reached does not speak TLS
        yield Sighting(TLS_ON_PLAINTEXT, ZOOKEEPER, detail=detail)
    else:  # the Netty TLS side of this ecosystem is a server's (Kafka's clients are not Netty's)
        yield Sighting(PLAINTEXT_ON_TLS, ZOOKEEPER, detail=detail)


NETTY_CONTEXT = 3
"""How far below its logger's line Netty's exception may come and still be that logger's."""


def _zookeeper_server(line: str) -> bool:
    """jute's length check is ZooKeeper's, but Hadoop's RPC has one of the same words: the line is ZooKeeper's."""
    return bool(re.search(r"ServerCnxn|session 0x|zookeeper|myid:", line, re.IGNORECASE))
