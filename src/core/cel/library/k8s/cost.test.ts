// Kubernetes' library cost facts (k8s.io/apiserver pkg/cel/library cost_test.go):
// each row is an expression with the estimated [min, max] and the runtime cost
// kube-apiserver computes, checked through the evaluations resource. The
// library tests size strings and bytes the estimator cannot size as 0..12
// (their testCostEstimator); the `typeSizes` option of an evaluation does the same.
// Their programs are built without cel-go's OptOptimize (the API server's use it), so literals
// are charged here: `optimize: false`.
import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../../evaluations';

type Fact = [expression: string, min: number, max: number, runtime: number];

const LIT = {
  int: '[1, 2, 3, 4, 5]',
  uint: '[uint(1), uint(2), uint(3), uint(4), uint(5)]',
  double: '[1.0, 2.0, 3.0, 4.0, 5.0]',
  bool: '[false, true, false, true, false]',
  string: "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']",
  bytes: "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]",
  duration: "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]",
  timestamp:
    "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), " +
    "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), " +
    "timestamp('2011-01-05T00:00:00.000+01:00')]",
  str50: "'01234567890123456789012345678901234567890123456789'",
};

const lists: Fact[] = [];
for (const [l, min, max, rt] of [[LIT.int, 15, 15, 15], [LIT.uint, 20, 20, 20], [LIT.double, 15, 15, 15], [LIT.duration, 20, 20, 20]] as const) lists.push([`${l}.sum()`, min, max, rt]);
for (const op of ['.isSorted()', '.max()', '.min()']) {
  for (const [l, min, max, rt] of [
    [LIT.int, 15, 15, 15], [LIT.uint, 20, 20, 20], [LIT.double, 15, 15, 15], [LIT.bool, 15, 15, 15],
    [LIT.string, 15, 25, 15], [LIT.bytes, 25, 35, 25], [LIT.duration, 20, 20, 20], [LIT.timestamp, 20, 20, 20],
  ] as const) lists.push([`${l}${op}`, min, max, rt]);
}
for (const op of ['indexOf', 'lastIndexOf']) {
  for (const [l, p, min, max, rt] of [
    [LIT.int, '3', 15, 15, 15], [LIT.uint, 'uint(3)', 21, 21, 21], [LIT.double, '3.0', 15, 15, 15], [LIT.bool, 'true', 15, 15, 15],
    [LIT.string, "'x'", 15, 25, 15], [LIT.bytes, "bytes('x')", 26, 36, 26], [LIT.duration, "duration('3s')", 21, 21, 21],
    [LIT.timestamp, "timestamp('2011-01-03T00:00:00.000+01:00')", 21, 21, 21], [LIT.str50, "'123'", 5, 5, 5],
  ] as const) lists.push([`${l}.${op}(${p})`, min, max, rt]);
}

