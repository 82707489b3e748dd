import { nodeRestrictionEnabled } from './admissionFlags';
import { homedir } from 'node:os';
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

describe('--feature-gates', () => {
  it('takes Name=bool pairs and rejects unknown gates', () => {
    expect(parseFlags(['--feature-gates=APIResponseCompression=false', '--feature-gates', 'AllowUnsafeMalformedObjectDeletion=true']).featureGates).toEqual({ APIResponseCompression: false, AllowUnsafeMalformedObjectDeletion: true });
    expect(() => parseFlags(['--feature-gates=Nope=true'])).toThrow('unrecognized feature gate: Nope');
    expect(() => parseFlags(['--feature-gates=APIResponseCompression=maybe'])).toThrow(FlagError);
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

describe('--max-request-bytes', () => {
  it('takes a positive byte count for the embedded store', () => {
    expect(parseFlags(['--max-request-bytes=2097152']).maxRequestBytes).toBe(2097152);
    expect(parseFlags([]).maxRequestBytes).toBeUndefined();
    expect(() => parseFlags(['--max-request-bytes=0'])).toThrow('invalid argument "0" for "--max-request-bytes" flag');
    expect(() => parseFlags(['--max-request-bytes=1.5MiB'])).toThrow(FlagError);
  });
});
