/**
 * Which network addresses and host names webFetch may reach.
 *
 * Everything that is not a public unicast address is refused: loopback, private, link-local, carrier-grade NAT,
 * multicast, reserved, documentation and unspecified ranges, IPv6 unique-local and link-local, and the IPv4-mapped,
 * IPv4-translated, NAT64 and 6to4 forms of refused IPv4 addresses. A deployment can open named hosts or address
 * ranges with an allow list (`ARBOR_FETCH_ALLOW`), which wins over every refusal.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Address = IPv4 | IPv6;
type Range<T extends Address> = readonly [T, number];

function v4(cidr: string): Range<IPv4> {
  const [address, bits] = ipaddr.IPv4.parseCIDR(cidr);
  return [address, bits];
}

function v6(cidr: string): Range<IPv6> {
  const [address, bits] = ipaddr.IPv6.parseCIDR(cidr);
  return [address, bits];
}

/** Single addresses of cloud metadata services; they are inside refused ranges anyway, the label makes errors clearer. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200', '192.0.0.192']);
const METADATA_V6 = [v6('fd00:ec2::254/128'), v6('fd00:ec2::23/128')];

/** Refused IPv4 ranges, most specific first. */
const V4_RULES: ReadonlyArray<readonly [Range<IPv4>, string]> = [
  [v4('255.255.255.255/32'), 'broadcast'],
  [v4('0.0.0.0/8'), 'unspecified ("this network")'],
  [v4('10.0.0.0/8'), 'private'],
  [v4('100.64.0.0/10'), 'carrier-grade NAT'],
  [v4('127.0.0.0/8'), 'loopback'],
  [v4('169.254.0.0/16'), 'link-local'],
  [v4('172.16.0.0/12'), 'private'],
  [v4('192.0.0.0/24'), 'reserved (IETF protocol assignments)'],
  [v4('192.0.2.0/24'), 'reserved (documentation)'],
  [v4('192.88.99.0/24'), 'reserved (6to4 relay anycast)'],
  [v4('192.168.0.0/16'), 'private'],
  [v4('198.18.0.0/15'), 'reserved (benchmarking)'],
  [v4('198.51.100.0/24'), 'reserved (documentation)'],
  [v4('203.0.113.0/24'), 'reserved (documentation)'],
  [v4('224.0.0.0/4'), 'multicast'],
  [v4('240.0.0.0/4'), 'reserved'],
];

/** Refused IPv6 ranges, most specific first. Embedded IPv4 forms are handled before these. */
const V6_RULES: ReadonlyArray<readonly [Range<IPv6>, string]> = [
  [v6('::/128'), 'unspecified'],
  [v6('::1/128'), 'loopback'],
  [v6('::/96'), 'reserved (IPv4-compatible)'],
  [v6('64:ff9b:1::/48'), 'reserved (local-use NAT64)'],
  [v6('100::/64'), 'reserved (discard-only)'],
  [v6('2001::/32'), 'reserved (Teredo tunnel)'],
  [v6('2001:2::/48'), 'reserved (benchmarking)'],
  [v6('2001:10::/28'), 'reserved (ORCHID)'],
  [v6('2001:20::/28'), 'reserved (ORCHIDv2)'],
  [v6('2001:db8::/32'), 'reserved (documentation)'],
  [v6('3fff::/20'), 'reserved (documentation)'],
  [v6('fc00::/7'), 'unique-local'],
  [v6('fe80::/10'), 'link-local'],
  [v6('fec0::/10'), 'site-local'],
  [v6('ff00::/8'), 'multicast'],
];

const GLOBAL_UNICAST_V6 = v6('2000::/3');
const IPV4_MAPPED = v6('::ffff:0:0/96');
const IPV4_TRANSLATED = v6('::ffff:0:0:0/96');
const NAT64 = v6('64:ff9b::/96');
const SIX_TO_FOUR = v6('2002::/16');

function inRange(address: Address, range: Range<Address>): boolean {
  return address.kind() === range[0].kind() && address.match(range[0], range[1]);
}

function embeddedV4(high: number | undefined, low: number | undefined): IPv4 {
  const h = high ?? 0;
  const l = low ?? 0;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}

/**
 * Parses an IP address in standard notation (as produced by DNS resolution and by WHATWG URL parsing),
 * with or without IPv6 brackets and zone. Returns null for anything that is not an IP address.
 */
export function parseIpAddress(text: string): Address | null {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  const withoutZone = value.split('%')[0] ?? '';
  if (isIP(withoutZone) === 0) return null;
  try {
    return ipaddr.parse(value);
  } catch {
    return null;
  }
}

