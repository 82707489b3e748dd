/**
 * Command-line flags in kube-apiserver's style: `--name=value`, `--name value`,
 * and bare booleans (`--tls`). Unknown flags are an error, as in cobra.
 */
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultFeatureGates, parseFeatureGates, type FeatureGates } from '../src/core/features';
import { parseAdmissionPlugins } from './admissionFlags';
import { parseServiceCIDR } from '../src/core/registry/core/ipallocator';
import { parsePortRange } from '../src/core/registry/core/portallocator';
import { authnBooleanFlags, authnFlagHelp, authnFlagNames, parseAuthnFlag, type AuthnFlags } from './authFlags';
import type { AuthorizationFlags } from './authorization';
import { clusterSigningFlagHelp, clusterSigningFlagNames, parseClusterSigningFlag, type ClusterSigningFlags } from './clusterSigning';
import { defaultEtcdFlags, etcdBooleanFlags, etcdFlagHelp, etcdFlagNames, parseEtcdFlag, validateEtcdFlags, type EtcdFlags } from './etcdFlags';

export interface HostFlags extends AuthorizationFlags {
  port: number;
  bindAddress: string;
  dataDir: string;
  store: 'sqlite' | 'memory' | 'etcd';
  /** --etcd-servers, --etcd-prefix, TLS files, --storage-media-type, --leader-elect*; absent when none was given. */
  etcd?: EtcdFlags;
  tls: boolean;
  securePort: number;
  /** --tls-cert-file / --tls-private-key-file: the serving certificate instead of the generated one (with --tls). */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  runtimeConfig?: string;
  /** --feature-gates=Name=true,... */
  featureGates?: Partial<FeatureGates>;
  /** --show-hidden-metrics-for-version (checked by the server: only the previous minor). */
  showHiddenMetricsForVersion?: string;
  /** Warnings logged at start (GA or deprecated feature gates set). */
  warnings?: string[];
  /** Every flag's value as given (defaults filled in by the host), for /flagz. */
  given?: Record<string, string>;
  /** Watch history window and continue-token lifetime in ms, as --etcd-compaction-interval sets it. */
  etcdCompactionIntervalMs?: number;
  /** --advertise-address: the address the `kubernetes` Service's endpoints list; chosen from the host's interfaces when absent. */
  advertiseAddress?: string;
  /** --service-cluster-ip-range and --service-node-port-range, checked at parse time. */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** --enable-admission-plugins / --disable-admission-plugins (names checked). */
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  /** --admission-control-config-file: an AdmissionConfiguration (kubesim reads its PodSecurity entry). */
  admissionControlConfigFile?: string;
  /** --fake-clock: the server clock only moves when POST /debug/kubesim/clock?advance= says so; from this time. */
  fakeClock?: Date;
  /** --livez-grace-period and --shutdown-delay-duration in ms (both default 0s). */
  livezGracePeriodMs?: number;
  /** --event-ttl: how long an Event lasts after its last write. */
  eventTtlMs?: number;
  /** --simulated-nodes: how many simulated nodes (with kubelets and a scheduler) run pods; 0 by default. */
  simulatedNodes?: number;
  shutdownDelayMs?: number;
  /** --max-request-bytes: the embedded store's largest write, as etcd's flag (default 1.5 MiB). */
  maxRequestBytes?: number;
  /** kube-controller-manager's --max-endpoints-per-slice (1 to 1000, default 100). */
  maxEndpointsPerSlice?: number;
  /** kube-controller-manager's --mirroring-max-endpoints-per-subset (1 to 1000, default 1000). */
  mirroringMaxEndpointsPerSubset?: number;
  /** kube-controller-manager's --use-service-account-credentials (default false). */
  useServiceAccountCredentials?: boolean;
  help: boolean;
  /** Authentication flags (--token-auth-file, --service-account-*, ...); absent when none was given. */
  authn?: AuthnFlags;
  /** kube-controller-manager's --cluster-signing-cert-file, -key-file and -duration; absent when none was given. */
  clusterSigning?: ClusterSigningFlags;
}

