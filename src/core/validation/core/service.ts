/**
 * Service validation (pkg/apis/core/validation ValidateService and
 * ValidateServiceUpdate): ports, protocols, names, types and what each type
 * allows, clusterIP(s) and IP families, nodePorts, selector, session
 * affinity, external IPs and traffic policies, and the fields an update
 * may not change. Field paths, error types and texts as kube-apiserver's.
 */
import { isObject, type KubeObject } from '../../api/types';
import { duplicate, forbidden, goStringSlice, invalid, notSupported, required, type FieldError } from '../../errors';
import { validateLabels } from '../labels';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../names';
import type { KindValidation } from '../kinds';

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const affinities = ['ClientIP', 'None'];
const families = ['IPv4', 'IPv6'];
const familyPolicies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const trafficPolicies = ['Cluster', 'Local'];

const portRangeMsg = 'must be between 1 and 65535, inclusive';
const ipMsg = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const cidrMsg = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

type Spec = Record<string, unknown>;
type Port = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : []);

function specOf(svc: KubeObject): Spec {
  return isObject(svc['spec']) ? svc['spec'] : {};
}

function portsOf(spec: Spec): Port[] {
  return Array.isArray(spec['ports']) ? spec['ports'].map((p) => (isObject(p) ? p : {})) : [];
}

function isHeadless(spec: Spec): boolean {
  const ips = strings(spec['clusterIPs']);
  return ips.length === 1 && ips[0] === 'None';
}

const validPortNum = (p: unknown) => typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;

/** IsValidIP (IPv4 dotted quad without leading zeros, or IPv6). */
export function isValidIP(ip: string): boolean {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(ip)) return true;
  if (!ip.includes(':')) return false;
  try {
    new URL(`http://[${ip}]/`);
    return true;
  } catch {
    return false;
  }
}

function isIPv6(ip: string): boolean {
  return ip.includes(':');
}

function isValidCIDR(value: string): boolean {
  const [ip, bits, extra] = value.split('/');
  if (extra !== undefined || ip === undefined || bits === undefined || !/^\d{1,3}$/.test(bits) || !isValidIP(ip)) return false;
  return Number(bits) <= (isIPv6(ip) ? 128 : 32);
}

/** IsValidPortName: an IANA_SVC_NAME. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName (targetPort). */
function validateTargetPort(v: unknown, fld: string): FieldError[] {
  if (typeof v === 'number') return validPortNum(v) ? [] : [invalid(fld, v, portRangeMsg)];
  if (typeof v === 'string') return portNameErrors(v).map((m) => invalid(fld, v, m));
  return [];
}

/** %#v of the (protocol, port) key a duplicate port is reported with. */
function servicePortKey(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:"${protocol}", AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

function validateServicePort(p: Port, requireName: boolean, names: Set<string>, fld: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p['name']);
  if (requireName && !name) errs.push(required(`${fld}.name`));
  else if (name) {
    for (const m of isDNS1123Label(name)) errs.push(invalid(`${fld}.name`, name, m));
    if (names.has(name)) errs.push(duplicate(`${fld}.name`, name));
    else names.add(name);
  }
  if (!validPortNum(p['port'])) errs.push(invalid(`${fld}.port`, num(p['port']), portRangeMsg));
  const protocol = str(p['protocol']);
  if (!protocol) errs.push(required(`${fld}.protocol`));
  else if (!protocols.includes(protocol)) errs.push(notSupported(`${fld}.protocol`, protocol, protocols));
  errs.push(...validateTargetPort(p['targetPort'], `${fld}.targetPort`));
  if (typeof p['appProtocol'] === 'string') {
    for (const m of isQualifiedName(p['appProtocol'])) errs.push(invalid(`${fld}.appProtocol`, p['appProtocol'], m));
  }
  return errs;
}