function classifyV4(address: IPv4): string | null {
  if (METADATA_V4.has(address.toString())) return 'cloud metadata endpoint';
  for (const [range, reason] of V4_RULES) if (inRange(address, range)) return reason;
  return null;
}

function classifyV6(address: IPv6): string | null {
  if (address.zoneId !== undefined && address.zoneId !== '') return 'scoped (zone) address';
  for (const range of METADATA_V6) if (inRange(address, range)) return 'cloud metadata endpoint';
  const parts = address.parts;
  const embedded: ReadonlyArray<readonly [Range<IPv6>, string, () => IPv4]> = [
    [IPV4_MAPPED, 'IPv4-mapped', () => embeddedV4(parts[6], parts[7])],
    [IPV4_TRANSLATED, 'IPv4-translated', () => embeddedV4(parts[6], parts[7])],
    [NAT64, 'NAT64', () => embeddedV4(parts[6], parts[7])],
    [SIX_TO_FOUR, '6to4', () => embeddedV4(parts[1], parts[2])],
  ];
  for (const [range, form, inner] of embedded) {
    if (!inRange(address, range)) continue;
    const v4Address = inner();
    const reason = classifyV4(v4Address);
    return reason === null ? null : `${form} ${reason} (${v4Address.toString()})`;
  }
  for (const [range, reason] of V6_RULES) if (inRange(address, range)) return reason;
  if (!inRange(address, GLOBAL_UNICAST_V6)) return 'reserved (outside global unicast 2000::/3)';
  return null;
}

/**
 * Why an address must not be fetched from, or null for a public unicast address.
 * Text that is not an IP address is refused too ("not an IP address").
 */
export function forbiddenAddressReason(address: string): string | null {
  const parsed = parseIpAddress(address);
  if (parsed === null) return 'not an IP address';
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as IPv4) : classifyV6(parsed as IPv6);
}

/** Host names refused without looking them up (unless allowed by name). */
const FORBIDDEN_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'kubernetes.default',
  'kubernetes.default.svc',
]);
const FORBIDDEN_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa', '.svc.cluster.local', '.intranet', '.lan'];

/** Lower case, without brackets or trailing dots: the form host names are compared in. */
export function normalizeHostName(host: string): string {
  let value = host.trim().toLowerCase();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  while (value.endsWith('.')) value = value.slice(0, -1);
  return value;
}

/**
 * Why a host name (not an IP literal) is refused before resolution, or null when it may be resolved.
 * Refused: localhost and its subdomains, metadata service names, private-use suffixes such as .internal and .local,
 * and single-label names (which resolve through search domains to internal hosts).
 */
export function forbiddenHostNameReason(hostname: string): string | null {
  const name = normalizeHostName(hostname);
  if (name === '') return 'empty host name';
  if (FORBIDDEN_NAMES.has(name)) return name.startsWith('local') ? 'loopback host name' : 'internal or metadata host name';
  for (const suffix of FORBIDDEN_SUFFIXES) {
    if (name.endsWith(suffix)) return `private-use host name (*${suffix})`;
  }
  if (!name.includes('.')) return 'single-label host name (not a public domain)';
  return null;
}

/** Host names and address ranges a deployment opens to webFetch. */
export interface AllowList {
  /** Exact host names, normalised (lower case, punycode, no trailing dot). */
  readonly names: ReadonlySet<string>;
  /** Domain suffixes from `*.example.com` or `.example.com` entries, stored as `.example.com`. */
  readonly suffixes: readonly string[];
  /** Address ranges. */
  readonly ranges: ReadonlyArray<readonly [Address, number]>;
  /** The entries as written, for messages. */
  readonly entries: readonly string[];
}

/** Allows nothing: the default. */
export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({
  names: new Set<string>(),
  suffixes: [],
  ranges: [],
  entries: [],
});

function normalizeNameEntry(entry: string): string {
  // The WHATWG host parser gives the same form (lower case, punycode) as URLs that are fetched.
  let url: URL;
  try {
    url = new URL(`http://${entry}/`);
  } catch {
    throw new Error(`ARBOR_FETCH_ALLOW: "${entry}" is not a host name, IP address or CIDR range`);
  }
  if (url.port !== '' || url.pathname !== '/' || url.username !== '' || url.password !== '' || url.search !== '') {
    throw new Error(`ARBOR_FETCH_ALLOW: "${entry}" must be a bare host name (no port, path or credentials)`);
  }
  return normalizeHostName(url.hostname);
}

