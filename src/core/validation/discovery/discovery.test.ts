/** EndpointSlice and Endpoints validation as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

describe('EndpointSlice', () => {
  const g = 'discovery.k8s.io';
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['API-VER-110: valid, with nodeName and zone', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'node-1', zone: 'a' }], ports: [{ name: 'http', port: 80 }] }, []],
    ['no address type', {}, ['addressType: Required value']],
    ['addresses', { addressType: 'IPv4', endpoints: [{ addresses: [] }, { addresses: ['::1', '127.0.0.1'] }] }, [
      'endpoints[0].addresses: Required value: must contain at least 1 address',
      'endpoints[1].addresses[0]: Invalid value: "::1": must be a valid IPv4 address',
      'endpoints[1].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]],
    ['ports', { addressType: 'FQDN', endpoints: [{ addresses: ['example.com'] }], ports: [{ name: 'a', protocol: 'ICMP' }, { name: 'a' }] }, [
      'ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'ports[1].name: Duplicate value: "a"',
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'endpointslices', obj)).toEqual(want));
  it('addressType is fixed', () => {
    expect(errorsOf(g, 'endpointslices', { addressType: 'IPv6' }, { addressType: 'IPv4' })).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });
});

describe('Endpoints', () => {
  it('subsets need addresses; ports need names when there are several', () => {
    expect(errorsOf('', 'endpoints', { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] })).toEqual([]);
    expect(errorsOf('', 'endpoints', { subsets: [{ ports: [{ port: 80 }, { name: 'b', port: 0 }] }] })).toEqual([
      'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
    expect(errorsOf('', 'endpoints', { subsets: [{ addresses: [{ ip: 'x' }] }] })).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'subsets[0].addresses[0].ip: Invalid value: "x": must be a valid IP address',
    ]);
  });
});
