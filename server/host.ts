/**
 * The Node host: serves the core's handle() over HTTP (and HTTPS with --tls)
 * through its adaptor (server/adaptor), which turns a socket close into an
 * abort of the Request's signal so watches stop. The core never sees a Node API.
 */
import type { IncomingMessage, Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createHash, randomUUID } from 'node:crypto';
import { createHostServer } from './adaptor/listener';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { flagzValues } from './flagz';
import { advertiseAddress } from './advertiseAddress';
import { admissionWebhookTransport } from './admissionWebhookTransport';
import { createApiServer, type ApiServer, type Storage } from '../src/core';
import { hostAuthentication } from './authn';
import { attachClientCertificate } from './clientCerts';
import { publishClusterInfo } from './clusterInfo';
import { rejectDotSegment } from './dotSegments';
import { hostAuthorization } from './authorization';
import { defaultAdmissionPlugins, defaultOnPluginEnabled, nodeRestrictionEnabled } from './admissionFlags';
import { readAdmissionConfiguration } from './admissionConfig';
import type { HostFlags } from './flags';
import { defaultMaxRequestBytes, openHostStorage, withMaxRequestBytes } from './storage';
import { ensureServingCert, servingCertFromFiles } from './tls';
import { hostClusterSigning } from './clusterSigning';
import { FakeClock } from '../src/core/util/clock';
import { defaultFeatureGates } from '../src/core/features';

