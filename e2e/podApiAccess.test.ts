/**
 * A pod calling the API server with its service account, as the "Accessing
 * the Kubernetes API from a Pod" task does: real kubectl exec runs curl (and
 * busybox wget) in a pod on a simulated node against a Node host under RBAC;
 * the request is authenticated by the pod's projected token and authorized
 * like any client's, so a RoleBinding changes the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, withoutClientLogs, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { authorizationModes: 'Node,RBAC', simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

const kubectl = async (args: string[], input = ''): Promise<RunResult> => withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input));
const SA = '/var/run/secrets/kubernetes.io/serviceaccount';
/** `sh -c` in the curl pod, with the token and CA of its service account. */
const inPod = (pod: string, script: string) => kubectl(['exec', pod, '--', 'sh', '-c', script]);
const asServiceAccount = `--cacert ${SA}/ca.crt -H "Authorization: Bearer $(cat ${SA}/token)"`;

describe('the API from inside a pod', () => {
  beforeAll(async () => {
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    expect((await kubectl(['run', 'curl', '--image=curlimages/curl:8.11.1', '--command', '--', 'sleep', '3600'])).code).toBe(0);
    expect((await kubectl(['run', 'bb', '--image=busybox:1.36', '--command', '--', 'sleep', '3600'])).code).toBe(0);
    expect((await kubectl(['wait', '--for=condition=Ready', 'pod/curl', 'pod/bb', '--timeout=25s'])).code).toBe(0);
  });

  it('[AC-AUTHN-040] [AC-RBAC-042] the service account token is authenticated and RBAC decides: 403 until a RoleBinding grants view, then the list', async () => {
    const list = () => inPod('curl', `curl -sS ${asServiceAccount} https://kubernetes.default.svc/api/v1/namespaces/default/pods`);
    const denied = await list();
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message: 'pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"' });
    expect((await kubectl(['create', 'rolebinding', 'default-view', '--clusterrole=view', '--serviceaccount=default:default'])).code).toBe(0);
    const listed = await list();
    expect(JSON.parse(listed.stdout)).toMatchObject({ kind: 'PodList', items: expect.arrayContaining([expect.objectContaining({ metadata: expect.objectContaining({ name: 'curl' }) })]) });
    // view does not delete: curl -f fails on the 403.
    expect(await inPod('curl', `curl -sSf ${asServiceAccount} -X DELETE https://kubernetes.default.svc/api/v1/namespaces/default/pods/bb`)).toMatchObject({ code: 22, stderr: 'curl: (22) The requested URL returned error: 403\ncommand terminated with exit code 22\n' });
    expect((await kubectl(['get', 'pod', 'bb'])).code).toBe(0);
  });

  it('[AC-AUTHN-019] without a token the request is system:anonymous; without the cluster CA curl does not trust the server; busybox wget checks no certificate', async () => {
    expect(JSON.parse((await inPod('curl', `curl -s --cacert ${SA}/ca.crt https://kubernetes.default.svc/api/v1/namespaces/default/pods`)).stdout)).toMatchObject({ code: 403, message: expect.stringContaining('User "system:anonymous" cannot list resource "pods"') });
    // /version is public (system:public-info-viewer).
    expect(JSON.parse((await inPod('curl', `curl -s --cacert ${SA}/ca.crt https://kubernetes.default.svc/version`)).stdout)).toMatchObject({ major: '1' });
    expect(await inPod('curl', 'curl -sS https://kubernetes.default.svc/version')).toMatchObject({ code: 60, stderr: expect.stringMatching(/^curl: \(60\) SSL certificate problem: unable to get local issuer certificate\n/) });
    const viaWget = await inPod('bb', `wget -qO- --header "Authorization: Bearer $(cat ${SA}/token)" https://kubernetes.default.svc/api/v1/namespaces/default/pods/curl`);
    expect(viaWget).toMatchObject({ code: 0, stderr: 'wget: note: TLS certificate validation not implemented\n' });
    expect(JSON.parse(viaWget.stdout)).toMatchObject({ kind: 'Pod', metadata: { name: 'curl' } });
  });

  it("[AC-REV-003] [AC-REV-006] a kubelet's port checks the bearer token with a TokenReview and the request with SubjectAccessReviews: 401, then 403 naming nodes/pods and nodes/proxy, then the kubelet's answer once a ClusterRole grants it", async () => {
    const nodeIP = (await kubectl(['get', 'node', 'node-1', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])).stdout;
    expect(nodeIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const kubelet = (path: string, auth = `-H "Authorization: Bearer $(cat ${SA}/token)"`) => inPod('curl', `curl -sSk ${auth} https://${nodeIP}:10250${path}`);
    // The kubelet's certificate is its own, self-signed: the cluster CA does not vouch for it.
    expect(await inPod('curl', `curl -sS --cacert ${SA}/ca.crt https://${nodeIP}:10250/pods`)).toMatchObject({ code: 60, stderr: expect.stringMatching(/^curl: \(60\) SSL certificate problem: self-signed certificate in certificate chain\n/) });
    expect(await kubelet('/pods', '')).toMatchObject({ code: 0, stdout: 'Unauthorized' });
    expect(await kubelet('/pods', '-H "Authorization: Bearer not-a-token"')).toMatchObject({ code: 0, stdout: 'Unauthorized' });
    expect((await kubelet('/pods')).stdout).toBe('Forbidden (user=system:serviceaccount:default:default, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
    expect((await kubectl(['create', 'clusterrole', 'kubelet-pods', '--verb=get', '--resource=nodes/proxy'])).code).toBe(0);
    expect((await kubectl(['create', 'clusterrolebinding', 'kubelet-pods', '--clusterrole=kubelet-pods', '--serviceaccount=default:default'])).code).toBe(0);
    const pods = await kubelet('/pods');
    expect(JSON.parse(pods.stdout)).toMatchObject({ kind: 'PodList', items: expect.arrayContaining([expect.objectContaining({ metadata: expect.objectContaining({ name: 'curl' }) })]) });
    // nodes/proxy is not nodes/stats.
    expect((await kubelet('/stats/summary')).stdout).toBe('Forbidden (user=system:serviceaccount:default:default, verb=get, resource=nodes, subresource(s)=[stats])\n');
  });
});
