import { describe, expect, it } from 'vitest';
import { debugContainerName, debugPatch, debugPreamble, kubectlDebugCommand, attachEndedText, execEndText, kubectlAttachCommand, kubectlExecCommand, podAttachPath, podExecPath, splitCommand } from './podExec';

describe('the Exec view as kubectl exec', () => {
  it('asks for pods/exec with kubectl -it parameters (no stderr with a terminal)', () => {
    expect(podExecPath('default', 'web', { container: 'app', command: ['sh'], stdin: true, tty: true })).toBe('/api/v1/namespaces/default/pods/web/exec?command=sh&container=app&stdin=true&stdout=true&tty=true');
    expect(podExecPath('my ns', 'web', { container: 'app', command: ['sh', '-c', 'echo a b'], stdin: false, tty: false })).toBe('/api/v1/namespaces/my%20ns/pods/web/exec?command=sh&command=-c&command=echo+a+b&container=app&stdout=true&stderr=true');
  });

  it('shows the kubectl command with the words quoted as a shell needs them', () => {
    expect(kubectlExecCommand('web', 'default', { container: 'app', command: ['sh'], stdin: true, tty: true })).toBe('kubectl exec -it web -n default -c app -- sh');
    expect(kubectlExecCommand('web', 'default', { container: 'app', command: ['sh', '-c', "echo it's"], stdin: true, tty: false })).toBe(`kubectl exec -i web -n default -c app -- sh -c 'echo it'\\''s'`);
    expect(kubectlExecCommand('web', 'dev', { container: 'app', command: ['ls', '/tmp'], stdin: false, tty: false })).toBe('kubectl exec web -n dev -c app -- ls /tmp');
  });

  it('asks for pods/attach as kubectl attach does, and says how to resume', () => {
    expect(podAttachPath('default', 'web', { container: 'app', stdin: true, tty: true })).toBe('/api/v1/namespaces/default/pods/web/attach?container=app&stdin=true&stdout=true&tty=true');
    expect(podAttachPath('default', 'web', { container: 'app', stdin: false, tty: false })).toBe('/api/v1/namespaces/default/pods/web/attach?container=app&stdout=true&stderr=true');
    expect(kubectlAttachCommand('web', 'default', { container: 'app', stdin: true, tty: true })).toBe('kubectl attach -it web -n default -c app');
    expect(kubectlAttachCommand('web', 'default', { container: 'app', stdin: false, tty: false })).toBe('kubectl attach web -n default -c app');
    expect(attachEndedText('web', 'app')).toBe("Session ended, resume using 'kubectl attach web -c app -i -t' command when the pod is running");
  });

  it('adds a debug container as kubectl debug does: its name, its patch, its command line and what it prints', () => {
    let i = 0;
    const seq = [0, 0.04, 0.5, 0.99, 0.2];
    expect(debugContainerName(() => seq[i++]!)).toBe('debugger-bcr9h');
    expect(debugContainerName()).toMatch(/^debugger-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    // kubectl 1.32's patch for `kubectl debug dbg --image=busybox:1.36 --target=dbg`, field for field.
    expect(JSON.stringify(debugPatch({ name: 'debugger-mzhqc', image: 'busybox:1.36', target: 'dbg', command: [], stdin: false, tty: false }))).toBe('{"spec":{"ephemeralContainers":[{"image":"busybox:1.36","name":"debugger-mzhqc","resources":{},"targetContainerName":"dbg","terminationMessagePolicy":"File"}]}}');
    expect(JSON.stringify(debugPatch({ name: 'debugger-x', image: 'busybox', target: '', command: ['sh'], stdin: true, tty: true }))).toBe('{"spec":{"ephemeralContainers":[{"command":["sh"],"image":"busybox","name":"debugger-x","resources":{},"stdin":true,"terminationMessagePolicy":"File","tty":true}]}}');
    expect(kubectlDebugCommand('web', 'default', { image: 'busybox:1.36', target: 'app', command: [], stdin: true, tty: true })).toBe('kubectl debug -it web -n default --image=busybox:1.36 --target=app');
    expect(kubectlDebugCommand('web', 'default', { image: 'busybox', target: '', command: ['sh', '-c', 'ls /'], stdin: false, tty: false })).toBe("kubectl debug web -n default --image=busybox -- sh -c 'ls /'");
    expect(debugPreamble({ name: 'debugger-mzhqc', target: 'dbg' })).toEqual([
      'Targeting container "dbg". If you don\'t see processes from this container it may be because the container runtime doesn\'t support this feature.',
      'Defaulting debug container name to debugger-mzhqc.',
    ]);
    expect(debugPreamble({ name: 'debugger-x', target: '' })).toEqual(['Defaulting debug container name to debugger-x.']);
  });

  it('splits a command line into words as a shell would', () => {
    expect(splitCommand('sh')).toEqual(['sh']);
    expect(splitCommand('  sh  -c   "echo \\"hi\\" $HOME"  ')).toEqual(['sh', '-c', 'echo "hi" $HOME']);
    expect(splitCommand("sh -c 'a  b'c")).toEqual(['sh', '-c', 'a  bc']);
    expect(splitCommand('echo a\\ b ""')).toEqual(['echo', 'a b', '']);
    expect(splitCommand("sh -c 'open")).toBeUndefined();
    expect(splitCommand('   ')).toEqual([]);
  });

  it('prints the end as kubectl does', () => {
    expect(execEndText({ kind: 'done', status: { kind: 'Status', apiVersion: 'v1', status: 'Success' } })).toBe('');
    expect(execEndText({ kind: 'done', status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NonZeroExitCode', message: 'command terminated with non-zero exit code: error executing command [sh], exit code 3', details: { causes: [{ reason: 'ExitCode', message: '3' }] } } })).toBe('command terminated with exit code 3');
    expect(execEndText({ kind: 'refused', status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest', message: 'container nope is not valid for pod web' } })).toBe('Error from server (BadRequest): container nope is not valid for pod web');
    expect(execEndText({ kind: 'done', status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'Internal error occurred: x' } })).toBe('Error from server (InternalError): Internal error occurred: x');
    expect(execEndText({ kind: 'closed' })).toBe('');
  });
});
