"""What a certificate says: its DER decoded into a ``CertificateInfo`` (subject, issuer, SANs, validity)
through one bounded cursor, and whether a host name matches it as OpenSSL's hostname check would.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import ipaddress

from probes.results import CertificateInfo


def is_ip_address(host: str) -> bool:
    """Whether ``host`` is an IP address literal (an IPv6 one may be in brackets)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def decode_or_none(der: bytes) -> CertificateInfo | None:
    """The certificate ``der`` encodes, or None when it does not parse (evidence is best effort)."""
    try:
        return decode_certificate(der)
    except CertificateParseError:
        return None


def name_in_certificate(certificate: CertificateInfo, host: str) -> bool:
    """Whether ``host`` matches the certificate as OpenSSL's hostname check would: an IP address
    against the IP SANs, a name against the DNS SANs (wildcard in the leftmost label only), or
    against the subject CN when the certificate has no DNS SAN at all."""
    host = host.strip("[]")
    if is_ip_address(host):
        wanted = ipaddress.ip_address(host)
        return any(_same_ip(wanted, found) for found in certificate.ip_addresses)
    host = host.lower().rstrip(".")
    patterns = certificate.dns_names or tuple(n for n in (_common_name(certificate.subject),) if n)
    return any(_dns_match(pattern.lower().rstrip("."), host) for pattern in patterns)


def _same_ip(wanted: ipaddress.IPv4Address | ipaddress.IPv6Address, found: str) -> bool:
    try:
        return ipaddress.ip_address(found) == wanted
    except ValueError:
        return False


def _dns_match(pattern: str, host: str) -> bool:
    if "*" not in pattern:
        return pattern == host
    first, _, rest = pattern.partition(".")
    host_first, _, host_rest = host.partition(".")
    if "*" in rest or not rest or rest.count(".") < 1 or host_rest != rest or not host_first:
        return False
    prefix, _, suffix = first.partition("*")
    return host_first.startswith(prefix) and host_first.endswith(suffix) and len(host_first) >= len(first) - 1


def _common_name(subject: str | None) -> str | None:
    for part in _split_rdns(subject or ""):
        key, _, value = part.partition("=")
        if key.strip().upper() == "CN":
            return value.strip()
    return None