export const flagHelp = `kubesim: a Kubernetes API server (Node host)

Flags:
      --advertise-address ip           address the kubernetes Service's Endpoints and EndpointSlice list (default: --bind-address
                                       unless it is a loopback or unspecified address, then the host's first non-loopback IPv4)
      --bind-address string            address to listen on (default "127.0.0.1")
      --data-dir string                directory for the SQLite store, TLS files and kubeconfig (default "~/.kubesim")
      --etcd-compaction-interval dur   watch history window and continue token lifetime (default "5m")
      --event-ttl duration             how long an Event lasts after its last write (default 1h0m0s)
      --livez-grace-period duration    time after start during which /livez excuses unfinished post-start hooks (default 0s)
      --shutdown-delay-duration duration  time to keep serving after SIGTERM while /readyz fails (default 0s)
      --simulated-nodes int            run this many simulated nodes (node-1 ...), each with a kubelet, and a scheduler placing pods on them,
                                       so pods are bound, get IPs and run (default 0: no nodes, pods stay Pending)
      --fake-clock[=time]              a clock that moves only when POST /debug/kubesim/clock?advance=30s says so, from now or the RFC 3339 time given
      --max-request-bytes int          largest value the embedded store writes, as etcd's flag (default 1572864)
      --max-endpoints-per-slice int    most endpoints the endpointslice controller puts in one EndpointSlice (default 100)
      --mirroring-max-endpoints-per-subset int
                                       most addresses of one Endpoints subset the endpointslice mirroring controller mirrors (default 1000)
      --use-service-account-credentials
                                       each controller acts as its own ServiceAccount in kube-system (deployment-controller, ...),
                                       with only the system:controller:<name> role's permissions (default false)
      --feature-gates mapStringBool    gates to turn on or off, e.g. "APIResponseCompression=false,NativeHistograms=true"; known gates:
                                       ${Object.keys(defaultFeatureGates).sort().join(', ')}
      --port int                       HTTP port (default 8080; 0 picks a free port)
      --runtime-config string          enable or disable API group versions (e.g. "batch/v1=false,api/beta=true")
      --secure-port int                HTTPS port when --tls is set (default 6443; 0 picks a free port)
      --service-cluster-ip-range string  CIDR the ClusterIPs of Services come from (default "10.96.0.0/12")
      --service-node-port-range portRange  ports NodePort Services get (default 30000-32767)
      --show-hidden-metrics-for-version string  the previous minor version, to show metrics hidden in this release again
      --store string                   sqlite, memory or etcd (default "sqlite")
      --tls                            also serve HTTPS with a self-signed certificate generated into --data-dir
      --tls-cert-file string           serving certificate (PEM) for --tls instead of the generated one, with --tls-private-key-file
      --tls-private-key-file string    its key; also verifies service account tokens when --service-account-key-file is unset
      --authorization-mode strings     ordered authorization modes: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node (default "AlwaysAllow")
      --authorization-config string    AuthorizationConfiguration file (apiserver.config.k8s.io/v1); not with --authorization-mode
      --authorization-policy-file str  ABAC policy file (one JSON policy per line), with --authorization-mode=ABAC
      --enable-admission-plugins strings   admission plugins to turn on beyond the defaults (NodeRestriction)
      --disable-admission-plugins strings  admission plugins to turn off
      --admission-control-config-file str  AdmissionConfiguration file (apiserver.config.k8s.io/v1): PodSecurity's defaults and exemptions
      --authorization-webhook-config-file str  kubeconfig of the Webhook mode's service; --authorization-webhook-version (v1beta1),
                                       --authorization-webhook-cache-authorized-ttl (5m), --authorization-webhook-cache-unauthorized-ttl (30s)
  -h, --help                           this help

etcd flags (--store=etcd: several hosts over one etcd, as kube-apiserver replicas):
${etcdFlagHelp}
Authentication flags:
${authnFlagHelp}
Certificate signing flags (kube-controller-manager's csrsigning controller):
${clusterSigningFlagHelp}`;

