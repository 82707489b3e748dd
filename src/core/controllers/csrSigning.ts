/**
 * The csrsigning controller (kube-controller-manager's
 * pkg/controller/certificates/signer): an approved, not failed, not yet
 * issued CertificateSigningRequest for one of the kubernetes.io signers it
 * runs gets status.certificate, signed by the cluster signing CA; a request
 * the signer refuses gets a Failed condition (SignerValidationFailure) with
 * the signer's reason. Other signers' requests are left to their own
 * signers. The certificate lives min(spec.expirationSeconds, at least 10
 * minutes; --cluster-signing-duration, 1 year by default). One CA serves
 * every signer, or each signer has its own (kube-controller-manager's
 * --cluster-signing-<signer>-cert-file flags) and those without one are not run.
 */
import type { Pkcs10CertificateRequest } from '@peculiar/x509';
import { formatTime, type KubeObject } from '../api/types';
import { newNotFound, StatusError } from '../errors';
import { parseCSR } from '../validation/certificates';
import { CertificateAuthority, subjectAltNames, type ClusterSigningCA } from './certificateAuthority';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

export const defaultClusterSigningDurationMs = 365 * 24 * 3600_000;
const minimumDurationMs = 10 * 60_000;

/** What the signers look at in a request. */
interface Request {
  organizations: string[];
  commonName: string;
  sans: { type: string; value: string }[];
}

/** What a signer says of a request meant for it: undefined accepts, a string is why it refuses. */
type SignerCheck = (req: Request, usages: string[]) => string | undefined;

const sameSet = (a: string[], b: string[]) => new Set(a).size === new Set(b).size && b.every((x) => a.includes(x));
const onlyNodes = (req: Request) => req.organizations.length === 1 && req.organizations[0] === 'system:nodes';
const sanCount = (req: Request, type: string) => req.sans.filter((n) => n.type === type).length;

const kubeletServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const kubeletClientUsages = ['digital signature', 'key encipherment', 'client auth'];

/** ValidateKubeletServingCSR. */
function kubeletServing(req: Request, usages: string[]): string | undefined {
  if (!onlyNodes(req)) return 'subject organization is not system:nodes';
  if (!sanCount(req, 'dns') && !sanCount(req, 'ip')) return 'DNS or IP subjectAltName is required';
  if (sanCount(req, 'email')) return 'Email subjectAltNames are not allowed';
  if (sanCount(req, 'url')) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, kubeletServingUsages) && !sameSet(usages, ['digital signature', 'server auth'])) return `usages did not match [${[...kubeletServingUsages].sort().join(' ')}]`;
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** ValidateKubeletClientCSR. */
function kubeletClient(req: Request, usages: string[]): string | undefined {
  if (!onlyNodes(req)) return 'subject organization is not system:nodes';
  if (sanCount(req, 'dns')) return 'DNS subjectAltNames are not allowed';
  if (sanCount(req, 'email')) return 'Email subjectAltNames are not allowed';
  if (sanCount(req, 'ip')) return 'IP subjectAltNames are not allowed';
  if (sanCount(req, 'url')) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, kubeletClientUsages) && !sameSet(usages, ['digital signature', 'client auth'])) return `usages did not match [${[...kubeletClientUsages].sort().join(' ')}]`;
  return undefined;
}

