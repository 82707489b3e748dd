/** `kubesim check` on files and directories, its output and exit codes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheckCommand } from './check';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCheckCommand(args, { write: (t) => (out += t) }, async () => '');
  return { code, out };
}

describe('kubesim check', () => {
  it('searches a directory recursively for manifests and reports each as JSON', async () => {
    mkdirSync(join(dir, 'app', 'base'), { recursive: true });
    writeFileSync(join(dir, 'app', 'base', 'rbac.yaml'), 'apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\nmetadata: {name: r, namespace: app}\n');
    writeFileSync(join(dir, 'app', 'pdb.json'), JSON.stringify({ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } } }));
    writeFileSync(join(dir, 'app', 'README.md'), '# not a manifest\n');
    const { code, out } = await check(['-o', 'json', join(dir, 'app')]);
    expect(code).toBe(3);
    const report = JSON.parse(out) as { targetVersion: string; files: { file: string; objects: { kind: string; removedIn?: string; replacement?: string; converted?: { apiVersion: string } }[] }[] };
    expect(report.files.map((f) => f.file)).toEqual([join(dir, 'app', 'base', 'rbac.yaml'), join(dir, 'app', 'pdb.json')]);
    expect(report.files[0]!.objects[0]).toMatchObject({ kind: 'Role', removedIn: '1.22', replacement: 'rbac.authorization.k8s.io/v1', converted: { apiVersion: 'rbac.authorization.k8s.io/v1' } });
    expect(report.files[1]!.objects[0]).toMatchObject({ kind: 'PodDisruptionBudget', removedIn: '1.25', converted: { apiVersion: 'policy/v1' } });
  });

  it('exits 0 when nothing is removed, 1 on a file that is not a manifest or a bad flag', async () => {
    writeFileSync(join(dir, 'ok.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n');
    expect((await check([join(dir, 'ok.yaml')])).code).toBe(0);
    writeFileSync(join(dir, 'bad.yaml'), 'just text\n');
    const bad = await check([join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('not a Kubernetes object');
    expect((await check(['--nope', join(dir, 'ok.yaml')])).code).toBe(1);
    expect((await check([join(dir, 'missing.yaml')])).code).toBe(1);
  });
});