/** ValidateServiceClusterIPsRelatedFields */
function validateClusterIPsRelatedFields(spec: Spec): FieldError[] {
  if (spec['type'] === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const clusterIP = str(spec['clusterIP']);
  const ips = strings(spec['clusterIPs']);
  const ipsValue = goStringSlice(ips);
  const withIPs = (e: FieldError): FieldError => ({ ...e, valueText: ipsValue });
  if (clusterIP) {
    if (ips.length === 0) errs.push(required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP) errs.push(withIPs(invalid('spec.clusterIPs', null, 'first value must match `clusterIP`')));
  } else if (ips.length) {
    errs.push(withIPs(invalid('spec.clusterIPs', null, 'must be empty when `clusterIP` is not specified')));
  }
  const fams = strings(spec['ipFamilies']);
  const seen = new Set<string>();
  fams.forEach((f, i) => {
    if (!families.includes(f)) errs.push(notSupported(`spec.ipFamilies[${i}]`, f, families));
    if (seen.has(f)) errs.push(duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec['ipFamilyPolicy'];
  if (policy !== undefined && policy !== null && !familyPolicies.includes(str(policy))) errs.push(notSupported('spec.ipFamilyPolicy', policy, familyPolicies));
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        invalidIPs = true;
        errs.push(withIPs(invalid('spec.clusterIPs', null, "'None' must be the first and only value")));
      }
      return;
    }
    if (!isValidIP(ip)) {
      invalidIPs = true;
      errs.push(invalid(`spec.clusterIPs[${i}]`, ip, ipMsg));
    }
  });
  if (ips.length > 2) errs.push(withIPs(invalid('spec.clusterIPs', null, 'may only hold up to 2 values')));
  if (invalidIPs) return errs;
  if (ips.length > 1 && isIPv6(ips[0]!) === isIPv6(ips[1]!)) {
    errs.push(withIPs(invalid('spec.clusterIPs', null, 'may specify no more than one IP for each IP family')));
  }
  if (!isHeadless(spec) && ips.length && fams.length) {
    ips.forEach((ip, i) => {
      if (i >= fams.length) return;
      if (fams[i] === 'IPv4' && isIPv6(ip)) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (fams[i] === 'IPv6' && !isIPv6(ip)) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** validateClientIPAffinityConfig */
function validateClientIPAffinityConfig(cfg: unknown): FieldError[] {
  const fld = 'spec.sessionAffinityConfig';
  if (!isObject(cfg)) return [required(fld, 'when session affinity type is ClientIP')];
  if (!isObject(cfg['clientIP'])) return [required(`${fld}.clientIP`, 'when session affinity type is ClientIP')];
  const t = cfg['clientIP']['timeoutSeconds'];
  if (t === undefined || t === null) return [required(`${fld}.clientIP.timeoutSeconds`, 'when session affinity type is ClientIP')];
  if (typeof t === 'number' && !(t > 0 && t <= 86400)) return [invalid(`${fld}.clientIP.timeoutSeconds`, t, 'must be greater than 0 and less than 86400')];
  return [];
}

function externallyAccessible(spec: Spec): boolean {
  const t = spec['type'];
  return t === 'NodePort' || t === 'LoadBalancer' || (t === 'ClusterIP' && strings(spec['externalIPs']).length > 0);
}

/** ValidateService, after ValidateObjectMeta (which the store runs). */
export function validateService(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(svc);
  const type = str(spec['type']);
  const ports = portsOf(spec);
  const headless = isHeadless(spec);

  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(required('spec.ports'));
  const ips = strings(spec['clusterIPs']);
  if (type === 'LoadBalancer' && headless) errs.push(invalid('spec.clusterIPs[0]', ips[0], "may not be set to 'None' for LoadBalancer services"));
  if (type === 'NodePort' && headless) errs.push(invalid('spec.clusterIPs[0]', ips[0], "may not be set to 'None' for NodePort services"));
  if (type === 'ExternalName') {
    if (ips.length) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (strings(spec['ipFamilies']).length) errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec['ipFamilyPolicy'] !== undefined && spec['ipFamilyPolicy'] !== null) errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = str(spec['externalName']).replace(/\.$/, '');
    if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid('spec.externalName', cname, m));
    else errs.push(required('spec.externalName'));
  }

  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));

  if (spec['selector'] !== undefined && spec['selector'] !== null) errs.push(...validateLabels(spec['selector'], 'spec.selector'));

  const affinity = str(spec['sessionAffinity']);
  if (!affinity) errs.push(required('spec.sessionAffinity'));
  else if (!affinities.includes(affinity)) errs.push(notSupported('spec.sessionAffinity', affinity, affinities));
  if (affinity === 'ClientIP') errs.push(...validateClientIPAffinityConfig(spec['sessionAffinityConfig']));
  else if (affinity === 'None' && spec['sessionAffinityConfig'] !== undefined && spec['sessionAffinityConfig'] !== null) {
    errs.push(forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }

  errs.push(...validateClusterIPsRelatedFields(spec));

  strings(spec['externalIPs']).forEach((ip, i) => {
    if (!isValidIP(ip)) errs.push(invalid(`spec.externalIPs[${i}]`, ip, ipMsg));
    else if (ip === '0.0.0.0' || ip === '::' || ip.startsWith('127.') || ip === '::1' || ip.startsWith('169.254.') || ip.startsWith('224.')) {
      errs.push(invalid(`spec.externalIPs[${i}]`, ip, nonSpecialIPMessage(ip)));
    }
  });

  if (!type) errs.push(required('spec.type'));
  else if (!serviceTypes.includes(type)) errs.push(notSupported('spec.type', type, serviceTypes));

  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (num(p['nodePort']) !== 0) errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const np = num(p['nodePort']);
    if (np === 0) return;
    const key = `${str(p['protocol'])}/${np}`;
    if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, np));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p['protocol'])}/${num(p['port'])}`;
    if (portKeys.has(key)) errs.push({ ...duplicate(`spec.ports[${i}]`, null), valueText: servicePortKey(str(p['protocol']), num(p['port'])) });
    portKeys.add(key);
  });

  const ranges = strings(spec['loadBalancerSourceRanges']);
  if (ranges.length) {
    if (type !== 'LoadBalancer') errs.push(forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => {
      const v = r.trim();
      if (!isValidCIDR(v)) errs.push(invalid(`spec.LoadBalancerSourceRanges[${i}]`, v, cidrMsg));
    });
  }
  if (spec['allocateLoadBalancerNodePorts'] !== undefined && spec['allocateLoadBalancerNodePorts'] !== null && type !== 'LoadBalancer') {
    errs.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && (spec['allocateLoadBalancerNodePorts'] === undefined || spec['allocateLoadBalancerNodePorts'] === null)) {
    errs.push(required('allocateLoadBalancerNodePorts'));
  }
  if (spec['loadBalancerClass'] !== undefined && spec['loadBalancerClass'] !== null && type !== 'LoadBalancer') {
    errs.push(forbidden('spec.loadBalancerClass', 'may only be used when `type` is `LoadBalancer`'));
  }

  const etp = str(spec['externalTrafficPolicy']);
  if (!externallyAccessible(spec)) {
    if (etp) errs.push(invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (!etp) errs.push(required('spec.externalTrafficPolicy'));
  else if (!trafficPolicies.includes(etp)) errs.push(notSupported('spec.externalTrafficPolicy', etp, trafficPolicies));
  const hc = num(spec['healthCheckNodePort']);
  if (!(type === 'LoadBalancer' && etp === 'Local')) {
    if (hc !== 0) errs.push(invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) errs.push(required('spec.healthCheckNodePort'));
  else if (!validPortNum(hc)) errs.push(invalid('spec.healthCheckNodePort', hc, portRangeMsg));

  const itp = spec['internalTrafficPolicy'];
  if (itp === undefined || itp === null) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(required('spec.internalTrafficPolicy'));
  } else if (!trafficPolicies.includes(str(itp))) errs.push(notSupported('spec.internalTrafficPolicy', itp, trafficPolicies));

  const td = spec['trafficDistribution'];
  if (td !== undefined && td !== null && td !== 'PreferClose') errs.push(notSupported('spec.trafficDistribution', td, ['PreferClose']));
  return errs;
}

function nonSpecialIPMessage(ip: string): string {
  if (ip === '0.0.0.0' || ip === '::') return 'may not be unspecified (0.0.0.0)';
  if (ip.startsWith('127.') || ip === '::1') return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (ip.startsWith('169.254.')) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
}

/** validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies on a single-stack server. */
function validateClusterIPsUpdate(spec: Spec, oldSpec: Spec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec['type'] === 'ExternalName' || oldSpec['type'] === 'ExternalName') return errs;
  const ips = strings(spec['clusterIPs']);
  const oldIPs = strings(oldSpec['clusterIPs']);
  const headless = isHeadless(spec);
  const oldHeadless = isHeadless(oldSpec);
  const ipsValue = goStringSlice(ips);
  if (!(headless && oldHeadless)) {
    if (oldIPs.length === ips.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== ips[i]) errs.push({ ...invalid(`spec.clusterIPs[${i}]`, null, 'may not change once set'), valueText: ipsValue });
      });
    } else if (oldIPs.length > ips.length) {
      if (ips.length === 0) errs.push({ ...invalid('spec.clusterIPs[0]', null, 'primary clusterIP can not be unset'), valueText: ipsValue });
      if (oldIPs.length && ips.length && ips[0] !== oldIPs[0]) errs.push({ ...invalid('spec.clusterIPs[0]', null, 'may not change once set'), valueText: ipsValue });
    } else if (oldIPs.length && ips[0] !== oldIPs[0]) {
      errs.push({ ...invalid('spec.clusterIPs[0]', null, 'may not change once set'), valueText: ipsValue });
    }
  }
  if (headless === oldHeadless && !headless) {
    const fams = strings(spec['ipFamilies']);
    const oldFams = strings(oldSpec['ipFamilies']);
    if (fams.length === oldFams.length && oldFams.some((f, i) => f !== fams[i])) {
      errs.push({ ...invalid('spec.ipFamilies[0]', null, 'may not change once set'), valueText: `[]core.IPFamily{${fams.map((f) => `"${f}"`).join(', ')}}` });
    }
  }
  return errs;
}

export const serviceValidation: KindValidation = {
  validate(obj, ctx) {
    return ctx.subresource === 'status' ? [] : validateService(obj);
  },
  validateUpdate(obj, old, ctx) {
    if (ctx.subresource === 'status') return [];
    const spec = specOf(obj);
    const oldSpec = specOf(old);
    const errs = validateClusterIPsUpdate(spec, oldSpec);
    if (oldSpec['type'] === 'LoadBalancer' && spec['type'] === 'LoadBalancer' && oldSpec['externalTrafficPolicy'] === 'Local' && spec['externalTrafficPolicy'] === 'Local') {
      if (num(spec['healthCheckNodePort']) !== num(oldSpec['healthCheckNodePort'])) errs.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
    }
    if (oldSpec['type'] === 'LoadBalancer' && spec['type'] === 'LoadBalancer' && !same(spec['loadBalancerClass'], oldSpec['loadBalancerClass'])) {
      errs.push({ ...invalid('spec.loadBalancerClass', null, 'may not change once set'), valueText: goPtrString(spec['loadBalancerClass']) });
    }
    return [...errs, ...validateService(obj)];
  },
};

const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);
const goPtrString = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : '"null"');