export interface RunningHost {
  api: ApiServer;
  /** http://host:port */
  url: string;
  /** https://host:port when --tls */
  secureUrl?: string;
  kubeconfigPath: string;
  /** This host's leader election identity (hostname_uuid), when its controllers are gated on the Lease. */
  leaderIdentity?: string;
  /** Whether this host runs the controllers (always, unless gated on the Lease). */
  isLeader(): boolean;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function hostForUrl(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::') return '127.0.0.1';
  return bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress;
}

/** The user carries the admin token of the static token file (kubectl sends it over HTTPS only). */
function kubeconfig(server: string, caData: string | undefined, token: string | undefined): string {
  const cluster = caData ? `    certificate-authority-data: ${Buffer.from(caData).toString('base64')}\n` : '';
  return `apiVersion: v1
kind: Config
clusters:
- name: kubesim
  cluster:
    server: ${server}
${cluster}contexts:
- name: kubesim
  context:
    cluster: kubesim
    user: kubesim-admin
    namespace: default
current-context: kubesim
users:
- name: kubesim-admin
  user:
${token ? `    token: ${token}\n` : '    {}\n'}`;
}

export async function startHost(flags: HostFlags): Promise<RunningHost> {
  // Bad authorization flags stop the server before it opens anything, as kube-apiserver's validation does.
  const authz = hostAuthorization(flags);
  mkdirSync(flags.dataDir, { recursive: true });
  // etcd enforces its own --max-request-bytes; the embedded stores get the same limit here.
  const storage: Storage = flags.store === 'etcd' ? openHostStorage(flags) : withMaxRequestBytes(openHostStorage(flags), flags.maxRequestBytes ?? defaultMaxRequestBytes);
  // Over etcd other hosts may share the store: controllers run on the Lease holder only.
  const etcd = flags.store === 'etcd' ? flags.etcd : undefined;
  let leading = !etcd?.leaderElect;
  const leaderElection = etcd?.leaderElect
    ? { identity: `${hostname()}_${randomUUID()}`, leaseDurationMs: etcd.leaseDurationMs, renewDeadlineMs: etcd.renewDeadlineMs, retryPeriodMs: etcd.retryPeriodMs, onLeadingChange: (now: boolean) => (leading = now) }
    : undefined;
  // Reloads of --authentication-config are counted on /metrics once the API server exists.
  let observeAuthnReload: (ok: boolean) => void = () => {};
  if (!flags.tlsCertFile !== !flags.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
  // The cluster signing CA; a generated one is also the default --client-ca-file, so issued certificates authenticate.
  const signing = await hostClusterSigning(flags.dataDir, flags.tls, flags.clusterSigning);
  const authnFlags = signing?.generatedCertFile && !flags.authn?.clientCaFile ? { ...flags.authn, clientCaFile: signing.generatedCertFile } : flags.authn;
  const authn = await hostAuthentication(flags.dataDir, authnFlags, {
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    onReload: (ok) => observeAuthnReload(ok),
    gates: { egressSelector: flags.featureGates?.StructuredAuthenticationConfigurationEgressSelector ?? defaultFeatureGates.StructuredAuthenticationConfigurationEgressSelector },
  });
  // Token Secrets carry the cluster CA once the TLS files exist.
  const rootCa: { pem?: string } = {};
  authn.options.serviceAccounts = { ...authn.options.serviceAccounts, rootCA: () => rootCa.pem };
  // The cluster CA exists before the controllers that publish it start.
  const generatedFor = ['localhost', '127.0.0.1', '::1', flags.bindAddress].filter((h, i, a) => a.indexOf(h) === i && h !== '0.0.0.0' && h !== '::');
  const cert = !flags.tls ? undefined
    : flags.tlsCertFile && flags.tlsPrivateKeyFile ? await servingCertFromFiles(flags.tlsCertFile, flags.tlsPrivateKeyFile)
    : await ensureServingCert(flags.dataDir, generatedFor);
  if (cert) rootCa.pem = cert.caCert;
  const clock = flags.fakeClock ? new FakeClock(flags.fakeClock) : undefined;
  const api = createApiServer({ storage, clock, controllers: flags.authn?.controllers, authentication: authn.options, anonymousAuth: authn.anonymousAuth, runtimeConfig: flags.runtimeConfig, watchHistoryWindowMs: flags.etcdCompactionIntervalMs, eventTTLMs: flags.eventTtlMs, simulatedNodes: flags.simulatedNodes, hostname: hostname(), leaderElect: etcd ? etcd.leaderElect : undefined, featureGates: flags.featureGates, serviceClusterIPRange: flags.serviceClusterIPRange, serviceNodePortRange: flags.serviceNodePortRange, authorizer: authz.authorizer, rbacBootstrap: authz.rbacBootstrap, nodeRestriction: nodeRestrictionEnabled(flags.enableAdmissionPlugins, flags.disableAdmissionPlugins), certificateSubjectRestriction: defaultOnPluginEnabled('CertificateSubjectRestriction', flags.disableAdmissionPlugins), admissionPlugins: defaultAdmissionPlugins(flags.disableAdmissionPlugins), admissionWebhookTransport, podSecurity: defaultOnPluginEnabled('PodSecurity', flags.disableAdmissionPlugins), podSecurityConfiguration: flags.admissionControlConfigFile ? readAdmissionConfiguration(flags.admissionControlConfigFile).podSecurity : undefined, livezGracePeriodMs: flags.livezGracePeriodMs, flags: flagzValues(flags), showHiddenMetricsForVersion: flags.showHiddenMetricsForVersion, leaderElection, maxEndpointsPerSlice: flags.maxEndpointsPerSlice, mirroringMaxEndpointsPerSubset: flags.mirroringMaxEndpointsPerSubset, useServiceAccountCredentials: flags.useServiceAccountCredentials, advertiseAddress: advertiseAddress(flags), securePort: flags.securePort || undefined, clusterSigning: signing && { ca: signing.ca, signerCAs: signing.signerCAs, durationMs: signing.durationMs } });
  await api.ready;
  // kube-apiserver labels the reload metrics with the hash of its identity (apiserver-<uuid>).
  const apiServerIdHash = `sha256:${createHash('sha256').update(`apiserver-${randomUUID()}`).digest('hex')}`;
  observeAuthnReload = (ok) => api.metrics.observeAuthenticationConfigReload(ok, apiServerIdHash, Date.now() / 1000);
  const fetch = (request: Request, incoming: IncomingMessage, plainTarget: boolean) => {
    const dotted = plainTarget ? undefined : rejectDotSegment(incoming.url);
    if (dotted) return dotted;
    if (clientCas.length) attachClientCertificate(request, incoming, authn.caBundles);
    return api.handle(request);
  };
  const clientCas = Object.values(authn.caBundles).flat();

  const http = createHostServer({ fetch, hostname: flags.bindAddress });
  const port = await listen(http, flags.port, flags.bindAddress);
  const host = hostForUrl(flags.bindAddress);
  const url = `http://${host}:${port}`;
  const servers: Server[] = [http];

  let secureUrl: string | undefined;
  let caCert: string | undefined;
  if (cert) {
    caCert = cert.caCert;
    const https = createHostServer({ fetch, hostname: flags.bindAddress, tls: { key: cert.key, cert: cert.cert, ...(clientCas.length ? { requestCert: true, rejectUnauthorized: false, ca: clientCas.map((c) => c.toString()) } : {}) } });
    const securePort = await listen(https, flags.securePort, flags.bindAddress);
    secureUrl = `https://${host}:${securePort}`;
    servers.push(https);
  }

  const kubeconfigPath = join(flags.dataDir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfig(secureUrl ?? url, secureUrl ? caCert : undefined, authn.kubeconfigToken), { mode: 0o600 });
  if (authn.options.controllers?.bootstrapSigner) await publishClusterInfo(api, secureUrl ?? url, secureUrl ? caCert : undefined, authn.kubeconfigToken);

  return {
    api,
    url,
    secureUrl,
    kubeconfigPath,
    leaderIdentity: leaderElection?.identity,
    isLeader: () => leading,
    async close() {
      // --shutdown-delay-duration: /readyz fails at once so load balancers drain, while requests are still served.
      api.health.startShutdown();
      if (flags.shutdownDelayMs) await new Promise((resolve) => setTimeout(resolve, flags.shutdownDelayMs));
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      authz.stop();
      authn.stop();
      await api.close();
    },
  };
}
