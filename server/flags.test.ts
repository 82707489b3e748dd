import { advertiseAddress } from './advertiseAddress';
import { nodeRestrictionEnabled } from './admissionFlags';
import { homedir, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlagError, parseDuration, parseFlags } from './flags';

describe('kube-apiserver-style flags', () => {
  it('defaults: loopback 8080, sqlite under the home directory', () => {
    expect(parseFlags([])).toEqual({
      port: 8080, bindAddress: '127.0.0.1', dataDir: join(homedir(), '.kubesim'), store: 'sqlite', tls: false, securePort: 6443, help: false,
    });
  });

  it('accepts --name=value, --name value and bare booleans', () => {
    const f = parseFlags(['--port=9090', '--bind-address', '0.0.0.0', '--store=memory', '--tls', '--secure-port', '7443', '--data-dir=/tmp/x', '--runtime-config=batch/v1=false']);
    expect(f).toMatchObject({ port: 9090, bindAddress: '0.0.0.0', store: 'memory', tls: true, securePort: 7443, dataDir: '/tmp/x', runtimeConfig: 'batch/v1=false' });
    expect(parseFlags(['--tls=false']).tls).toBe(false);
  });

  it('rejects unknown flags and bad values the way cobra does', () => {
    expect(() => parseFlags(['--nope'])).toThrow('unknown flag: --nope');
    expect(() => parseFlags(['--port=abc'])).toThrow('invalid argument "abc" for "--port" flag');
    expect(() => parseFlags(['--store=etcd3'])).toThrow(FlagError);
    expect(() => parseFlags(['--port'])).toThrow('flag needs an argument: --port');
  });
});

describe('--etcd-compaction-interval', () => {
  it('takes a Go duration and sets the watch history window', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseFlags(['--etcd-compaction-interval=2m']).etcdCompactionIntervalMs).toBe(120_000);
    expect(() => parseFlags(['--etcd-compaction-interval=soon'])).toThrow(FlagError);
  });
});

describe('--event-ttl', () => {
  it('takes a Go duration: how long an Event lasts after its last write', () => {
    expect(parseFlags([]).eventTtlMs).toBeUndefined();
    expect(parseFlags(['--event-ttl=30m']).eventTtlMs).toBe(1_800_000);
    expect(() => parseFlags(['--event-ttl=forever'])).toThrow(FlagError);
  });
});

describe('--simulated-nodes', () => {
  it('takes a count of simulated nodes, 0 to 100', () => {
    expect(parseFlags([]).simulatedNodes).toBeUndefined();
    expect(parseFlags(['--simulated-nodes=3']).simulatedNodes).toBe(3);
    expect(parseFlags(['--simulated-nodes', '0']).simulatedNodes).toBe(0);
    expect(() => parseFlags(['--simulated-nodes=two'])).toThrow('invalid argument "two" for "--simulated-nodes" flag');
    expect(() => parseFlags(['--simulated-nodes=101'])).toThrow(FlagError);
  });
});

describe('--feature-gates', () => {
  it('takes Name=bool pairs and rejects unknown gates', () => {
    expect(parseFlags(['--feature-gates=APIResponseCompression=false', '--feature-gates', 'AllowUnsafeMalformedObjectDeletion=true']).featureGates).toEqual({ APIResponseCompression: false, AllowUnsafeMalformedObjectDeletion: true });
    expect(() => parseFlags(['--feature-gates=Nope=true'])).toThrow('unrecognized feature gate: Nope');
    expect(() => parseFlags(['--feature-gates=APIResponseCompression=maybe'])).toThrow(FlagError);
  });

  it('[API-VER-048][API-VER-050] collects the warning of a GA gate being set, refuses a locked gate set away from its default', () => {
    expect(parseFlags(['--feature-gates=ComponentSLIs=true,NativeHistograms=true'])).toMatchObject({
      featureGates: { ComponentSLIs: true, NativeHistograms: true },
      warnings: ['Setting GA feature gate ComponentSLIs=true. It will be removed in a future release.'],
    });
    expect(() => parseFlags(['--feature-gates=ComponentSLIs=false'])).toThrow('invalid argument "ComponentSLIs=false" for "--feature-gates" flag: cannot set feature gate ComponentSLIs to false, feature is locked to true');
  });

  it('--show-hidden-metrics-for-version is kept for the server to check', () => {
    expect(parseFlags(['--show-hidden-metrics-for-version=1.35']).showHiddenMetricsForVersion).toBe('1.35');
    expect(parseFlags(['--port=1', '--tls']).given).toEqual({ port: '1', tls: 'true' });
  });
});

describe('--service-cluster-ip-range and --service-node-port-range', () => {
  it('take a CIDR and a port range, checked at parse time', () => {
    expect(parseFlags(['--service-cluster-ip-range=10.0.0.0/16', '--service-node-port-range', '31000-31999'])).toMatchObject({ serviceClusterIPRange: '10.0.0.0/16', serviceNodePortRange: '31000-31999' });
    expect(() => parseFlags(['--service-cluster-ip-range=10.0.0.0'])).toThrow('invalid argument "10.0.0.0" for "--service-cluster-ip-range" flag: invalid CIDR address: 10.0.0.0');
    expect(() => parseFlags(['--service-node-port-range=40000-30000'])).toThrow('unable to parse port range: 40000-30000');
  });
});

