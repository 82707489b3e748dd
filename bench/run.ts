/**
 * Runs every bench/*.bench.ts in name order, each in its own `npx tsx` child
 * process so one bench's heap, JIT state and leftover timers cannot colour
 * the next. Output is passed through as it comes; a failing bench is
 * reported and the rest still run, and the exit code is non-zero if any
 * failed.
 *
 * Run: npm run bench [-- name-filter...]   (e.g. `npm run bench -- http`)
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);

const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsx', join(benchDir, file)], { cwd: join(benchDir, '..'), stdio: 'inherit' });
    child.on('error', (e) => {
      console.error(e);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const start = performance.now();
  const code = await run(file);
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  if (code === 0) console.log(`--- ${file}: done in ${seconds} s`);
  else {
    console.log(`--- ${file}: FAILED (exit ${code}) after ${seconds} s`);
    failed.push(file);
  }
}
if (!files.length) console.log(`no bench files matched in ${benchDir}`);
if (failed.length) {
  console.log(`\n${failed.length} of ${files.length} benches failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
