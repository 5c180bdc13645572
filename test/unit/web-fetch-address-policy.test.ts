import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  allowListFromEnv,
  forbiddenAddressReason,
  forbiddenHostNameReason,
  hostRefusal,
  isAddressAllowed,
  isHostNameAllowed,
  parseAllowList,
  parseIpAddress,
} from '../../src/web/fetch/address-policy.js';

describe('forbiddenAddressReason', () => {
  const forbidden: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.254', /carrier-grade NAT/],
    ['169.254.0.1', /link-local/],
    ['169.254.169.254', /cloud metadata/],
    ['100.100.100.200', /cloud metadata/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::7f00:1', /IPv4-compatible/],
    ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
    ['::ffff:7f00:1', /IPv4-mapped loopback/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped cloud metadata/],
    ['::ffff:10.1.2.3', /IPv4-mapped private/],
    ['::ffff:0:7f00:1', /IPv4-translated loopback/],
    ['64:ff9b::7f00:1', /NAT64 loopback/],
    ['64:ff9b::a9fe:a9fe', /NAT64 cloud metadata/],
    ['64:ff9b::192.168.0.1', /NAT64 private/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:7f00:1::1', /6to4 loopback/],
    ['2002:a00:1::', /6to4 private/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['fd00:ec2::254', /cloud metadata/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['100::1', /discard/],
    ['4000::1', /outside global unicast/],
    ['fe80::1%eth0', /scoped|link-local/],
  ];
  it.each(forbidden)('refuses %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toMatch(reason);
  });

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  it.each(allowed)('lets the public address %s through', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('refuses text that is not an IP address, including non-standard IPv4 notations', () => {
    expect(forbiddenAddressReason('example.com')).toMatch(/not an IP address/);
    expect(forbiddenAddressReason('0x7f.1')).toMatch(/not an IP address/);
    expect(forbiddenAddressReason('2130706433')).toMatch(/not an IP address/);
    expect(forbiddenAddressReason('')).toMatch(/not an IP address/);
  });

  it('accepts bracketed IPv6 as URLs write it', () => {
    expect(parseIpAddress('[::1]')?.toString()).toBe('::1');
    expect(forbiddenAddressReason('[::ffff:7f00:1]')).toMatch(/IPv4-mapped loopback/);
  });
});

describe('hostRefusal on parsed URL hosts', () => {
  const urls = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://0/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0251.0376.0251.0376/',
    'http://0xa9fea9fe/',
    'http://2852039166/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata/',
    'http://localhost/',
    'http://LocalHost./',
    'http://app.localhost/',
    'http://printer.local/',
    'http://intranet/',
  ];
  it.each(urls)('refuses %s before any connection', (url) => {
    expect(hostRefusal(new URL(url).hostname)).not.toBeNull();
  });

  it('leaves public host names to be checked after resolution', () => {
    expect(hostRefusal('example.com')).toBeNull();
    expect(hostRefusal('docs.python.org.')).toBeNull();
  });

  it('names the reason for refused host names', () => {
    expect(forbiddenHostNameReason('localhost')).toMatch(/loopback/);
    expect(forbiddenHostNameReason('metadata.google.internal')).toMatch(/metadata/);
    expect(forbiddenHostNameReason('db.internal')).toMatch(/\.internal/);
    expect(forbiddenHostNameReason('router')).toMatch(/single-label/);
  });
});

describe('parseAllowList', () => {
  it('allows nothing when the setting is empty or missing', () => {
    for (const value of [undefined, null, '', '  ,  ']) {
      const allow = parseAllowList(value);
      expect(allow.entries).toEqual([]);
      expect(isAddressAllowed(allow, '127.0.0.1')).toBe(false);
      expect(isHostNameAllowed(allow, 'localhost')).toBe(false);
    }
  });

  it('reads host names and CIDR ranges separated by commas', () => {
    const allow = parseAllowList('127.0.0.1/32, localhost,::1/128 ,10.1.0.0/16');
    expect(allow.entries).toEqual(['127.0.0.1/32', 'localhost', '::1/128', '10.1.0.0/16']);
    expect(isAddressAllowed(allow, '127.0.0.1')).toBe(true);
    expect(isAddressAllowed(allow, '127.0.0.2')).toBe(false);
    expect(isAddressAllowed(allow, '::1')).toBe(true);
    expect(isAddressAllowed(allow, '10.1.200.3')).toBe(true);
    expect(isAddressAllowed(allow, '10.2.0.1')).toBe(false);
    expect(isHostNameAllowed(allow, 'localhost')).toBe(true);
    expect(isHostNameAllowed(allow, 'LOCALHOST.')).toBe(true);
    expect(isHostNameAllowed(allow, 'other.localhost')).toBe(false);
  });

  it('matches IPv4-mapped IPv6 addresses against IPv4 ranges', () => {
    const allow = parseAllowList('127.0.0.1/32');
    expect(isAddressAllowed(allow, '::ffff:127.0.0.1')).toBe(true);
    expect(addressRefusal('::ffff:127.0.0.1', allow)).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.2', allow)).toMatch(/loopback/);
  });

  it('treats a bare address as a single-address range, in any notation the URL parser accepts', () => {
    const allow = parseAllowList('192.168.1.5 [fd00::1] 127.1');
    expect(isAddressAllowed(allow, '192.168.1.5')).toBe(true);
    expect(isAddressAllowed(allow, '192.168.1.6')).toBe(false);
    expect(isAddressAllowed(allow, 'fd00::1')).toBe(true);
    expect(isAddressAllowed(allow, '127.0.0.1')).toBe(true);
  });

  it('allows subdomains for *.domain entries but not the domain itself', () => {
    const allow = parseAllowList('*.corp.example,.lab.test');
    expect(isHostNameAllowed(allow, 'wiki.corp.example')).toBe(true);
    expect(isHostNameAllowed(allow, 'a.b.corp.example')).toBe(true);
    expect(isHostNameAllowed(allow, 'corp.example')).toBe(false);
    expect(isHostNameAllowed(allow, 'evilcorp.example')).toBe(false);
    expect(isHostNameAllowed(allow, 'x.lab.test')).toBe(true);
  });

  it('opens a refused host name or address only when listed', () => {
    const allow = parseAllowList('localhost,127.0.0.0/8');
    expect(hostRefusal('localhost', allow)).toBeNull();
    expect(hostRefusal('127.0.0.9', allow)).toBeNull();
    expect(hostRefusal('[::1]', allow)).toMatch(/loopback/);
    expect(hostRefusal('metadata.google.internal', allow)).toMatch(/metadata/);
  });

  it('throws a clear error for entries it cannot read', () => {
    expect(() => parseAllowList('10.0.0.0/33')).toThrow(/ARBOR_FETCH_ALLOW.*10\.0\.0\.0\/33/);
    expect(() => parseAllowList('nonsense/8')).toThrow(/not a valid CIDR/);
    expect(() => parseAllowList('::1/129')).toThrow(/not a valid CIDR/);
    expect(() => parseAllowList('host:8080')).toThrow(/bare host name/);
    expect(() => parseAllowList('bad_host^name')).toThrow(/ARBOR_FETCH_ALLOW/);
  });

  it('reads ARBOR_FETCH_ALLOW from an environment', () => {
    expect(isAddressAllowed(allowListFromEnv({ ARBOR_FETCH_ALLOW: '127.0.0.1/32' }), '127.0.0.1')).toBe(true);
    expect(allowListFromEnv({}).entries).toEqual([]);
  });
});