describe('authentication flags', () => {
  it('token file, anonymous auth, repeatable service account keys and issuers, durations', () => {
    const f = parseFlags([
      '--token-auth-file=/etc/t.csv', '--anonymous-auth=false', '--service-account-key-file=/a.pem', '--service-account-key-file', '/b.pem',
      '--service-account-issuer=https://one', '--service-account-issuer=https://two', '--service-account-lookup=false',
      '--service-account-max-token-expiration=24h', '--api-audiences=a,b', '--enable-bootstrap-token-auth',
    ]);
    expect(f.authn).toEqual({
      tokenAuthFile: '/etc/t.csv', anonymousAuth: false, serviceAccountKeyFiles: ['/a.pem', '/b.pem'], serviceAccountIssuers: ['https://one', 'https://two'],
      serviceAccountLookup: false, serviceAccountMaxTokenExpirationSeconds: 86400, apiAudiences: ['a', 'b'], enableBootstrapTokenAuth: true,
    });
    expect(() => parseFlags(['--anonymous-auth=maybe'])).toThrow('invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(() => parseFlags(['--service-account-max-token-expiration=soon'])).toThrow('invalid argument "soon" for "--service-account-max-token-expiration" flag');
  });
});

describe('admission plugin flags', () => {
  it('[AC-NODE-021] take kube-apiserver plugin names; an unknown one stops the host with its message', () => {
    expect(parseFlags(['--enable-admission-plugins=NodeRestriction,NamespaceLifecycle', '--disable-admission-plugins', 'PodSecurity'])).toMatchObject({
      enableAdmissionPlugins: ['NodeRestriction', 'NamespaceLifecycle'], disableAdmissionPlugins: ['PodSecurity'],
    });
    expect(() => parseFlags(['--enable-admission-plugins=NodeRestriction,Bogus'])).toThrow('enable-admission-plugins plugin "Bogus" is unknown');
    expect(nodeRestrictionEnabled(['NodeRestriction'], [])).toBe(true);
    expect(nodeRestrictionEnabled(['NodeRestriction'], ['NodeRestriction'])).toBe(false);
    expect(nodeRestrictionEnabled()).toBe(false);
  });
});

describe('--livez-grace-period and --shutdown-delay-duration', () => {
  it('[AC-HEALTH-017][AC-HEALTH-018] take Go durations', () => {
    expect(parseFlags(['--livez-grace-period=1m', '--shutdown-delay-duration', '20s'])).toMatchObject({ livezGracePeriodMs: 60_000, shutdownDelayMs: 20_000 });
    expect(() => parseFlags(['--shutdown-delay-duration=soon'])).toThrow('invalid argument "soon" for "--shutdown-delay-duration" flag: time: invalid duration "soon"');
  });
});

describe('--controllers and --fake-clock', () => {
  it('--controllers takes kube-controller-manager names and aliases; an unknown one stops the host', () => {
    expect(parseFlags(['--controllers=*,-deployment,replicaset-controller,bootstrapsigner']).authn?.controllers).toEqual(['*', '-deployment-controller', 'replicaset-controller', 'bootstrap-signer-controller']);
    expect(() => parseFlags(['--controllers=*,-scheduler'])).toThrow('invalid argument "*,-scheduler" for "--controllers" flag: "scheduler" is not in the list of known controllers');
  });

  it('--fake-clock starts a clock now or at an RFC 3339 time', () => {
    expect(parseFlags(['--fake-clock=2026-03-01T00:00:00Z']).fakeClock?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseFlags(['--fake-clock']).fakeClock).toBeInstanceOf(Date);
    expect(parseFlags(['--fake-clock=false']).fakeClock).toBeUndefined();
    expect(() => parseFlags(['--fake-clock=tomorrow'])).toThrow('invalid argument "tomorrow" for "--fake-clock" flag: not an RFC 3339 time');
  });
});

describe('--store=etcd and the etcd flags', () => {
  it('takes kube-apiserver\'s etcd flags and kube-controller-manager\'s leader election durations', () => {
    const f = parseFlags(['--store=etcd', '--etcd-servers=http://127.0.0.1:2379,https://10.0.0.2:2379', '--etcd-prefix=/kubesim/', '--storage-media-type=application/json',
      '--etcd-cafile=/ca.pem', '--etcd-certfile=/c.pem', '--etcd-keyfile=/k.pem', '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms']);
    expect(f.store).toBe('etcd');
    expect(f.etcd).toEqual({
      servers: ['http://127.0.0.1:2379', 'https://10.0.0.2:2379'], prefix: '/kubesim', storageMediaType: 'application/json', caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem',
      leaderElect: true, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500,
    });
    expect(parseFlags(['--store=etcd', '--etcd-servers=http://e:2379', '--leader-elect=false']).etcd).toMatchObject({ prefix: '/registry', leaderElect: false });
  });

  it('rejects what kube-apiserver rejects', () => {
    expect(() => parseFlags(['--store=etcd'])).toThrow('--etcd-servers must be specified');
    expect(() => parseFlags(['--store=etcd', '--etcd-servers=127.0.0.1:2379'])).toThrow(FlagError);
    expect(() => parseFlags(['--store=etcd', '--etcd-servers=http://e:2379', '--storage-media-type=text/plain'])).toThrow('invalid argument "text/plain" for "--storage-media-type" flag');
    expect(() => parseFlags(['--store=etcd', '--etcd-servers=http://e:2379', '--etcd-certfile=/c.pem'])).toThrow('--etcd-certfile and --etcd-keyfile must be given together');
  });
});

describe('--max-request-bytes', () => {
  it('[AC-AUTHN-038] --tls-cert-file and --tls-private-key-file name the serving certificate and key', () => {
    expect(parseFlags(['--tls', '--tls-cert-file=/pki/apiserver.crt', '--tls-private-key-file=/pki/apiserver.key'])).toMatchObject({ tls: true, tlsCertFile: '/pki/apiserver.crt', tlsPrivateKeyFile: '/pki/apiserver.key' });
  });

  it('takes a positive byte count for the embedded store', () => {
    expect(parseFlags(['--max-request-bytes=2097152']).maxRequestBytes).toBe(2097152);
    expect(parseFlags([]).maxRequestBytes).toBeUndefined();
    expect(() => parseFlags(['--max-request-bytes=0'])).toThrow('invalid argument "0" for "--max-request-bytes" flag');
    expect(() => parseFlags(['--max-request-bytes=1.5MiB'])).toThrow(FlagError);
  });
});

describe('--use-service-account-credentials', () => {
  it('[AC-RBAC-116] is off by default; a bare flag or a ParseBool value sets it', () => {
    expect(parseFlags([]).useServiceAccountCredentials).toBeUndefined();
    expect(parseFlags(['--use-service-account-credentials']).useServiceAccountCredentials).toBe(true);
    expect(parseFlags(['--use-service-account-credentials=false']).useServiceAccountCredentials).toBe(false);
    expect(() => parseFlags(['--use-service-account-credentials=yes'])).toThrow('invalid argument "yes" for "--use-service-account-credentials" flag: strconv.ParseBool: parsing "yes": invalid syntax');
  });
});

describe('--max-endpoints-per-slice', () => {
  it('takes 1 to 1000, as kube-controller-manager validates it', () => {
    expect(parseFlags([]).maxEndpointsPerSlice).toBeUndefined();
    expect(parseFlags(['--max-endpoints-per-slice=20']).maxEndpointsPerSlice).toBe(20);
    expect(() => parseFlags(['--max-endpoints-per-slice=0'])).toThrow('max-endpoints-per-slice must be greater than or equal to 1, got 0');
    expect(() => parseFlags(['--max-endpoints-per-slice=1001'])).toThrow('max-endpoints-per-slice must be less than or equal to 1000, got 1001');
    expect(() => parseFlags(['--max-endpoints-per-slice=ten'])).toThrow(FlagError);
  });
});

describe('--mirroring-max-endpoints-per-subset', () => {
  it('takes 1 to 1000, as kube-controller-manager validates it', () => {
    expect(parseFlags([]).mirroringMaxEndpointsPerSubset).toBeUndefined();
    expect(parseFlags(['--mirroring-max-endpoints-per-subset=5']).mirroringMaxEndpointsPerSubset).toBe(5);
    expect(() => parseFlags(['--mirroring-max-endpoints-per-subset=0'])).toThrow('mirroring-max-endpoints-per-subset must be greater than or equal to 1, got 0');
    expect(() => parseFlags(['--mirroring-max-endpoints-per-subset=1001'])).toThrow('mirroring-max-endpoints-per-subset must be less than or equal to 1000, got 1001');
    expect(() => parseFlags(['--mirroring-max-endpoints-per-subset=x'])).toThrow('invalid argument "x" for "--mirroring-max-endpoints-per-subset" flag');
  });
});

describe('--advertise-address', () => {
  it('takes an IP for the kubernetes Service\'s endpoints; its default is the bind address unless loopback, then a host interface', () => {
    expect(parseFlags(['--advertise-address=192.168.49.2']).advertiseAddress).toBe('192.168.49.2');
    expect(() => parseFlags(['--advertise-address=my-host'])).toThrow('invalid argument "my-host" for "--advertise-address" flag: invalid IP address');
    expect(advertiseAddress({ bindAddress: '10.1.2.3' })).toBe('10.1.2.3');
    expect(advertiseAddress({ bindAddress: '10.1.2.3', advertiseAddress: '10.9.9.9' })).toBe('10.9.9.9');
    const chosen = advertiseAddress({ bindAddress: '127.0.0.1' });
    const external = Object.values(networkInterfaces()).flat().find((a) => a?.family === 'IPv4' && !a.internal);
    expect(chosen).toBe(external?.address ?? '127.0.0.1');
  });
});
