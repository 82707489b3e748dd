/** ServiceCIDR and IPAddress as kube validates them: tables of (object, expected errors), and once over HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { errorsOf } from '../testing';
import { nameIsIPAddress } from './ipAddress';
import { isValidCIDR } from './netip';

const g = 'networking.k8s.io';
const cidr = (...cidrs: string[]) => ({ spec: { cidrs } });

describe('IsValidCIDR, strict', () => {
  const cases: [string, string[]][] = [
    ['10.0.0.0/8', []],
    ['2001:db8::/64', []],
    ['0.0.0.0/0', []],
    ['fd00:0:0:1::/64', []],
    ['10.0.0.1/8', ['must not have bits set beyond the prefix length']],
    ['010.0.0.0/8', ['must not have leading 0s in IP or prefix length']],
    ['10.0.0.0/08', ['must not have leading 0s in IP or prefix length']],
    ['::ffff:10.0.0.0/104', ['must not have an IPv4-mapped IPv6 address']],
    ['2001:DB8::/64', ['must be in canonical form ("2001:db8::/64")']],
    ['2001:db8:0:0:0:0:0:0/64', ['must be in canonical form ("2001:db8::/64")']],
    ['10.0.0.0', ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
    ['10.0.0.0/33', ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
  ];
  it.each(cases)('%s', (value, want) => expect(isValidCIDR(value)).toEqual(want));
});

describe('ServiceCIDR', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['single stack', cidr('10.96.0.0/12'), []],
    ['dual stack', cidr('10.96.0.0/12', 'fd00:10:96::/112'), []],
    ['no CIDRs', cidr(), ['spec.cidrs: Required value: at least one CIDR required']],
    ['three CIDRs', cidr('10.0.0.0/24', '10.1.0.0/24', '10.2.0.0/24'), [
      'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24", "10.2.0.0/24"}}: may only hold up to 2 values',
    ]],
    ['two of one family', cidr('10.0.0.0/24', '10.1.0.0/24'), [
      'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]],
    ['bad entries', cidr('10.0.0.1/24', 'bogus'), [
      'spec.cidrs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length',
      'spec.cidrs[1]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.1/24", "bogus"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, obj, want) => expect(errorsOf(g, 'servicecidrs', obj)).toEqual(want));

  it('CIDRs are immutable, except that a single-stack range may gain its second family', () => {
    const old = cidr('10.96.0.0/12');
    expect(errorsOf(g, 'servicecidrs', cidr('10.96.0.0/12'), old)).toEqual([]);
    expect(errorsOf(g, 'servicecidrs', cidr('10.97.0.0/16'), old)).toEqual(['spec.cidrs[0]: Invalid value: "10.97.0.0/16": field is immutable']);
    expect(errorsOf(g, 'servicecidrs', cidr('10.96.0.0/12', 'fd00::/108'), old)).toEqual([]);
    expect(errorsOf(g, 'servicecidrs', cidr('10.96.0.0/12', '10.1.0.0/16'), old)).toEqual([
      'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.96.0.0/12", "10.1.0.0/16"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]);
    expect(errorsOf(g, 'servicecidrs', { spec: {} }, old)).toEqual(['spec.cidrs: Invalid value: []string(nil): field is immutable']);
    expect(errorsOf(g, 'servicecidrs', cidr(), old)).toEqual(['spec.cidrs: Invalid value: []string{}: field is immutable']);
    expect(errorsOf(g, 'servicecidrs', cidr('10.0.0.0/8'), cidr('10.96.0.0/12'), 'status')).toEqual([]);
  });

  it('a status write is held to metav1 condition rules', () => {
    const ready = { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' };
    expect(errorsOf(g, 'servicecidrs', { ...cidr('10.96.0.0/12'), status: { conditions: [ready] } }, cidr('10.96.0.0/12'), 'status')).toEqual([]);
    expect(errorsOf(g, 'servicecidrs', { ...cidr('10.96.0.0/12'), status: { conditions: [ready, { type: 'Ready', status: 'Yes', reason: 'not ok' }] } }, cidr('10.96.0.0/12'), 'status')).toEqual([
      'status.conditions[1].type: Duplicate value: "Ready"',
      'status.conditions[1].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
      'status.conditions[1].lastTransitionTime: Required value: must be set',
      "status.conditions[1].reason: Invalid value: \"not ok\": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'CamelCase',  or 'CamelCase,WithCommas',  or 'CamelCase:WithColons', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
    ]);
  });
});

describe('IPAddress', () => {
  const names: [string, string[]][] = [
    ['10.96.0.10', []],
    ['2001:db8::1', []],
    ['10.96.0.010', ['ParseAddr("10.96.0.010"): IPv4 field has octet with leading zero']],
    ['10.96.0', ['ParseAddr("10.96.0"): IPv4 address too short']],
    ['10.96.0.256', ['ParseAddr("10.96.0.256"): IPv4 field has value >255']],
    ['10..0.1', ['ParseAddr("10..0.1"): IPv4 field must have at least one digit (at ".0.1")']],
    ['10.a.0.1', ['ParseAddr("10.a.0.1"): unexpected character (at "a.0.1")']],
    ['web', ['ParseAddr("web"): unable to parse IP']],
    ['2001:db8:0::1', ['must be a canonical format IP address']],
  ];
  it.each(names)('name %s', (name, want) => expect(nameIsIPAddress(name, false)).toEqual(want));

  const ref = { group: '', resource: 'services', namespace: 'default', name: 'web' };
  it('API-ERR-007: spec.parentRef is required, with resource and name', () => {
    expect(errorsOf(g, 'ipaddresses', { spec: { parentRef: ref } })).toEqual([]);
    expect(errorsOf(g, 'ipaddresses', { spec: {} })).toEqual(['spec.parentRef: Required value']);
    expect(errorsOf(g, 'ipaddresses', { spec: { parentRef: { group: 'Bad_Group', namespace: 'a/b' } } })).toEqual([
      "spec.parentRef.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.parentRef.resource: Required value',
      'spec.parentRef.name: Required value',
      "spec.parentRef.namespace: Invalid value: \"a/b\": may not contain '/'",
    ]);
  });
  it('spec.parentRef is immutable', () => {
    expect(errorsOf(g, 'ipaddresses', { spec: { parentRef: ref } }, { spec: { parentRef: ref } })).toEqual([]);
    expect(errorsOf(g, 'ipaddresses', { spec: { parentRef: { ...ref, name: 'db' } } }, { spec: { parentRef: ref } })).toEqual([
      'spec.parentRef: Invalid value: networking.ParentReference{Group:"", Resource:"services", Namespace:"default", Name:"db"}: field is immutable',
    ]);
  });
});

describe('over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await newTestServer();
  });
  it('API-ERR-022: a ServiceCIDR with two IPv4 ranges is 422; an IPAddress named in non-canonical form is 422', async () => {
    const sc = await t.json('POST', '/apis/networking.k8s.io/v1/servicecidrs', {
      body: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.0.0.0/24', '10.0.1.1/24'] } },
    });
    expect(sc.status).toBe(422);
    expect(sc.body.message).toBe(
      'ServiceCIDR.networking.k8s.io "extra" is invalid: [spec.cidrs[1]: Invalid value: "10.0.1.1/24": must not have bits set beyond the prefix length, spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.0.1.1/24"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64]',
    );
    const ip = await t.json('POST', '/apis/networking.k8s.io/v1/ipaddresses', {
      body: { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: '2001:DB8::1' }, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } },
    });
    expect(ip.status).toBe(422);
    expect(ip.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "2001:DB8::1": must be a canonical format IP address', field: 'metadata.name' }]);
    const ok = await t.json('POST', '/apis/networking.k8s.io/v1/ipaddresses', {
      body: { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: '2001:db8::1' }, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } },
    });
    expect(ok.status).toBe(201);
  });
});