def _split_rdns(text: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


class CertificateParseError(ValueError):
    """The bytes are not a DER X.509 certificate kdiag can read."""


_OID_NAMES = {"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
              "2.5.4.11": "OU", "2.5.4.5": "serialNumber", "0.9.2342.19200300.100.1.25": "DC",
              "1.2.840.113549.1.9.1": "emailAddress"}
_SUBJECT_ALT_NAME = "2.5.29.17"


class _Der:
    """A bounded cursor over DER: every read checks what is left and raises CertificateParseError."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data, self.pos, self.end = data, start, len(data) if end is None else end

    @property
    def done(self) -> bool:
        return self.pos >= self.end

    def peek_tag(self) -> int | None:
        return None if self.done else self.data[self.pos]

    def read(self, expected: int | None = None) -> tuple[int, _Der]:
        """The next TLV: (tag, a cursor over its value)."""
        if self.end - self.pos < 2:
            raise CertificateParseError("truncated DER")
        tag, length = self.data[self.pos], self.data[self.pos + 1]
        pos = self.pos + 2
        if length & 0x80:
            count = length & 0x7F
            if count == 0 or count > 4 or pos + count > self.end:
                raise CertificateParseError("bad DER length")
            length = int.from_bytes(self.data[pos:pos + count], "big")
            pos += count
        if pos + length > self.end:
            raise CertificateParseError("DER value runs past its container")
        if expected is not None and tag != expected:
            raise CertificateParseError(f"expected DER tag 0x{expected:02x}, found 0x{tag:02x}")
        self.pos = pos + length
        return tag, _Der(self.data, pos, pos + length)

    def value(self) -> bytes:
        return self.data[self.pos:self.end]


def decode_certificate(der: bytes) -> CertificateInfo:
    """Subject, issuer, SANs, validity, serial and fingerprint of a DER certificate."""
    _, certificate = _Der(der).read(0x30)
    _, tbs = certificate.read(0x30)
    if tbs.peek_tag() == 0xA0:  # [0] version
        tbs.read()
    _, serial = tbs.read(0x02)
    tbs.read(0x30)  # signature algorithm
    issuer = _name(tbs.read(0x30)[1])
    _, validity = tbs.read(0x30)
    not_before, not_after = _time(*validity.read()), _time(*validity.read())
    subject = _name(tbs.read(0x30)[1])
    tbs.read(0x30)  # subject public key info
    dns_names: list[str] = []
    ip_addresses: list[str] = []
    while not tbs.done:
        tag, value = tbs.read()
        if tag != 0xA3:  # [1]/[2] unique ids
            continue
        _, extensions = value.read(0x30)
        while not extensions.done:
            _, extension = extensions.read(0x30)
            oid = _oid(extension.read(0x06)[1].value())
            if extension.peek_tag() == 0x01:  # critical
                extension.read()
            _, payload = extension.read(0x04)
            if oid == _SUBJECT_ALT_NAME:
                _subject_alt_names(payload, dns_names, ip_addresses)
    fingerprint = hashlib.sha256(der).hexdigest().upper()
    return CertificateInfo(
        subject=subject, issuer=issuer, dns_names=tuple(dns_names), ip_addresses=tuple(ip_addresses),
        not_before=not_before, not_after=not_after, serial_number=serial.value().hex().upper() or "0",
        sha256=":".join(fingerprint[i:i + 2] for i in range(0, len(fingerprint), 2)),
    )


def _subject_alt_names(payload: _Der, dns_names: list[str], ip_addresses: list[str]) -> None:
    _, names = payload.read(0x30)
    while not names.done:
        tag, value = names.read()
        if tag == 0x82:  # [2] dNSName
            dns_names.append(value.value().decode("ascii", "replace"))
        elif tag == 0x87:  # [7] iPAddress
            raw = value.value()
            if len(raw) in (4, 16):
                ip_addresses.append(str(ipaddress.ip_address(raw)))


def _name(rdns: _Der) -> str:
    parts: list[str] = []
    while not rdns.done:
        _, rdn = rdns.read(0x31)
        values = []
        while not rdn.done:
            _, pair = rdn.read(0x30)
            oid = _oid(pair.read(0x06)[1].value())
            tag, text = pair.read()
            values.append(f"{_OID_NAMES.get(oid, oid)}={_escape(_string(tag, text.value()))}")
        parts.append("+".join(values))
    return ",".join(reversed(parts))  # RFC 4514: the most specific RDN first


def _string(tag: int, raw: bytes) -> str:
    if tag == 0x1E:  # BMPString
        return raw.decode("utf-16-be", "replace")
    if tag == 0x1C:  # UniversalString
        return raw.decode("utf-32-be", "replace")
    return raw.decode("utf-8", "replace")


def _escape(value: str) -> str:
    return "".join("\\" + char if char in ',+"\\<>;' else char for char in value)


def _oid(raw: bytes) -> str:
    if not raw:
        raise CertificateParseError("empty OID")
    parts = [raw[0] // 40, raw[0] % 40] if raw[0] < 80 else [2, raw[0] - 80]
    value = 0
    for byte in raw[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def _time(tag: int, value: _Der) -> str:
    text = value.value().decode("ascii", "replace")
    try:
        if tag == 0x17:  # UTCTime YYMMDDHHMMSSZ
            moment = _dt.datetime.strptime(text, "%y%m%d%H%M%SZ")
        elif tag == 0x18:  # GeneralizedTime YYYYMMDDHHMMSSZ
            moment = _dt.datetime.strptime(text, "%Y%m%d%H%M%SZ")
        else:
            raise CertificateParseError(f"unexpected time tag 0x{tag:02x}")
    except ValueError:
        return text
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