/** validAPIServerClientUsages: client auth, optionally digital signature and key encipherment. */
function apiServerClient(_req: Request, usages: string[]): string | undefined {
  for (const u of usages) {
    if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return `invalid usage for client certificate: ${u}`;
  }
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** The signers kube-controller-manager runs with one cluster signing CA, and what each accepts. */
export const signers: Record<string, SignerCheck> = {
  'kubernetes.io/kubelet-serving': kubeletServing,
  'kubernetes.io/kube-apiserver-client-kubelet': kubeletClient,
  'kubernetes.io/kube-apiserver-client': apiServerClient,
  // No restrictions, for compatibility with what certificates.k8s.io/v1beta1 allowed.
  'kubernetes.io/legacy-unknown': () => undefined,
};

function readRequest(x509: Pkcs10CertificateRequest): Request {
  return { organizations: x509.subjectName.getField('2.5.4.10'), commonName: x509.subjectName.getField('2.5.4.3').at(-1) ?? '', sans: subjectAltNames(x509) };
}

type Condition = { type?: string; status?: string };
const conditionsOf = (csr: KubeObject): Condition[] => {
  const c = (csr['status'] as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
};
const hasTrue = (csr: KubeObject, type: string) => conditionsOf(csr).some((c) => c.type === type && c.status === 'True');
/** IsCertificateRequestApproved: Approved and not Denied. */
const approved = (csr: KubeObject) => hasTrue(csr, 'Approved') && !hasTrue(csr, 'Denied');
const issued = (csr: KubeObject) => !!(csr['status'] as { certificate?: unknown } | undefined)?.certificate;

/** signer.duration: the requested lifetime, at least 10 minutes, at most the configured one. */
export function certificateDurationMs(expirationSeconds: unknown, maxMs: number): number {
  if (typeof expirationSeconds !== 'number') return maxMs;
  const requested = expirationSeconds * 1000;
  return requested > maxMs ? maxMs : requested < minimumDurationMs ? minimumDurationMs : requested;
}

export interface CSRSigningOptions {
  /** --cluster-signing-cert-file / -key-file: the CA of every signer. */
  ca?: ClusterSigningCA;
  /** --cluster-signing-<signer>-cert-file / -key-file: one signer's CA, by signer name; a signer with neither CA is not run. */
  signerCAs?: Partial<Record<string, ClusterSigningCA>>;
  /** --cluster-signing-duration; a year by default. */
  durationMs?: number;
}

export function startCSRSigningController(deps: NamespaceControllerDeps, options: CSRSigningOptions): RunningController {
  const csrs = deps.storeFor(deps.registry.resourceFor('certificates.k8s.io', 'v1', 'certificatesigningrequests')!);
  const caOf = (signerName: string) => options.signerCAs?.[signerName] ?? options.ca;
  // Loaded on first use: a CA that does not load fails the sync (logged and retried), as kube's caProvider.currentCA.
  const authorities = new Map<string, Promise<CertificateAuthority>>();
  const authorityFor = (signerName: string, ca: ClusterSigningCA) => {
    let loaded = authorities.get(signerName);
    if (!loaded) authorities.set(signerName, (loaded = CertificateAuthority.load(ca)));
    return loaded;
  };
  const maxMs = options.durationMs ?? defaultClusterSigningDurationMs;

  async function sync(key: string): Promise<void> {
    const name = key.slice(1);
    const kv = await csrs.getKv('', name);
    if (!kv) return;
    const csr = csrs.decode(kv);
    if (issued(csr) || !approved(csr) || hasTrue(csr, 'Failed')) return;
    const spec = csr['spec'] as { signerName?: string; request?: string; usages?: string[]; expirationSeconds?: number };
    const signerName = spec.signerName ?? '';
    const check = signers[signerName];
    const signingCA = caOf(signerName);
    if (!check || !signingCA) return;
    let x509: Pkcs10CertificateRequest;
    try {
      x509 = parseCSR(atob(spec.request ?? ''));
    } catch (e) {
      throw new Error(`unable to parse csr "${name}": ${(e as Error).message}`);
    }
    const usages = spec.usages ?? [];
    const refused = check(readRequest(x509), usages);
    const status: Record<string, unknown> = {};
    if (refused) {
      status['conditions'] = [...conditionsOf(csr), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refused, lastUpdateTime: formatTime(deps.clock.now()) }];
    } else {
      const ca = await authorityFor(signerName, signingCA);
      status['certificate'] = btoa(await ca.sign(x509, { ttlMs: certificateDurationMs(spec.expirationSeconds, maxMs), usages, now: deps.clock.now() }));
    }
    // UpdateStatus with the version read. A request changed meanwhile (409) is queued again by that change's event; a deleted one is done.
    try {
      await csrs.update('', name, (cur) => {
        if (!cur) throw newNotFound({ group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, name);
        return { ...csr, status: { ...(csr['status'] as object), ...status } } as KubeObject;
      }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  const queue = newWorkQueue('certificatesigningrequest-signing-controller', sync);
  return watchInto(deps, queue, csrs, []);
}