export class FlagError extends Error {}

/** A Go duration as flags take it (`5m`, `90s`, `1h30m`), in milliseconds. */
export function parseDuration(value: string, flag = 'etcd-compaction-interval'): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed += m[0].length;
  }
  if (!value || consumed !== value.length) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${flag}" flag: time: invalid duration ${JSON.stringify(value)}`);
  return total;
}

export function parseFlags(argv: string[]): HostFlags {
  const flags: HostFlags = {
    port: 8080,
    bindAddress: '127.0.0.1',
    dataDir: join(homedir(), '.kubesim'),
    store: 'sqlite',
    tls: false,
    securePort: 6443,
    help: false,
  };
  const booleans = new Set(['tls', 'help', 'fake-clock', 'use-service-account-credentials', ...authnBooleanFlags, ...etcdBooleanFlags]);
  const known = new Set(['port', 'secure-port', 'bind-address', 'advertise-address', 'data-dir', 'store', 'tls', 'tls-cert-file', 'tls-private-key-file', 'help', 'runtime-config', 'etcd-compaction-interval', 'feature-gates', 'livez-grace-period', 'event-ttl', 'simulated-nodes', 'shutdown-delay-duration', 'show-hidden-metrics-for-version',
    'service-cluster-ip-range', 'service-node-port-range', 'authorization-mode', 'authorization-config', 'authorization-policy-file',
    'authorization-webhook-config-file', 'authorization-webhook-version', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl',
    'enable-admission-plugins', 'disable-admission-plugins', 'admission-control-config-file', 'fake-clock', 'max-request-bytes', 'max-endpoints-per-slice', 'mirroring-max-endpoints-per-subset', 'use-service-account-credentials']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}`);
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (!known.has(name) && !authnFlagNames.has(name) && !etcdFlagNames.has(name) && !clusterSigningFlagNames.has(name)) throw new FlagError(`unknown flag: --${name}`);
    if (value === undefined) {
      if (booleans.has(name)) value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`flag needs an argument: --${name}`);
      }
    }
    (flags.given ??= {})[name] = value;
    switch (name) {
      case 'port':
      case 'secure-port': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag`);
        if (name === 'port') flags.port = n;
        else flags.securePort = n;
        break;
      }
      case 'max-request-bytes': {
        const n = Number(value);
        if (!Number.isInteger(n) || n <= 0) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--max-request-bytes" flag: must be a positive integer`);
        flags.maxRequestBytes = n;
        break;
      }
      case 'max-endpoints-per-slice':
      case 'mirroring-max-endpoints-per-subset': {
        // EndpointSliceControllerOptions.Validate's and EndpointSliceMirroringControllerOptions.Validate's bounds.
        const n = Number(value);
        if (!/^-?\d+$/.test(value)) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
        if (n < 1) throw new FlagError(`${name} must be greater than or equal to 1, got ${n}`);
        if (n > 1000) throw new FlagError(`${name} must be less than or equal to 1000, got ${n}`);
        if (name === 'max-endpoints-per-slice') flags.maxEndpointsPerSlice = n;
        else flags.mirroringMaxEndpointsPerSubset = n;
        break;
      }
      case 'bind-address':
        flags.bindAddress = value;
        break;
      case 'data-dir':
        flags.dataDir = value;
        break;
      case 'store':
        if (value !== 'sqlite' && value !== 'memory' && value !== 'etcd') throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--store" flag: must be sqlite, memory or etcd`);
        flags.store = value;
        break;
      case 'use-service-account-credentials': {
        // strconv.ParseBool's spellings.
        const parsed = ({ '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false } as Record<string, boolean>)[value];
        if (parsed === undefined) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
        flags.useServiceAccountCredentials = parsed;
        break;
      }
      case 'tls':
      case 'help':
        flags[name] = value !== 'false';
        break;
      case 'tls-cert-file':
        flags.tlsCertFile = value;
        break;
      case 'tls-private-key-file':
        flags.tlsPrivateKeyFile = value;
        break;
      case 'runtime-config':
        flags.runtimeConfig = value;
        break;
      case 'show-hidden-metrics-for-version':
        flags.showHiddenMetricsForVersion = value;
        break;
      case 'feature-gates':
        try {
          flags.featureGates = { ...flags.featureGates, ...parseFeatureGates(value, (w) => (flags.warnings ??= []).push(w)) };
        } catch (e) {
          throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--feature-gates" flag: ${(e as Error).message}`);
        }
        break;
      case 'advertise-address':
        if (!isIP(value)) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--advertise-address" flag: invalid IP address`);
        flags.advertiseAddress = value;
        break;
      case 'service-cluster-ip-range':
        try {
          parseServiceCIDR(value);
        } catch (e) {
          throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--service-cluster-ip-range" flag: ${(e as Error).message}`);
        }
        flags.serviceClusterIPRange = value;
        break;
      case 'service-node-port-range':
        try {
          parsePortRange(value);
        } catch (e) {
          throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--service-node-port-range" flag: ${(e as Error).message}`);
        }
        flags.serviceNodePortRange = value;
        break;
      case 'authorization-mode':
        flags.authorizationModes = value;
        break;
      case 'authorization-config':
        flags.authorizationConfig = value;
        break;
      case 'authorization-policy-file':
        flags.authorizationPolicyFile = value;
        break;
      case 'authorization-webhook-config-file':
        flags.authorizationWebhookConfigFile = value;
        break;
      case 'authorization-webhook-version':
        flags.authorizationWebhookVersion = value;
        break;
      case 'authorization-webhook-cache-authorized-ttl':
        flags.authorizationWebhookCacheAuthorizedTTL = value;
        break;
      case 'authorization-webhook-cache-unauthorized-ttl':
        flags.authorizationWebhookCacheUnauthorizedTTL = value;
        break;
      case 'admission-control-config-file':
        flags.admissionControlConfigFile = value;
        break;
      case 'enable-admission-plugins':
      case 'disable-admission-plugins':
        try {
          const plugins = parseAdmissionPlugins(name, value);
          if (name === 'enable-admission-plugins') flags.enableAdmissionPlugins = plugins;
          else flags.disableAdmissionPlugins = plugins;
        } catch (e) {
          throw new FlagError((e as Error).message);
        }
        break;
      case 'etcd-compaction-interval':
        flags.etcdCompactionIntervalMs = parseDuration(value);
        break;
      case 'fake-clock': {
        if (value === 'false') {
          delete flags.fakeClock;
          break;
        }
        const start = value === 'true' ? new Date() : new Date(value);
        if (Number.isNaN(start.getTime())) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--fake-clock" flag: not an RFC 3339 time`);
        flags.fakeClock = start;
        break;
      }
      case 'livez-grace-period':
        flags.livezGracePeriodMs = parseDuration(value, name);
        break;
      case 'event-ttl':
        flags.eventTtlMs = parseDuration(value, name);
        break;
      case 'simulated-nodes': {
        const n = Number(value);
        if (!/^\d+$/.test(value) || n > 100) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--simulated-nodes" flag: a whole number from 0 to 100`);
        flags.simulatedNodes = n;
        break;
      }
      case 'shutdown-delay-duration':
        flags.shutdownDelayMs = parseDuration(value, name);
        break;
      default:
        if (etcdFlagNames.has(name)) {
          try {
            parseEtcdFlag((flags.etcd ??= defaultEtcdFlags()), name, value, parseDuration);
          } catch (e) {
            throw e instanceof FlagError ? e : new FlagError((e as Error).message);
          }
          break;
        }
        if (clusterSigningFlagNames.has(name) && parseClusterSigningFlag((flags.clusterSigning ??= {}), name, value, parseDuration)) break;
        if (parseAuthnFlag((flags.authn ??= {}), name, value)) break;
        throw new FlagError(`unknown flag: --${name}`);
    }
  }
  try {
    validateEtcdFlags(flags.store, flags.etcd);
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
  return flags;
}
