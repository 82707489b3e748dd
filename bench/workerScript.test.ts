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
  it('counts sw.js and the core chunks at start, the parts too at install, and no other file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubesim-worker-script-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(
      join(dir, 'sw.js'),
      'function createChunkLoader(scope, manifest) {}\nvar kubesimChunks = createChunkLoader(self, {"core":["assets/sw-runtime-1.js"],"parts":["assets/sw-cel-2.js","assets/sw-re2-3.js"]});\nkubesimChunks.require("sw.js");\n',
    );
    await writeFile(join(dir, 'assets/sw-runtime-1.js'), 'kubesimChunks.define("assets/sw-runtime-1.js", function (require, module, exports) {});');
    await writeFile(join(dir, 'assets/sw-cel-2.js'), 'x'.repeat(100));
    await writeFile(join(dir, 'assets/sw-re2-3.js'), 'y');
    await writeFile(join(dir, 'assets/registry.definitions-0a.json'), '{}');
    await writeFile(join(dir, 'assets/main-4.js'), 'page();');
    const start = await workerScriptFiles(dir);
    expect(start.map((f) => f.path)).toEqual(['sw.js', 'assets/sw-runtime-1.js']);
    const install = await workerScriptFiles(dir, 'install');
    expect(install.map((f) => f.path)).toEqual(['sw.js', 'assets/sw-runtime-1.js', 'assets/sw-cel-2.js', 'assets/sw-re2-3.js']);
    expect(install[2]).toMatchObject({ bytes: 100 });
    expect(install.every((f) => f.gzipBytes > 0)).toBe(true);
  });

  it('refuses a sw.js without a chunk manifest', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubesim-worker-script-'));
    await writeFile(join(dir, 'sw.js'), 'import"./assets/x.js";');
    await expect(workerScriptFiles(dir)).rejects.toThrow(/no chunk manifest/);
  });
});
