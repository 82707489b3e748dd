// Kubernetes' library value facts (k8s.io/apiserver pkg/cel/library ip_test.go,
// cidr_test.go, semver_test.go; Go's net/url for the URL library): each row is an
// expression and the value or the error text kube-apiserver gives, checked
// through the evaluations resource.
import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../../evaluations';

type Fact = [expression: string, expected: { value: unknown } | { error: string }];
const v = (value: unknown): { value: unknown } => ({ value });
const err = (error: string): { error: string } => ({ error });

const ip: Fact[] = [
  ['ip("192.168.0.1")', v('192.168.0.1')],
  ['ip("192.168.0.1.0")', err('IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long')],
  ['isIP("192.168.0.1")', v(true)],
  ['isIP("192.168.0.1.0")', v(false)],
  ['ip.isCanonical("127.0.0.1")', v(true)],
  ['ip.isCanonical("127.0.0.1.0")', err('IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long')],
  ['ip("192.168.0.1").family()', v(4)],
  ['ip("0.0.0.0").isUnspecified()', v(true)],
  ['ip("127.0.0.1").isUnspecified()', v(false)],
  ['ip("127.0.0.1").isLoopback()', v(true)],
  ['ip("1.2.3.4").isLoopback()', v(false)],
  ['ip("224.0.0.1").isLinkLocalMulticast()', v(true)],
  ['ip("224.0.1.1").isLinkLocalMulticast()', v(false)],
  ['ip("169.254.169.254").isLinkLocalUnicast()', v(true)],
  ['ip("192.168.0.1").isLinkLocalUnicast()', v(false)],
  ['ip("192.168.0.1").isGlobalUnicast()', v(true)],
  ['ip("255.255.255.255").isGlobalUnicast()', v(false)],
  ['ip("2001:db8::68")', v('2001:db8::68')],
  ['ip("2001:db8:::68")', err('IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")')],
  ['isIP("2001:db8::68")', v(true)],
  ['isIP("2001:db8:::68")', v(false)],
  ['ip.isCanonical("2001:db8::68")', v(true)],
  ['ip.isCanonical("2001:DB8::68")', v(false)],
  ['ip("2001:db8::68").family()', v(6)],
  ['ip("::").isUnspecified()', v(true)],
  ['ip("::1").isUnspecified()', v(false)],
  ['ip("::1").isLoopback()', v(true)],
  ['ip("2001:db8::abcd").isLoopback()', v(false)],
  ['ip("ff02::1").isLinkLocalMulticast()', v(true)],
  ['ip("fd00::1").isLinkLocalMulticast()', v(false)],
  ['ip("fe80::1").isLinkLocalUnicast()', v(true)],
  ['ip("fd80::1").isLinkLocalUnicast()', v(false)],
  ['ip("2001:db8::abcd").isGlobalUnicast()', v(true)],
  ['ip("ff00::1").isGlobalUnicast()', v(false)],
  ['string(ip("192.168.0.1"))', v('192.168.0.1')],
  ['type(ip("192.168.0.1")) == net.IP', v(true)],
  ['ip("01.2.3.4")', err('IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero')],
  ['ip("1.2.3")', err('IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short')],
  ['ip("::ffff:1.2.3.4")', err('IPv4-mapped IPv6 address is not allowed')],
];

const cidr: Fact[] = [
  ['cidr("192.168.0.0/24")', v('192.168.0.0/24')],
  ['cidr("192.168.0.0/")', err('network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""')],
  ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', v(true)],
  ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', v(false)],
  ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', v(true)],
  ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', v(true)],
  ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', v(false)],
  ['cidr("192.168.0.1/24").masked()', v('192.168.0.0/24')],
  ['cidr("192.168.0.1/24").ip()', v('192.168.0.1')],
  ['cidr("192.168.0.0/24").prefixLength()', v(24)],
  ['type(cidr("192.168.0.0/24")) == net.CIDR', v(true)],
];

const semver: Fact[] = [
  ['semver("1.2.3")', v('1.2.3')],
  ['semver("v1.0")', err('No Major.Minor.Patch elements found')],
  ['isSemver("1.2.3-beta.1+build.1")', v(true)],
  ['isSemver("")', v(false)],
  ['isSemver("v1.0.0")', v(false)],
  ['isSemver(" 1.0.0")', v(false)],
  ['isSemver("1. 0.0")', v(false)],
  ['isSemver("1.0.0 ")', v(false)],
  ['isSemver("01.01.01")', v(false)],
  ['isSemver("1")', v(false)],
  ['isSemver("1.1")', v(false)],
  ['isSemver("", true)', v(false)],
  ['isSemver(" 1.0.0", true)', v(false)],
  ['isSemver("1. 0.0", true)', v(false)],
  ['isSemver("1.0.0 ", true)', v(false)],
  ['isSemver("v1.0.0", true)', v(true)],
  ['isSemver("01.01.01", true)', v(true)],
  ['isSemver("1", true)', v(true)],
  ['isSemver("1.1", true)', v(true)],
  ['semver("v01.01", true) == semver("1.1.0")', v(true)],
  ['semver("1.2.3") == semver("1.2.3")', v(true)],
  ['semver("1.2.3") == semver("1.0.0")', v(false)],
  ['semver("1.0.0").isLessThan(semver("1.2.3"))', v(true)],
  ['semver("1.0.0").isLessThan(semver("1.0.0"))', v(false)],
  ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', v(true)],
  ['semver("1.0.0").isGreaterThan(semver("1.0.0"))', v(false)],
  ['semver("1.2.3").compareTo(semver("1.2.3"))', v(0)],
  ['semver("1.0.0").compareTo(semver("1.2.3"))', v(-1)],
  ['semver("1.2.3").compareTo(semver("1.0.0"))', v(1)],
  ['semver("1.2.3").major()', v(1)],
  ['semver("1.2.3").minor()', v(2)],
  ['semver("1.2.3").patch()', v(3)],
  ['semver("01.0.0")', err('Major number must not contain leading zeroes "01"')],
  ['semver("1.0.x")', err('Invalid character(s) found in patch number "x"')],
  ['type(semver("1.2.3")) == kubernetes.Semver', v(true)],
];

