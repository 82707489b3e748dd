import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workerScriptFiles } from './workerScript';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('workerScriptFiles', () => {
  it('counts sw.js and the chunks it imports statically, transitively and once each, and no other file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubesim-worker-script-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'sw.js'), 'import{n as e,t}from"./assets/runtime-1.js";import{a as $b}from"./assets/shared-2.js";\nimport"./assets/side-3.js";const x="import(\\"./assets/lazy.js\\")";');
    await writeFile(join(dir, 'assets/runtime-1.js'), 'export const n=1,t=2;');
    await writeFile(join(dir, 'assets/shared-2.js'), 'import{n}from"./runtime-1.js";export const a=n;');
    await writeFile(join(dir, 'assets/side-3.js'), 'self.x=1;');
    await writeFile(join(dir, 'assets/lazy.js'), 'export default 1;');
    await writeFile(join(dir, 'assets/registry.definitions-0a.json'), '{}');
    const files = await workerScriptFiles(dir);
    expect(files.map((f) => f.path)).toEqual(['sw.js', 'assets/runtime-1.js', 'assets/shared-2.js', 'assets/side-3.js']);
    expect(files[3]).toMatchObject({ bytes: 9 });
    expect(files.every((f) => f.gzipBytes > 0)).toBe(true);
  });
});
