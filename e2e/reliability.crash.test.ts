/**
 * kill -9 of the Node host (SQLite store) while 4 clients write. After each
 * restart on the same data directory: every acknowledged write is present with
 * its resourceVersion (or superseded by a write that was in flight at the
 * kill), new resourceVersions are above every one handed out before, and every
 * stored object reads back.
 *
 * 4 cycles by default; KUBESIM_CRASH_CYCLES sets the count (the full
 * run is 20).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './support/browser';
import { recordFigures } from './support/reliability';

const CYCLES = Number(process.env.KUBESIM_CRASH_CYCLES ?? 4);
const CLIENTS = 4;
const NS = 'crash';
const dataDir = mkdtempSync(join(tmpdir(), 'kubesim-crash-'));

interface Host {
  child: ChildProcess;
  url: string;
}

/** Starts `server/main.ts` in its own process and waits for its "serving on" line. */
function startHost(): Promise<Host> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server/main.ts'), '--store', 'sqlite', '--data-dir', dataDir, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /serving on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`host exited (${code}) before serving: ${err}`)));
  });
}

function kill9(host: Host): Promise<void> {
  return new Promise((resolve) => {
    host.child.once('exit', () => resolve());
    host.child.kill('SIGKILL');
  });
}

interface Ack {
  rv: number;
  value: string;
}

async function write(url: string, method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, { method, headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

let live: Host | undefined;
afterAll(async () => {
  if (live) await kill9(live);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('kill -9 of the Node host while clients write', () => {
  it(`${CYCLES} crash cycles lose no acknowledged write and never move resourceVersion back`, async () => {
    const acked = new Map<string, Ack>();
    /** Values a client sent whose answer never came: the kill may have come after their commit. */
    const inFlight = new Map<string, string>();
    let highestRv = 0;
    let writes = 0;
    let crashes = 0;

    live = await startHost();
    expect((await write(live.url, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const host = live;
      // Each client writes its own objects: create them, then patch them over and over, until the kill cuts it off.
      let stop = false;
      const floor = highestRv;
      let ackedThisCycle = 0;
      let killAt!: () => void;
      const enough = new Promise<void>((resolve) => (killAt = resolve));
      const target = 40 + ((cycle * 17) % 40);
      const clients = Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; !stop; i++) {
          const name = `c${c}-${i % 8}`;
          const value = `${cycle}.${i}`;
          const exists = acked.has(name) || inFlight.has(name);
          inFlight.set(name, value);
          let r;
          try {
            r = exists
              ? await write(host.url, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/${name}`, { data: { v: value } })
              : await write(host.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name }, data: { v: value } });
          } catch {
            return; // The connection died with the host: this write stays in flight.
          }
          expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
          const rv = Number(r.body.metadata.resourceVersion);
          expect(rv).toBeGreaterThan(floor);
          acked.set(name, { rv, value });
          inFlight.delete(name);
          highestRv = Math.max(highestRv, rv);
          writes++;
          if (++ackedThisCycle === target) killAt();
        }
      }).map((p) => p.catch((e: unknown) => {
        killAt();
        throw e;
      }));
      await enough;
      stop = true;
      await kill9(host);
      crashes++;
      await Promise.all(clients);

      live = await startHost();
      // Every acknowledged write is there: at its resourceVersion, or replaced by the write in flight at the kill.
      const list = await fetch(`${live.url}/api/v1/namespaces/${NS}/configmaps`);
      expect(list.status).toBe(200);
      const items = ((await list.json()) as { items: { metadata: { name: string; resourceVersion: string }; data: { v: string } }[] }).items;
      const byName = new Map(items.map((i) => [i.metadata.name, i]));
      for (const [name, ack] of acked) {
        const got = byName.get(name);
        expect(got, `${name} acknowledged at ${ack.rv} is gone after crash ${cycle + 1}`).toBeDefined();
        const rv = Number(got!.metadata.resourceVersion);
        if (rv === ack.rv) expect(got!.data.v).toBe(ack.value);
        else {
          expect(rv).toBeGreaterThan(ack.rv);
          expect(got!.data.v).toBe(inFlight.get(name));
        }
        acked.set(name, { rv, value: got!.data.v });
        highestRv = Math.max(highestRv, rv);
      }
      // A write in flight for a new name either committed whole or not at all.
      for (const [name, value] of inFlight) if (!acked.has(name) && byName.has(name)) expect(byName.get(name)!.data.v).toBe(value);
      for (const item of items) if (!item.metadata.name.startsWith('probe-') && !acked.has(item.metadata.name)) acked.set(item.metadata.name, { rv: Number(item.metadata.resourceVersion), value: item.data.v });
      inFlight.clear();
      // Every object reads back one by one too.
      for (const item of items) expect((await fetch(`${live.url}/api/v1/namespaces/${NS}/configmaps/${item.metadata.name}`)).status).toBe(200);
      // The revision counter survived: the next write is above everything handed out before.
      const probe = await write(live.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { generateName: 'probe-' } });
      expect(probe.status).toBe(201);
      expect(Number(probe.body.metadata.resourceVersion)).toBeGreaterThan(highestRv);
      highestRv = Number(probe.body.metadata.resourceVersion);
    }

    recordFigures('crash', { store: 'sqlite', cycles: CYCLES, crashesSurvived: crashes, clients: CLIENTS, acknowledgedWrites: writes, objects: acked.size, lostWrites: 0 }, `KUBESIM_CRASH_CYCLES=${CYCLES} npx vitest run --project e2e e2e/reliability.crash.test.ts`);
  }, 60_000 + CYCLES * 60_000);
});
