/** What the Logs view asks for: kubectl's default container and container list, the pods/log URL, and kubectl's error line. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api';
import { containerLabel, containerRun, defaultLogContainer, followByDefault, logContainers, parseTailLines, podLogPath, serverErrorText } from './podLogs';

const pod = (annotations: Record<string, string> = {}, status: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', annotations },
  spec: {
    initContainers: [{ name: 'setup', image: 'busybox' }],
    containers: [
      { name: 'a', image: 'nginx' },
      { name: 'b', image: 'busybox' },
    ],
    ephemeralContainers: [{ name: 'debugger', image: 'busybox' }],
  },
  status,
});

describe('the container kubectl logs reads', () => {
  it('is the first container without the annotation; the list is kubectl\'s: containers, ephemeral, init', () => {
    expect(defaultLogContainer(pod())).toBe('a');
    expect(logContainers(pod()).map(containerLabel)).toEqual(['a', 'b', 'debugger (ephem)', 'setup (init)']);
  });

  it('is the default-container annotation\'s, of any kind, put first', () => {
    expect(defaultLogContainer(pod({ 'kubectl.kubernetes.io/default-container': 'b' }))).toBe('b');
    expect(logContainers(pod({ 'kubectl.kubernetes.io/default-container': 'b' })).map((c) => c.name)).toEqual(['b', 'a', 'debugger', 'setup']);
    expect(logContainers(pod({ 'kubectl.kubernetes.io/default-container': 'setup' })).map(containerLabel)).toEqual(['setup (init)', 'a', 'b', 'debugger (ephem)']);
  });

  it('an annotation naming no container of the pod is passed over, as kubectl does', () => {
    expect(defaultLogContainer(pod({ 'kubectl.kubernetes.io/default-container': 'gone' }))).toBe('a');
    expect(logContainers(pod({ 'kubectl.kubernetes.io/default-container': 'gone' }))[0]!.name).toBe('a');
  });
});

describe('a container\'s run and follow default', () => {
  const status = {
    initContainerStatuses: [{ name: 'setup', containerID: 'containerd://s1', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    containerStatuses: [
      { name: 'a', containerID: 'containerd://a2', restartCount: 1, state: { running: {} }, lastState: { terminated: { containerID: 'containerd://a1', exitCode: 1 } } },
      { name: 'b', restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
    ],
  };
  const [a, b, debuggerC, setup] = logContainers(pod({}, status));

  it('the run changes with the container\'s id, restart count and last ended run; a container without a status has none', () => {
    expect(containerRun(pod({}, status), a!)).toBe('containerd://a2#1#containerd://a1');
    expect(containerRun(pod({}, status), b!)).toBe('#0');
    expect(containerRun(pod({}, status), debuggerC!)).toBe('');
  });

  it('follows a running or waiting container, not one that has ended', () => {
    expect(followByDefault(pod({}, status), a!)).toBe(true);
    expect(followByDefault(pod({}, status), b!)).toBe(true);
    expect(followByDefault(pod({}, status), setup!)).toBe(false);
  });
});

describe('the pods/log request', () => {
  it('sets only the flags that are on, as kubectl does', () => {
    expect(podLogPath('default', 'web', { container: 'app', follow: false, previous: false, timestamps: false })).toBe('/api/v1/namespaces/default/pods/web/log?container=app');
    expect(podLogPath('team a', 'web', { container: 'app', follow: true, previous: true, timestamps: true, tailLines: 20 })).toBe(
      '/api/v1/namespaces/team%20a/pods/web/log?container=app&follow=true&previous=true&timestamps=true&tailLines=20',
    );
    expect(podLogPath('default', 'web', { container: 'app', follow: false, previous: false, timestamps: false, tailLines: 0 })).toContain('tailLines=0');
  });

  it('a tail of whole lines; empty or negative is all of them (kubectl\'s -1)', () => {
    expect(parseTailLines('10')).toBe(10);
    expect(parseTailLines(' 0 ')).toBe(0);
    expect(parseTailLines('')).toBeUndefined();
    expect(parseTailLines('-1')).toBeUndefined();
    expect(parseTailLines('2.5')).toBeUndefined();
  });

  it('a refusal reads as kubectl prints it', () => {
    expect(serverErrorText({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest', message: 'container "app" in pod "web" is waiting to start: ContainerCreating' })).toBe(
      'Error from server (BadRequest): container "app" in pod "web" is waiting to start: ContainerCreating',
    );
    expect(serverErrorText({ kind: 'Status', apiVersion: 'v1', message: 'no reason' })).toBe('Error from server: no reason');
  });
});
