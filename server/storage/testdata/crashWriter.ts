/**
 * Child process for the SQLite durability test: creates configmap-like keys
 * one after another and prints "<revision> <key>" after each acknowledged
 * write, until killed (or until the cap, so it never runs unbounded).
 *
 * Usage: node --import tsx crashWriter.ts <db path> [cap]
 */
import { createSqliteStorage } from '../sqlite';
import { crashWriterValue } from './crashValue';

const [path, capArg] = process.argv.slice(2);
if (!path) throw new Error('usage: crashWriter.ts <db path> [cap]');
const cap = Number(capArg ?? 1_000_000);
const storage = createSqliteStorage(path);

for (let i = 0; i < cap; i++) {
  const key = `/registry/configmaps/default/cm-${i}`;
  const kv = await storage.create(key, crashWriterValue(i));
  process.stdout.write(`${kv.modRevision} ${key}\n`);
}
await storage.close();