/**
 * Parses the `ARBOR_FETCH_ALLOW` setting: comma-separated (whitespace also separates) host names and CIDR ranges,
 * e.g. `127.0.0.1/32,localhost,::1/128,*.corp.example`. A bare IP address means that single address.
 * `*.example.com` (or `.example.com`) allows every subdomain of example.com, not example.com itself.
 * Empty or undefined allows nothing. Throws on an entry it cannot read, so a misconfiguration fails loudly.
 */
export function parseAllowList(value: string | undefined | null): AllowList {
  if (value === undefined || value === null || value.trim() === '') return EMPTY_ALLOW_LIST;
  const names = new Set<string>();
  const suffixes: string[] = [];
  const ranges: Array<readonly [Address, number]> = [];
  const entries: string[] = [];
  for (const raw of value.split(/[\s,]+/)) {
    const entry = raw.trim();
    if (entry === '') continue;
    entries.push(entry);
    if (entry.includes('/')) {
      const slash = entry.lastIndexOf('/');
      const addressText = entry.slice(0, slash);
      const bitsText = entry.slice(slash + 1);
      const address = parseIpAddress(addressText);
      const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
      const maxBits = address?.kind() === 'ipv4' ? 32 : 128;
      if (address === null || !Number.isInteger(bits) || bits > maxBits) {
        throw new Error(`ARBOR_FETCH_ALLOW: "${entry}" is not a valid CIDR range`);
      }
      ranges.push([address, bits]);
      continue;
    }
    const literal = parseIpAddress(entry);
    if (literal !== null) {
      ranges.push([literal, literal.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    if (entry.startsWith('*.') || (entry.startsWith('.') && entry.length > 1)) {
      const base = normalizeNameEntry(entry.slice(entry.indexOf('.') + 1));
      suffixes.push(`.${base}`);
      continue;
    }
    const name = normalizeNameEntry(entry);
    const asAddress = parseIpAddress(name);
    if (asAddress !== null) {
      // Non-standard IPv4 notation such as 127.1, normalised by the URL parser.
      ranges.push([asAddress, 32]);
      continue;
    }
    names.add(name);
  }
  return Object.freeze({ names, suffixes, ranges, entries });
}

/** Reads the allow list from `ARBOR_FETCH_ALLOW` in the given environment (default: process.env). */
export function allowListFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AllowList {
  return parseAllowList(env.ARBOR_FETCH_ALLOW);
}

/** Whether the allow list opens this host name (exact entry or a `*.` suffix). */
export function isHostNameAllowed(allow: AllowList, hostname: string): boolean {
  const name = normalizeHostName(hostname);
  if (name === '') return false;
  if (allow.names.has(name)) return true;
  return allow.suffixes.some((suffix) => name.endsWith(suffix) && name.length > suffix.length);
}

/** Whether the allow list opens this address (IPv4-mapped IPv6 addresses also match IPv4 ranges). */
export function isAddressAllowed(allow: AllowList, address: string): boolean {
  if (allow.ranges.length === 0) return false;
  const parsed = parseIpAddress(address);
  if (parsed === null) return false;
  const candidates: Address[] = [parsed];
  if (parsed.kind() === 'ipv6' && (parsed as IPv6).isIPv4MappedAddress()) candidates.push((parsed as IPv6).toIPv4Address());
  if (parsed.kind() === 'ipv6' && (parsed as IPv6).zoneId) {
    // A range never opens a scoped address; only an allowed host name can lead there.
    return false;
  }
  return candidates.some((candidate) => allow.ranges.some((range) => inRange(candidate, range)));
}

/** Why this address may not be connected to under the allow list, or null when it may. */
export function addressRefusal(address: string, allow: AllowList = EMPTY_ALLOW_LIST): string | null {
  if (isAddressAllowed(allow, address)) return null;
  return forbiddenAddressReason(address);
}

/**
 * Why a URL host (a WHATWG `URL.hostname`: a name, dotted IPv4, or bracketed IPv6) is refused before any connection,
 * or null when it may be connected to (a name still has every resolved address checked at connection time).
 */
export function hostRefusal(hostname: string, allow: AllowList = EMPTY_ALLOW_LIST): string | null {
  if (isHostNameAllowed(allow, hostname)) return null;
  const literal = parseIpAddress(hostname);
  if (literal !== null) return addressRefusal(literal.toString(), allow);
  return forbiddenHostNameReason(hostname);
}