const urls: Fact[] = [
  ...['getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery'].map((f): Fact => [`url('https:://kubernetes.io/').${f}()`, 4, 4, 4]),
  ["url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 7, 9, 7],
  ["url('https:://kubernetes.io/') == url('http://x.b')", 5, 5, 5],
];

function ipFacts(): Fact[] {
  const out: Fact[] = [];
  for (const [ip, base] of [["ip('192.168.0.1')", 2], ["ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4]] as const) {
    out.push([ip, base, base, base]);
    for (const f of ['family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast']) out.push([`${ip}.${f}()`, base + 1, base + 1, base + 1]);
    out.push([`${ip} == ip('192.168.0.1')`, base + 3, base + 3, base + 3]);
  }
  out.push(["ip.isCanonical('192.168.0.1')", 3, 3, 3], ["ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8, 8, 8], ["ip.isCanonical('2001:db8::abcd')", 3, 3, 3]);
  for (const c of ["cidr('192.168.0.0/16')", "cidr('2001:db8::/32')"]) {
    out.push([c, 2, 2, 2]);
    for (const f of ['ip', 'prefixLength', 'masked']) out.push([`${c}.${f}()`, 3, 3, 3]);
    out.push([`${c} == cidr('2001:db8::/32')`, 5, 5, 5]);
  }
  const v4 = "cidr('192.168.0.0/16')";
  for (const [op, min, max, rt] of [
    [".containsCIDR(cidr('192.0.0.0/30'))", 5, 9, 5], [".containsCIDR(cidr('192.168.0.0/16'))", 5, 9, 5],
    [".containsCIDR('192.0.0.0/30')", 5, 9, 5], [".containsCIDR('192.168.0.0/16')", 5, 9, 5],
    [".containsIP(ip('192.0.0.1'))", 2, 5, 2], [".containsIP(ip('192.169.0.1'))", 3, 6, 3], [".containsIP(ip('192.169.169.250'))", 3, 6, 3],
    [".containsIP('192.0.0.1')", 2, 5, 2], [".containsIP('192.169.0.1')", 3, 6, 3],
  ] as const) out.push([v4 + op, 2 + min, 2 + max, 2 + rt]);
  const v6 = "cidr('2001:db8::/32')";
  for (const [op, min, max, rt] of [
    [".containsCIDR(cidr('2001:db8::/126'))", 5, 9, 5], [".containsCIDR(cidr('2001:db8::/32'))", 5, 9, 5],
    [".containsCIDR('2001:db8::/126')", 5, 9, 5], [".containsCIDR('2001:db8::/32')", 5, 9, 5],
    [".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 5, 8, 5], [".containsIP(ip('2001:db8::1'))", 3, 6, 3],
    [".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 5, 8, 5], [".containsIP('2001:db8::1')", 3, 6, 3],
  ] as const) out.push([v6 + op, 2 + min, 2 + max, 2 + rt]);
  return out;
}

const strings: Fact[] = [
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3, 3],
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 7, 9, 9],
  ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 3, 3, 3],
  ["'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 7, 9, 9],
  ["strings.quote('ABCDEFGHIJ abcdefghij')", 3, 3, 3],
  ["strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 7, 11, 9],
  ["'abc 123 def 123'.replace('123', '456')", 3, 3, 3],
  ["'abc 123 def 123'.replace('', 'x')", 3, 3, 3],
  ["'abc 123 def 123'.replace('123', '')", 3, 3, 3],
  ["'abc 123 def 123'.replace('123', '456', 1)", 3, 3, 3],
  ["'abc 123 def 123'.split(' ')", 3, 3, 3],
  ["'abc 123 def 123'.split(' ', 1)", 3, 3, 3],
  ["'abc 123 def 123'.substring(5)", 2, 2, 2],
  ["'abc 123 def 123'.substring(5, 8)", 2, 2, 2],
  ["'  abc 123 def 123  '.trim()", 2, 2, 2],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 11, 23, 15],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 10, 22, 13],
  ["'abc 123 def 123'.find('123')", 2, 2, 2],
  ["'abc 123 def 123'.findAll('123')", 2, 2, 2],
  ["'abc 123 def 123'.findAll('123', 1)", 2, 2, 2],
  ["jsonpatch.escapeKey('abc/def~ abc/def~')", 2, 2, 2],
];

const resourceChain = "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')";
const authz: Fact[] = [
  ["authorizer.path('/healthz')", 2, 2, 2],
  [resourceChain, 6, 6, 6],
  ["authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", 1821, 1821, 1821],
  ["authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", 1821, 1821, 1821],
  ["authorizer.path('/healthz').check('get').allowed()", 350003, 350003, 350003],
  [`${resourceChain}.check('create').allowed()`, 350007, 350007, 350007],
  [`${resourceChain}.check('create').errored()`, 350007, 350007, 350007],
  [`${resourceChain}.check('create').error()`, 350007, 350007, 350007],
];

const quantity: Fact[] = [
  ['quantity("12Mi")', 1, 1, 1],
  ['isQuantity("20")', 1, 1, 1],
  ['isQuantity("20M")', 1, 1, 1],
  ['quantity("200M") == quantity("200M")', 3, 3, 3],
  ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', 3, 6, 6],
  ['quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', 3, 9, 9],
  ['quantity("50M").isLessThan(quantity("50Mi"))', 3, 3, 3],
  ['quantity("50Mi").isGreaterThan(quantity("50M"))', 3, 3, 3],
  ['quantity("200M").compareTo(quantity("0.2G")) > 0', 4, 4, 4],
  ['quantity("50k").add(quantity("20")) == quantity("50.02k")', 5, 5, 5],
  ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', 5, 5, 5],
  ['quantity("50k").sub(20) == quantity("49980")', 4, 4, 4],
  ['quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', 6, 6, 6],
  ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', 7, 7, 7],
  ['quantity("50k").asInteger() > 0', 3, 3, 3],
  ['quantity("50").isInteger()', 2, 2, 2],
  ['quantity("50.703k").asApproximateFloat() > 0.0', 3, 3, 3],
];

const format: Fact[] = [
  ['format.named("dns1123subdomain")', 1, 1, 1],
  ['format.named("dns1123Subdomain").value().validate("my-name")', 34, 34, 17],
  ['format.named("dns1123Label").value().validate("my-name")', 34, 34, 10],
  ['format.named("dns1123Label").value() == format.named("dns1123Label").value()', 5, 11, 5],
];

const sets: Fact[] = [
  ['sets.contains([], [])', 21, 21, 21], ['sets.contains([1], [])', 21, 21, 21], ['sets.contains([1], [1])', 22, 22, 22],
  ['sets.contains([1], [1, 1])', 23, 23, 23], ['sets.contains([1, 1], [1])', 23, 23, 23], ['sets.contains([2, 1], [1])', 23, 23, 23],
  ['sets.contains([1, 2, 3, 4], [2, 3])', 29, 29, 29], ['sets.contains([1], [1.0, 1])', 23, 23, 23],
  ['sets.contains([1, 2], [2u, 2.0])', 25, 25, 25], ['sets.contains([1, 2u], [2, 2.0])', 25, 25, 25],
  ['sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', 30, 30, 30], ['sets.contains([[1], [2, 3]], [[2, 3.0]])', 53, 53, 53],
  ['!sets.contains([1], [2])', 23, 23, 23], ['!sets.contains([1], [1, 2])', 24, 24, 24], ['!sets.contains([1], ["1", 1])', 24, 24, 24],
  ['!sets.contains([1], [1.1, 1u])', 24, 24, 24],
  ['sets.equivalent([], [])', 21, 21, 21], ['sets.equivalent([1], [1])', 23, 23, 23], ['sets.equivalent([1], [1, 1])', 25, 25, 25],
  ['sets.equivalent([1, 1], [1])', 25, 25, 25], ['sets.equivalent([1], [1u, 1.0])', 25, 25, 25],
  ['sets.equivalent([1, 2, 3], [3u, 2.0, 1])', 39, 39, 39], ['sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])', 69, 69, 69],
  ['!sets.equivalent([2, 1], [1])', 26, 26, 26], ['!sets.equivalent([1], [1, 2])', 26, 26, 26],
  ['!sets.equivalent([1, 2], [2u, 2, 2.0])', 34, 34, 34], ['!sets.equivalent([1, 2], [1u, 2, 2.3])', 34, 34, 34],
  ['sets.intersects([1], [1])', 22, 22, 22], ['sets.intersects([1], [1, 1])', 23, 23, 23], ['sets.intersects([1, 1], [1])', 23, 23, 23],
  ['sets.intersects([2, 1], [1])', 23, 23, 23], ['sets.intersects([1], [1, 2])', 23, 23, 23], ['sets.intersects([1], [1.0, 2])', 23, 23, 23],
  ['sets.intersects([1, 2], [2u, 2, 2.0])', 27, 27, 27], ['sets.intersects([1, 2], [1u, 2, 2.3])', 27, 27, 27],
  ['sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])', 65, 65, 65],
  ['!sets.intersects([], [])', 22, 22, 22], ['!sets.intersects([1], [])', 22, 22, 22], ['!sets.intersects([1], [2])', 23, 23, 23],
  ['!sets.intersects([1], ["1", 2])', 24, 24, 24], ['!sets.intersects([1], [1.1, 2u])', 24, 24, 24],
];

const semver: Fact[] = [
  ['semver("1.0.0")', 1, 1, 1],
  ['semver("1234.56789012345.67890123456789")', 4, 4, 4],
  ['isSemver("1.0.0")', 1, 1, 1],
  ['isSemver("1234.56789012345.67890123456789")', 4, 4, 4],
  ['semver("1.2.3").major()', 2, 2, 2],
  ['semver("1.2.3").minor()', 2, 2, 2],
  ['semver("1.2.3").patch()', 2, 2, 2],
  ['semver("1.0.0").isLessThan(semver("1.1.0"))', 3, 3, 3],
  ['semver("1.1.0").isGreaterThan(semver("1.0.0"))', 3, 3, 3],
  ['semver("1.0.0").compareTo(semver("1.2.3"))', 3, 3, 3],
];

const twoVar: Fact[] = [
  ["{'a': 1, 'b': 2}.all(k, v, v > 0)", 37, 41, 41],
  ["{'a': 1, 'b': 2}.exists(k, v, v > 0)", 39, 43, 40],
  ["{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 38, 40, 40],
  ["{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71, 71, 71],
  ["{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 67, 75, 75],
  ["{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131, 131, 131],
  ["{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})", 67, 135, 135],
  ['[1, 2].all(i, v, v > 0)', 17, 21, 21],
  ['[1, 2].exists(i, v, v > 0)', 19, 23, 20],
  ['[1, 2].existsOne(i, v, v > 0)', 18, 20, 20],
  ['[1, 2].transformList(i, v, v + 1)', 49, 49, 49],
  ['[1, 2].transformList(i, v, v < 5, v + 1)', 27, 53, 53],
];

const TEST_SIZES = { string: { min: 0, max: 12 }, bytes: { min: 0, max: 12 } };

function check([expression, min, max, runtime]: Fact, environment: 'admission' | 'plain' = 'admission') {
  const s = evaluateCel({ expression, environment, typeSizes: TEST_SIZES, optimize: false });
  expect(s.error).toBeUndefined();
  expect({ estimated: s.estimatedCost, cost: s.cost }).toEqual({ estimated: { min, max }, cost: runtime });
}

describe("Kubernetes' library cost facts (cost_test.go) through the evaluations resource", () => {
  it.each(lists)('[API-CEL-082] [API-CEL-019] [API-CEL-025] lists: %s', (...f) => check(f));
  it.each(urls)('[API-CEL-082] [API-CEL-031] urls: %s', (...f) => check(f));
  it.each(ipFacts())('[API-CEL-082] ip and cidr: %s', (...f) => check(f));
  it.each(strings)('[API-CEL-082] [API-CEL-085] strings and regex: %s', (...f) => check(f));
  it.each(authz)('[API-CEL-082] [API-VAP-003] authorizer: %s', (...f) => check(f));
  it.each(quantity)('[API-CEL-082] [API-CEL-038] quantity: %s', (...f) => check(f));
  it.each(format)('[API-CEL-082] format: %s', (...f) => check(f));
  // mixed-type list literals: the API server's environments reject them (homogeneous aggregate literals), the plain one does not
  it.each(sets)('[API-CEL-082] sets: %s', (...f) => check(f, 'plain'));
  it.each(semver)('[API-CEL-082] semver: %s', (...f) => check(f));
  it.each(twoVar)('[API-CEL-082] two-variable comprehensions: %s', (...f) => check(f));
});