// Go's url.ParseRequestURI is lenient where a browser's URL parser is not
const urls: Fact[] = [
  ["url('https:://kubernetes.io/').getScheme()", v('https')],
  ["url('https:://kubernetes.io/').getHostname()", v('')],
  ["url('https:://kubernetes.io/').getEscapedPath()", v('')],
  ["url('https://example.com/with space/').getEscapedPath()", v('/with%20space/')],
  ["url('https://example.com/?q=a b').getQuery()", v({ q: ['a b'] })],
  ["url('https://example.com/?a=1&b=2&a=3').getQuery()", v({ a: ['1', '3'], b: ['2'] })],
  ["url('https://example.com/?a=%zz&b=1;c=2&d=+x').getQuery()", v({ d: [' x'] })],
  ["url('HTTPS://[::1]:8443/p').getScheme()", v('https')],
  ["url('HTTPS://[::1]:8443/p').getHostname()", v('::1')],
  ["url('HTTPS://[::1]:8443/p').getPort()", v('8443')],
  ["url('/a/b%2Fc').getEscapedPath()", v('/a/b%2Fc')],
  ["url('a/b')", err('URL parse error during conversion from string: parse "a/b": invalid URI for request')],
  ["url('https://ex ample.com/')", err('URL parse error during conversion from string: parse "https://ex ample.com/": invalid character " " in host name')],
  ["url('https://example.com:8a/')", err('URL parse error during conversion from string: parse "https://example.com:8a/": invalid port ":8a" after host')],
  ["url('https://example.com/%zz')", err('URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"')],
  ["isURL('https://example.com/with space/')", v(true)],
  // checked with ParseRequestURI, read with Parse: the fragment is split off, `//host` is a host
  ["url('https://example.com/a?x=1#frag').getEscapedPath()", v('/a')],
  ["url('https://example.com/a?x=1#frag').getQuery()", v({ x: ['1'] })],
  ["url('//example.com/a').getHost()", v('example.com')],
  ["type(url('/a')) == kubernetes.URL", v(true)],
];

const optional: Fact[] = [
  ["optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00Z'))", v(null)],
  ["optional.ofNonZeroValue(timestamp('1970-01-01T00:00:00Z')).hasValue()", v(true)],
  ["optional.ofNonZeroValue(duration('0s')).hasValue()", v(false)],
];

const misc: Fact[] = [
  ["jsonpatch.escapeKey('k8s.io/my~label')", v('k8s.io~1my~0label')],
  ["format.named('portName').value().validate('http')", v(null)],
  ["format.portName().validate('-http')", v(['must not begin or end with a hyphen'])],
];

const regex: Fact[] = [
  ["'abc'.matches('[')", err('invalid matches argument')],
  ["'abc'.find(string('['))", err('Illegal regex: error parsing regexp: missing closing ]: `[`')],
  ["dyn([1.0, 2.0]).sum()", err('no such overload')],
];

function check([expression, expected]: Fact) {
  const s = evaluateCel({ expression, environment: 'admission' });
  if ('error' in expected) {
    expect(s.error?.split('\n')[0]?.replace(/^ERROR: <input>:\d+:\d+: /, '')).toBe(expected.error);
  } else {
    expect(s.error).toBeUndefined();
    expect(s.value).toEqual(expected.value);
  }
}

describe("Kubernetes' library value facts through the evaluations resource", () => {
  it.each(ip)('[API-CEL-082] ip: %s', (...f) => check(f));
  it.each(cidr)('cidr: %s', (...f) => check(f));
  it.each(semver)('semver: %s', (...f) => check(f));
  it.each(urls)('[API-CEL-030] [API-CEL-036] urls: %s', (...f) => check(f));
  it.each(optional)('[API-CEL-051] optionals: %s', (...f) => check(f));
  it.each(regex)('[API-CEL-026] [API-CEL-027] errors: %s', (...f) => check(f));
  it.each(misc)('jsonpatch and formats: %s', (...f) => check(f));
});
